"""train/candidate_values.py's process pool by its documented behaviour, with real processes and jobs
that only record themselves (tests/pool_probe.py): workers are spawned, never forked, and an interrupt
of the parent alone (not its workers: `kill -INT PID`, not Ctrl-C in a terminal) starts no queued game
and leaves no worker running once `collect` has raised. The mutation run's guards of `collect`'s pool
(docs/mutation.md)."""

import os
import signal
import sys
import threading
import time
import types

import numpy as np
import pytest

import fifthave.train.candidate_values as cv
import pool_probe

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

CONFIG = types.SimpleNamespace(workers=2, observation_layout=0, effects=False)  # what collect reads (pickles)


def test_the_pools_workers_are_spawned_not_forked(tmp_path, monkeypatch):
    # a fork after torch has run (DAgger collects after the first fit) can hang on a lock one of torch's
    # threads held; a spawned worker starts a fresh interpreter and inherits no memory of the parent
    monkeypatch.setattr(pool_probe, "PARENT_MARK", "inherited")
    monkeypatch.setattr(cv, "_play_labelled", pool_probe.empty_game)
    data = cv.collect(CONFIG, 4, np.random.default_rng(0), log=lambda *a, **k: None, student=str(tmp_path))
    assert [len(a) for a in data] == [0, 0, 0, 0]
    games = pool_probe.started(tmp_path)
    assert len(games) == 4
    assert {mark for _, mark in games.values()} == {"None"}, "a worker saw the parent's memory: forked"
    assert os.getpid() not in {pid for pid, _ in games.values()}


def test_an_interrupt_of_the_parent_alone_starts_no_queued_game_and_ends_every_worker(tmp_path, monkeypatch):
    games = 20  # 2 workers, 0.4 s a game: all of them would take 4 s after the interrupt
    monkeypatch.setattr(cv, "_play_labelled", pool_probe.slow_game)

    def interrupt_once_games_run():
        deadline = time.monotonic() + 60  # the workers' start (spawn) on a loaded machine
        while len(pool_probe.started(tmp_path)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGINT)  # the parent only: its workers keep running

    # Python's own SIGINT handler: the one a user's process has (mutmut's fork server ignores SIGINT, and its
    # test processes inherit that: the interrupt would then be lost and every game played)
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupter = threading.Thread(target=interrupt_once_games_run)
    interrupter.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            cv.collect(CONFIG, games, np.random.default_rng(0), log=lambda *a, **k: None, student=str(tmp_path))
    finally:
        interrupter.join()
        signal.signal(signal.SIGINT, handler)
    started = pool_probe.started(tmp_path)
    workers = {pid for pid, _ in started.values()}
    assert all(pool_probe.ended(pid) for pid in workers), "collect raised with its workers still running"
    time.sleep(2 * pool_probe.GAME_SECONDS)
    assert pool_probe.started(tmp_path) == started, "a game started after collect raised"
    # the games running and those already handed to the workers' queue (a few) end; the rest are cancelled
    assert len(started) <= games // 2


def test_an_interrupt_while_the_parent_reads_a_games_labels_starts_no_queued_game(tmp_path, monkeypatch):
    # outside the pool's own wait for a result (which cancels the chunk's futures itself), only the
    # shutdown's cancel_futures keeps the queued games from all being played before collect raises
    games = 20
    seeds = [int(s) for s in np.random.default_rng(0).integers(2**63, size=games)]  # collect's draw
    config = types.SimpleNamespace(**vars(CONFIG), interrupt_seed=seeds[0])
    monkeypatch.setattr(cv, "_play_labelled", pool_probe.interrupting_game)
    with pytest.raises(KeyboardInterrupt):
        cv.collect(config, games, np.random.default_rng(0), log=lambda *a, **k: None, student=str(tmp_path))
    started = pool_probe.started(tmp_path)
    assert all(pool_probe.ended(pid) for pid, _ in started.values()), "collect raised with its workers running"
    assert len(started) <= games // 2
