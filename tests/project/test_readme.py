"""The README's example runs as printed and plays the same game every run."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def readme_example():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## The environment in five lines"):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


def run_example():
    """The example in a fresh process (the global numpy generator starts from fresh entropy in each)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", readme_example()], capture_output=True, text=True, env=env,
                            cwd=ROOT, check=True)
    return result.stdout


def test_the_readme_example_plays_the_same_game_every_run():
    first = run_example()
    assert first.startswith("[") and "]" in first  # the scores and the winners
    assert run_example() == first
