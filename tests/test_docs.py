"""The generated parts of docs/guide.md match the code."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


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
