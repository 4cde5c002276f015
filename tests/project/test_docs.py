"""The generated parts of docs/guide.md match the code."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_guide_tables_are_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_docs.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr



def test_guide_documents_every_saved_state_field():
    from fifthave_env.engine import Game, GameConfig

    guide = (ROOT / "docs" / "guide.md").read_text()
    table = guide[guide.index("| state field | meaning |"):]
    table = table[:table.index("\n\n")]
    documented = set()
    for line in table.splitlines()[2:]:
        documented |= {name.strip(" `") for name in line.split("|")[1].split(",")}
    assert documented == set(Game(GameConfig(), seed=0).to_dict()["state"])


def shared_rulings():
    """The rules team's RULINGS.md: in $FIFTHAVE_RULES_DIR, or as shared/rules/ in a folder above
    the repository (None when neither exists, e.g. on a user's machine)."""
    import os

    if os.environ.get("FIFTHAVE_RULES_DIR"):
        return Path(os.environ["FIFTHAVE_RULES_DIR"]) / "RULINGS.md"
    for folder in ROOT.parents:
        candidate = folder / "shared" / "rules" / "RULINGS.md"
        if candidate.is_file():
            return candidate
    return None


def test_the_rulings_copy_in_docs_matches_the_shared_rulings():
    import pytest

    source = shared_rulings()
    if source is None:
        pytest.skip("no shared rules folder here (set FIFTHAVE_RULES_DIR to check the copy)")
    assert (ROOT / "docs" / "RULINGS.md").read_text() == source.read_text(), (
        f"docs/RULINGS.md differs from {source}: copy it over (and follow any changed ruling in the code)")


def test_rulings_are_cited_up_to_the_last_one():
    import re

    rulings = (ROOT / "docs" / "RULINGS.md").read_text()
    last = max(int(n) for n in re.findall(r"^- R(\d+)\.", rulings, flags=re.M))
    rules = (ROOT / "docs" / "rules.md").read_text()
    assert f"R1–R{last}" in rules and f"| R{last} |" in rules
    assert f"R1-R{last}" in (ROOT / "docs" / "guide.md").read_text()
    assert f"R{last}" in (ROOT / "fifthave_env" / "engine" / "auction.py").read_text()


def test_the_repository_names_no_machine_path():
    import re

    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    if not tracked:
        import pytest

        pytest.skip("not a git checkout")
    machine_path = re.compile("(?<![\\w.])/(" + "|".join(["wo" + "rk", "ho" + "me", "ro" + "ot", "Us" + "ers"])
                              + ")/")
    found = []
    for name in tracked:
        path = ROOT / name
        if path.suffix in {".png", ".gif", ".zip", ".pt", ".npz"} or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        found += [f"{name}:{i + 1}" for i, line in enumerate(text.splitlines()) if machine_path.search(line)]
    assert not found, f"machine paths in the repository: {found[:10]}"
