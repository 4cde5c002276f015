"""Hardening (issue 40, issue 39's resume part): workers die with their parent, runs are never silently
restarted or overwritten, inputs that would exhaust memory or time are refused first, user errors are one
line, and resume formats that unpickle are checked against the run's manifest before anything is read."""

import os
import signal
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
    ["fifthave.agents.tournament", "--agents", "random", "random", "--games", "100000", "--workers", "2", "--quiet"],
    ["fifthave.agents.bidlab_cli", "compare", "--candidate", "reach", "--players", "2", "--deals", "100000",
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
    from fifthave.agents import tournament

    monkeypatch.setattr(tournament, "run_tournament", lambda *a, **k: pytest.fail("played before checking --out"))
    line = _one_line_error(tournament.main, ["--agents", "random", "random", "--games", "2", "--out", blocked],
                           capsys)
    assert "--out" in line and "cannot be written" in line


def test_tournament_results_are_saved_before_anything_else(tmp_path, monkeypatch):
    from fifthave.agents import tournament

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
    (["--agents", "random*0", "random", "random"], "COUNT from 1 to 4"),
    (["--agents", "random", "random", "--workers", "99999999"], "argument --workers: must be an int from 1 to 256"),
    (["--agents", "random", "random", "--seed", "4294967296"], "from 0 to 4294967295"),
    (["--agents", "random", "random", "--address", "10.0.0.1:6379"], "with --backend ray"),
    (["--agents", "search:1e30", "random"], "ROLLOUTS"),
])
def test_tournament_refuses_unbounded_or_meaningless_options(argv, words, capsys):
    from fifthave.agents import tournament

    assert words in _one_line_error(tournament.main, argv, capsys)


def test_bidlab_outputs_are_checked_before_the_games(blocked, capsys, monkeypatch):
    from fifthave.agents import bidlab_cli

    monkeypatch.setattr(bidlab_cli, "compare", lambda *a, **k: pytest.fail("played before checking --json"))
    monkeypatch.setattr(bidlab_cli, "run_study", lambda *a, **k: pytest.fail("played before checking --out"))
    line = _one_line_error(bidlab_cli.main, ["compare", "--candidate", "reach", "--json", blocked], capsys)
    assert "--json" in line and "cannot be written" in line
    line = _one_line_error(bidlab_cli.main, ["study", "--out", blocked], capsys)
    assert "--out" in line and "cannot be written" in line
    assert "from 0 to 4294967295" in _one_line_error(
        bidlab_cli.main, ["compare", "--candidate", "reach", "--seed", "4294967296"], capsys)


# ---- fifthave.train.rllib: options, configs, run directories, resume ----------------------------------------------

