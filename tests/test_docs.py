"""The generated parts of docs/guide.md match the code."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_guide_tables_are_up_to_date():
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_docs.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr

