"""The API reference (docs/api, built by scripts/test.sh with Sphinx) documents every public module."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# import name -> its folder in the repository (fifthave/agents and fifthave/train link to agents/ and train/)
PACKAGES = {"fifthave_env": ROOT / "fifthave_env", "fifthave.agents": ROOT / "agents", "fifthave.train": ROOT / "train"}


def public_modules():
    """Every module and package whose dotted name has no part starting with an underscore."""
    names = set()
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if any(part.startswith("_") for part in parts):
                continue
            names.add(".".join([package, *parts]))
    # the namespace package's own modules (its agents and train entries are the links walked above)
    for path in (ROOT / "fifthave").glob("*.py"):
        names.add("fifthave" if path.stem == "__init__" else f"fifthave.{path.stem}")
    return {name for name in names if not any(part.startswith("_") for part in name.split("."))}


def documented_modules():
    text = "\n".join(page.read_text() for page in (ROOT / "docs" / "api").glob("*.rst"))
    return set(re.findall(r"^\.\. automodule:: (\S+)\s*$", text, flags=re.M))


def test_every_public_module_has_an_api_page_entry():
    missing = sorted(public_modules() - documented_modules())
    assert not missing, (f"public modules missing from docs/api: {', '.join(missing)}; add an "
                         "'.. automodule::' entry to the page of their layer (engine, env, agents or training)")


def test_every_api_entry_names_a_module_that_exists():
    stale = sorted(documented_modules() - public_modules())
    assert not stale, f"docs/api documents modules that do not exist (or are private): {', '.join(stale)}"


def test_the_walk_finds_every_layer():
    # guards the test above against a walk that finds nothing (and so misses nothing)
    found = public_modules()
    for name in ("fifthave", "fifthave_env.engine.game", "fifthave_env.gym_env", "fifthave.agents.tournament",
                 "fifthave.train.ppo", "fifthave.agents.web.server", "fifthave.train.rllib.env"):
        assert name in found
