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


# ---- user errors: one line, before the work ----------------------------------------------------------------

def _one_line_error(main, argv, capsys):
    """Run ``main(argv)``, which must exit with code 2 and one line of error; that line."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(lines)
    return lines[-1]


@pytest.fixture
def blocked(tmp_path):
    """A path that cannot be written, even by root: its parent is a file."""
    (tmp_path / "file").write_text("")
    return str(tmp_path / "file" / "out")


def test_tournament_out_is_checked_before_the_games(blocked, capsys, monkeypatch):
    from agents import tournament

    monkeypatch.setattr(tournament, "run_tournament", lambda *a, **k: pytest.fail("played before checking --out"))
    line = _one_line_error(tournament.main, ["--agents", "random", "random", "--games", "2", "--out", blocked],
                           capsys)
    assert "--out" in line and "cannot be written" in line


def test_tournament_results_are_saved_before_anything_else(tmp_path, monkeypatch):
    from agents import tournament

    def broken_print(*args, **kwargs):
        raise RuntimeError("late failure")
    monkeypatch.setattr(tournament, "print", broken_print, raising=False)
    with pytest.raises(RuntimeError, match="late failure"):
        tournament.main(["--agents", "random", "random", "--games", "2", "--workers", "1", "--quiet",
                         "--out", str(tmp_path / "r")])
    assert (tmp_path / "r.json").exists() and (tmp_path / "r.csv").exists()


@pytest.mark.parametrize("argv, words", [
    (["--agents", "random*99999999999"], "COUNT from 1 to 4"),
    (["--agents", "random*3", "random*3"], "2 to 4 in all"),
    (["--agents", "random", "random", "--seed", "4294967296"], "from 0 to 4294967295"),
    (["--agents", "random", "random", "--address", "10.0.0.1:6379"], "with --backend ray"),
    (["--agents", "search:1e30", "random"], "ROLLOUTS"),
])
def test_tournament_refuses_unbounded_or_meaningless_options(argv, words, capsys):
    from agents import tournament

    assert words in _one_line_error(tournament.main, argv, capsys)


def test_bidlab_outputs_are_checked_before_the_games(blocked, capsys, monkeypatch):
    from agents import bidlab_cli

    monkeypatch.setattr(bidlab_cli, "compare", lambda *a, **k: pytest.fail("played before checking --json"))
    monkeypatch.setattr(bidlab_cli, "run_study", lambda *a, **k: pytest.fail("played before checking --out"))
    line = _one_line_error(bidlab_cli.main, ["compare", "--candidate", "reach", "--json", blocked], capsys)
    assert "--json" in line and "cannot be written" in line
    line = _one_line_error(bidlab_cli.main, ["study", "--out", blocked], capsys)
    assert "--out" in line and "cannot be written" in line
    assert "from 0 to 4294967295" in _one_line_error(
        bidlab_cli.main, ["compare", "--candidate", "reach", "--seed", "4294967296"], capsys)
