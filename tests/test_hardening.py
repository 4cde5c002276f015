"""Hardening (issue 40, issue 39's resume part): workers die with their parent, runs are never silently
restarted or overwritten, inputs that would exhaust memory or time are refused first, user errors are one
line, and resume formats that unpickle are checked against the run's manifest before anything is read."""

import os
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))


def _children(pid):
    """The process ids whose parent is ``pid`` (Linux /proc)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                found += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return found


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"  # a zombie is dead
    except OSError:
        return False


def _wait_for(condition, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("command", [
    ["agents.tournament", "--agents", "random", "random", "--games", "100000", "--workers", "2", "--quiet"],
    ["agents.bidlab_cli", "compare", "--candidate", "reach", "--players", "2", "--deals", "100000",
     "--workers", "2"],
], ids=["tournament", "bidlab"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "term"])
def test_pool_workers_die_with_their_parent(command, sig):
    parent = subprocess.Popen([sys.executable, "-m", *command], env=PYTHON_ENV, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    try:
        assert _wait_for(lambda: len(_children(parent.pid)) >= 2, 60), "the workers never started"
        workers = _children(parent.pid)
        parent.send_signal(sig)
        parent.wait(timeout=30)
        assert _wait_for(lambda: not any(_alive(w) for w in workers), 10), "workers outlived their parent"
    finally:
        for pid in [parent.pid, *workers]:  # never leave one running, even when the test fails
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        parent.wait(timeout=30)