class Payload:
    """Unpickled, it writes its marker file: proof that loading ran code from the file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return exec, (f"open({self.marker!r}, 'w').write('code from a checkpoint ran')",)


@pytest.fixture
def rllib_main(monkeypatch):
    """``fifthave train`` with the RLlib trainer replaced by a failure: a bad option must end before training."""
    pytest.importorskip("ray")
    from fifthave.train import run
    from fifthave.train.rllib import train as rllib_train

    monkeypatch.setattr(rllib_train, "train", lambda *a, **k: pytest.fail("trained despite a bad option"))
    return run.main


RLLIB_CONFIG = '{"method": "rllib", "rllib": {}}'


@pytest.mark.parametrize("sets, words", [
    (["rllib.max_seconds=-1"], "rllib.max_seconds (0: no limit) must be a number from 0.0, got -1.0"),
    (["rllib.max_seconds=\"nan\""], "rllib.max_seconds (0: no limit) must be a"),
    (["run.seed=-1"], "run.seed must be an int from 0 to 4294967295, got -1"),
    (["run.workers=-1"], "run.workers must be an int >= 0, got -1"),
])
def test_rllib_refuses_meaningless_options(rllib_main, tmp_path, capsys, sets, words):
    (tmp_path / "config.json").write_text(RLLIB_CONFIG)
    argv = [str(tmp_path / "config.json"), "--out", str(tmp_path / "run"), *(f"--set={s}" for s in sets)]
    assert words in _one_line_error(rllib_main, argv, capsys)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("text, words", [
    ("[1, 2]", "must be a dict, got [1, 2]"),
    ('{"method": "rllib", "rllib": {"train_batch_size": "4000"}}',
     "rllib.train_batch_size must be an int >= 1, got '4000' of type str"),
    ('{"lr": "0.001"}', "learning_rate must be a finite number"),  # an old flat file, its old name read as today's
    ('{"hidden": [20000, 20000]}', "net_arch[0] must be an int from 1 to 4096, got 20000"),
    ('{"method": "rllib", "rllib": {"lambda_": 2}}', "rllib.gae_lambda must be a number from 0.0 to 1.0"),
    ('{"method": "rllib", "rllib": {"use_kl_loss": "no"}}', "use_kl_loss must be True or False"),
])
def test_rllib_config_files_of_the_wrong_shape_are_one_line(rllib_main, tmp_path, capsys, text, words):
    (tmp_path / "config.json").write_text(text)
    assert words in _one_line_error(rllib_main, [str(tmp_path / "config.json"), "--out", str(tmp_path / "run")],
                                    capsys)


def test_rllib_resume_refuses_a_checkpoint_without_a_manifest_before_unpickling_it(tmp_path, capsys):
    pytest.importorskip("ray")
    import pickle

    from fifthave.train import run

    marker = tmp_path / "PWNED"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run_config.json").write_text(RLLIB_CONFIG)
    checkpoint = tmp_path / "run" / "checkpoints" / "iter_000002"
    (checkpoint / "algorithm").mkdir(parents=True)
    for name in ("algorithm/class_and_ctor_args.pkl", "actor.pt"):
        (checkpoint / name).write_bytes(pickle.dumps(Payload(marker)))
    (checkpoint / "meta.json").write_text('{"config": {}, "obs_size": 1, "hidden": [1], "activation": "tanh"}')
    resume = ["--resume", str(tmp_path / "run")]
    line = _one_line_error(run.main, resume, capsys)
    assert "has no manifest" in line and "resuming unpickles it" in line
    assert not marker.exists()
    from fifthave.train.manifest import write_directory_manifest  # a manifest that matches, then a file changes

    write_directory_manifest(str(checkpoint))
    (checkpoint / "algorithm" / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(Payload(marker)) + b" ")
    assert "does not match its SHA-256" in _one_line_error(run.main, resume, capsys)
    (checkpoint / "algorithm" / "extra.pkl").write_bytes(b"")
    assert "not listed algorithm/extra.pkl" in _one_line_error(run.main, resume, capsys)
    assert not marker.exists()


def test_rllib_refuses_a_used_run_directory_unless_it_resumes_its_newest_checkpoint(tmp_path):
    pytest.importorskip("ray")
    from fifthave.train.rllib.train import check_run_dir

    run = tmp_path / "run"
    check_run_dir(str(run))  # missing: fine
    (run / "checkpoints").mkdir(parents=True)
    check_run_dir(str(run))  # empty: fine
    for name in ("iter_000002", "iter_000004"):
        (run / "checkpoints" / name).mkdir()
    with pytest.raises(FileExistsError, match="holds the files of another run \\(checkpoints\\)"):
        check_run_dir(str(run))
    with pytest.raises(FileExistsError, match="checkpoints after iter_000002 \\(iter_000004\\)"):
        check_run_dir(str(run), str(run / "checkpoints" / "iter_000002"))
    check_run_dir(str(run), str(run / "checkpoints" / "iter_000004"))  # its newest: continues
    with pytest.raises(FileExistsError, match="choose an unused --out"):  # another run's checkpoint
        check_run_dir(str(run), str(tmp_path / "other" / "checkpoints" / "iter_000009"))


def test_a_local_ray_that_fails_to_start_is_one_line(monkeypatch, capsys):
    ray = pytest.importorskip("ray")
    from fifthave.agents import tournament

    def fail(*args, **kwargs):
        raise RuntimeError("Failed to start GCS\nmore lines")
    monkeypatch.setattr(ray, "init", fail)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    line = _one_line_error(tournament.main, ["--agents", "random", "random", "--games", "2", "--backend", "ray"],
                           capsys)
    assert "could not start a local Ray (RuntimeError: Failed to start GCS)" in line


# ---- fifthave replay: frames streamed, outputs checked -----------------------------------------------------

def test_replay_streams_gif_frames_instead_of_keeping_them(tmp_path, monkeypatch):
    """issue 40: --every action kept every frame in memory (2 GB at --scale 1, ~30 GB at --scale 4)."""
    import gc
    import weakref

    from fifthave.agents.registry import AGENT_FACTORIES
    from fifthave_env import replay

    record = replay.record_game([AGENT_FACTORIES["random"]() for _ in range(2)],
                                replay.GameConfig(num_players=2, max_turns=6), seed=1)
    record.actions = record.actions[:12]
    drawn, most_alive = [], [0]
    original = replay.frames

    def watched(*args, **kwargs):
        for image in original(*args, **kwargs):
            drawn.append(weakref.ref(image))
            gc.collect()
            most_alive[0] = max(most_alive[0], sum(ref() is not None for ref in drawn))
            yield image
    monkeypatch.setattr(replay, "frames", watched)
    count = replay.save_gif(record, tmp_path / "game.gif", every="action", scale=0.1)
    assert count == 13 and len(drawn) == 2 * count  # drawn twice: once for the palette, once to write
    assert most_alive[0] <= 2
    from PIL import Image

    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == count


def test_replay_output_is_checked_before_drawing(tmp_path, blocked, capsys, monkeypatch):
    from fifthave.agents.registry import AGENT_FACTORIES
    from fifthave_env import replay

    record = replay.record_game([AGENT_FACTORIES["random"]() for _ in range(2)],
                                replay.GameConfig(num_players=2, max_turns=2), seed=1)
    record.save(tmp_path / "game.json")
    monkeypatch.setattr(replay, "frames", lambda *a, **k: pytest.fail("drew before checking the output"))
    for output in (blocked + ".gif", blocked):
        with pytest.raises(SystemExit) as exit_info:
            replay.main([str(tmp_path / "game.json"), output])
        assert exit_info.value.code == 2
        error = capsys.readouterr().err.strip()
        assert "output" in error and "cannot be written" in error and "\n" not in error


# ---- Ctrl-C: one line, exit code 130, what was done is kept --------------------------------------------------

_WITH_CTRL_C = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                "sys.argv = sys.argv[1:]; runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)")


def _ctrl_c(module, argv, ready, tmp_path, stdin=None):
    """Run ``python -m module argv`` in its own session, press Ctrl-C (SIGINT to its whole process group, as a
    terminal does) once ``ready()``; its exit code and stderr."""
    process = subprocess.Popen([sys.executable, "-c", _WITH_CTRL_C, module, *argv], env=PYTHON_ENV, cwd=tmp_path,
                               stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True, text=True)
    try:
        if stdin:
            process.stdin.write(stdin)
            process.stdin.flush()
        assert _wait_for(lambda: ready() or process.poll() is not None, 120) and process.poll() is None, \
            process.communicate(timeout=10)[1] if process.poll() is not None else "not ready in time"
        os.killpg(process.pid, signal.SIGINT)
        _, error = process.communicate(timeout=120)
        return process.returncode, error
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def _clean(error, program, module=""):
    """The last line of ``error``: one line naming the program (``prog``, or the module run with -m)."""
    lines = error.strip().splitlines()
    assert "Traceback" not in error, error
    assert lines[-1].startswith(f"{program}: interrupted") or lines[-1].startswith(f"{module}: interrupted"), error
    return lines[-1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals to a process group")
def test_ctrl_c_in_train_keeps_the_checkpoints_and_says_how_to_resume(tmp_path):
    import json

    config = {"num_players": 2, "opponents": ["random"], "eval_opponents": ["random"], "total_timesteps": 10**7,
              "n_envs": 2, "workers": 1, "n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16],
              "eval_every": 0, "checkpoint_every": 128}
    (tmp_path / "config.json").write_text(json.dumps(config))
    checkpoints = tmp_path / "run" / "checkpoints"
    code, error = _ctrl_c("fifthave.train.run", ["config.json", "--out", "run", "--no-progress"],
                          lambda: checkpoints.is_dir() and any(p.suffix == ".sha256" for p in checkpoints.iterdir()),
                          tmp_path)
    assert code == 130
    line = _clean(error, "fifthave train")
    assert "--resume run" in line and "ckpt_" in line


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals to a process group")
def test_ctrl_c_in_bidlab_with_workers_is_one_line(tmp_path):
    started = time.monotonic()
    code, error = _ctrl_c("fifthave.agents.bidlab_cli", ["compare", "--candidate", "reach", "--players", "2", "--deals",
                                                "100000", "--workers", "2", "--json", "out.json"],
                          lambda: time.monotonic() - started > 4, tmp_path)
    assert code == 130
    _clean(error, "fifthave bidlab", "bidlab_cli.py")
    assert not (tmp_path / "out.json").exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals to a process group")
def test_ctrl_c_in_replay_and_play(tmp_path):
    from fifthave.agents.registry import AGENT_FACTORIES
    from fifthave_env import replay

    replay.record_game([AGENT_FACTORIES["random"]() for _ in range(4)], seed=1).save(tmp_path / "game.json")
    started = time.monotonic()
    code, error = _ctrl_c("fifthave_env.replay", ["game.json", "game.gif", "--every", "action", "--scale", "0.2"],
                          lambda: time.monotonic() - started > 3, tmp_path)
    assert code == 130
    assert "no GIF written" in _clean(error, "fifthave replay", "replay.py")
    assert os.listdir(tmp_path) == ["game.json"]  # no GIF, no temporary
    started = time.monotonic()
    code, _ = _ctrl_c("fifthave.agents.play", ["--opponents", "random"], lambda: time.monotonic() - started > 3, tmp_path,
                      stdin="")
    assert code == 130


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals to a process group")
def test_ctrl_c_in_a_tournament_with_workers_is_one_line(tmp_path):
    started = time.monotonic()
    code, error = _ctrl_c("fifthave.agents.tournament", ["--agents", "random", "random", "--games", "100000", "--workers",
                                                "2", "--quiet", "--out", "r"],
                          lambda: time.monotonic() - started > 3, tmp_path)
    assert code == 130 and "no results written" in _clean(error, "fifthave tournament", "tournament.py")
    assert os.listdir(tmp_path) == []


def _square(x):
    return x * x


def _sleep_then(seconds, value):
    time.sleep(seconds)
    return value


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raises KeyboardInterrupt during the test (a process started in the background, as CI may be, ignores
    SIGINT, and Python then leaves it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_inside_a_deferred_block_is_raised_when_it_ends(ctrl_c_raises):
    from fifthave_env.runtime import interrupt_deferred

    finished = False
    with pytest.raises(KeyboardInterrupt):
        with interrupt_deferred():
            signal.raise_signal(signal.SIGINT)
            finished = True
    assert finished and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with interrupt_deferred():
        pass  # no Ctrl-C, nothing raised
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with interrupt_deferred():
        signal.raise_signal(signal.SIGINT)  # ignored before, ignored still


def test_a_pool_finishes_submitting_before_ctrl_c_takes_effect(monkeypatch, ctrl_c_raises):
    """Ctrl-C once landed inside ``ProcessPoolExecutor.submit`` after a lock of its task queue was taken and before
    the block that releases it: the pool's shutdown then waited forever (CI, test_ctrl_c_in_bidlab_with_workers...).
    Here the Ctrl-C comes while the task queue is being written to: the write must finish first."""
    from fifthave_env.runtime import WorkerPool

    with WorkerPool(1) as pool:
        written = []
        put = pool._work_ids.put

        def put_interrupted(item, *args, **kwargs):
            signal.raise_signal(signal.SIGINT)
            put(item, *args, **kwargs)
            written.append(item)

        monkeypatch.setattr(pool._work_ids, "put", put_interrupted)
        with pytest.raises(KeyboardInterrupt):
            pool.submit(_square, 3)
        assert written == [0]
        monkeypatch.undo()
        assert pool.result(pool.submit(_square, 4)) == 16


def test_a_pool_awaiting_a_result_takes_ctrl_c_within_a_slice_and_shuts_down(ctrl_c_raises):
    import threading

    from fifthave_env.runtime import WorkerPool

    started = time.monotonic()
    with WorkerPool(1) as pool:
        future = pool.submit(_sleep_then, 1.5, "late")
        threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,)).start()
        with pytest.raises(KeyboardInterrupt):
            pool.result(future)
        interrupted = time.monotonic() - started
        assert future._condition.acquire(timeout=1)  # the future's lock was left free
        future._condition.release()
    assert interrupted < 1.2, f"Ctrl-C took {interrupted:.2f} s to take effect while a result was awaited"


@pytest.mark.parametrize("chunksize", [1, 3, 50])
def test_a_pool_maps_like_map_and_keeps_only_a_few_chunks_in_flight(chunksize):
    from fifthave_env.runtime import WorkerPool

    pulled = 0

    def numbers(n):
        nonlocal pulled
        for k in range(n):
            pulled += 1
            yield k

    with WorkerPool(2) as pool:
        assert list(pool.map(_square, numbers(200), chunksize=chunksize)) == [k * k for k in range(200)]
        assert list(pool.map(pow, [2, 3], [5, 2], chunksize=chunksize)) == [32, 9]
        assert list(pool.map(_square, [], chunksize=chunksize)) == []
        pulled = 0
        results = pool.map(_square, numbers(10**6), chunksize=chunksize)
        assert next(results) == 0
        assert pulled <= (4 * 2 + 1) * chunksize  # the stdlib's map submits all 10**6 first
        results.close()
        with pytest.raises(ValueError, match="chunksize"):
            pool.map(_square, [1], chunksize=0)


# ---- files: written whole, outputs checked without creating anything ----------------------------------------

def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    from fifthave_env.runtime import atomic_append_csv, atomic_open

    path = tmp_path / "eval.csv"
    atomic_append_csv(path, ["a", "b"], [{"a": 1, "b": 2}])
    atomic_append_csv(path, ["a", "b"], [{"a": 3, "b": 4}])
    assert path.read_text().splitlines() == ["a,b", "1,2", "3,4"]
    with pytest.raises(RuntimeError, match="killed"):
        with atomic_open(path, "w") as f:
            f.write("half a fil")
            raise RuntimeError("killed mid-write")
    assert path.read_text().splitlines() == ["a,b", "1,2", "3,4"] and os.listdir(tmp_path) == ["eval.csv"]


def test_checking_an_output_creates_nothing(tmp_path, blocked):
    from fifthave_env.runtime import OutputError, check_writable, check_writable_directory

    check_writable("--out", str(tmp_path / "a" / "b" / "out.json"))
    check_writable_directory("--run-dir", str(tmp_path / "c" / "d"))
    assert os.listdir(tmp_path) == ["file"]  # only the fixture's file: no directory, no probe left
    with pytest.raises(OutputError, match="--out .* is a directory"):
        check_writable("--out", str(tmp_path))
    with pytest.raises(OutputError, match="is a file, not a directory"):
        check_writable_directory("--run-dir", blocked)


def test_train_run_dir_is_checked_before_anything_starts(blocked, capsys):
    from fifthave.train.run import main

    config = os.path.join(os.path.dirname(__file__), "..", "..", "train", "configs", "ppo_vs_random.json")
    line = _one_line_error(main, [config, "--out", blocked, "--no-progress"], capsys)
    assert "--out" in line and "cannot be written" in line


def test_rllib_removes_the_partial_checkpoints_of_a_killed_writer_only(tmp_path):
    pytest.importorskip("ray")
    from fifthave.train.rllib.train import remove_partial_checkpoints

    checkpoints = tmp_path / "checkpoints"
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    for name in (f".iter_000004.tmp-{dead.pid}", f".iter_000006.tmp-{os.getppid()}", "iter_000002"):
        (checkpoints / name / "algorithm").mkdir(parents=True)
    assert remove_partial_checkpoints(str(tmp_path)) == [str(checkpoints / f".iter_000004.tmp-{dead.pid}")]
    assert sorted(os.listdir(checkpoints)) == [f".iter_000006.tmp-{os.getppid()}", "iter_000002"]
