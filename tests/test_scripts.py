"""scripts/run.sh: a fresh run directory per run, --resume continues the newest, --run-dir is respected."""

import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fake_repo(tmp_path):
    """run.sh in a copy of the layout, with setup.sh doing nothing and fifthave-train printing its arguments."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "run.sh", tmp_path / "scripts" / "run.sh")
    (tmp_path / "scripts" / "setup.sh").write_text("echo setup\n")
    train = tmp_path / ".venv" / "bin" / "fifthave-train"
    train.parent.mkdir(parents=True)
    train.write_text('#!/usr/bin/env bash\necho "$@"\n')
    train.chmod(train.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def run(repo, *args):
    result = subprocess.run(["bash", str(repo / "scripts" / "run.sh"), *args], capture_output=True, text=True,
                            cwd="/")
    return result.returncode, result.stdout.splitlines()[-1] if result.stdout else "", result.stderr


def test_every_run_gets_its_own_directory_and_resume_continues_the_newest(tmp_path):
    repo = fake_repo(tmp_path)
    code, _, error = run(repo, "--resume")
    assert code == 2 and "no runs/run-* directory to continue; pass --run-dir DIR" in error
    code, first, _ = run(repo, "--total-timesteps", "2048")
    assert code == 0 and first.startswith("--total-timesteps 2048 --run-dir runs/run-")
    os.makedirs(repo / first.split()[-1])
    time.sleep(1.1)  # directories are named to the second
    code, second, _ = run(repo)
    assert code == 0 and second.startswith("--run-dir runs/run-") and second.split()[-1] != first.split()[-1]
    os.makedirs(repo / second.split()[-1])
    assert run(repo, "--resume")[1] == f"--resume --run-dir {second.split()[-1]}"
    assert run(repo, "--run-dir", "runs/mine")[1] == "--run-dir runs/mine"
    assert run(repo, "--resume", "--run-dir=runs/mine")[1] == "--resume --run-dir=runs/mine"
