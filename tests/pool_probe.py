"""Jobs for train/candidate_values.py's process pool, importable by a spawned worker (a test's own
functions are not): each records, in the directory passed as the job's ``student``, that it started, in
which process, and whether that process inherited this module's state from the parent (a fork copies
the parent's memory, a spawned interpreter imports the module afresh). No torch import: a worker starts
in well under a second."""

import os
import time
from types import SimpleNamespace

PARENT_MARK = None  # set in the test's process; a forked worker keeps it, a spawned one has None
GAME_SECONDS = 0.4


def record(directory, seed):
    # written whole, then renamed: a reader polling the directory never sees a record created but still empty
    path = os.path.join(directory, f"game_{seed}")
    with open(path + ".tmp", "w") as f:
        f.write(f"{os.getpid()} {PARENT_MARK}")
    os.replace(path + ".tmp", path)


def labelled_game(owners=()):
    """What ``play_labelled`` returns (a ``LabelledGame``'s fields) for a game without labels."""
    return SimpleNamespace(observations=[], features=[], owners=owners, targets=[], opponents=(), win_share=0.0)


def empty_game(job):
    """A game without labels that records its start."""
    _, seed, directory, *_ = job  # (config, seed, student, searcher, generations, weights)
    record(directory, seed)
    return labelled_game()


def slow_game(job):
    """A game without labels that records its start, then lasts GAME_SECONDS."""
    _, seed, directory, *_ = job  # (config, seed, student, searcher, generations, weights)
    record(directory, seed)
    time.sleep(GAME_SECONDS)
    return labelled_game()


def started(directory):
    """{seed: (pid, the mark the process saw)} of the games started."""
    games = {}
    for name in os.listdir(directory):
        if name.startswith("game_") and not name.endswith(".tmp"):
            with open(os.path.join(directory, name)) as f:
                pid, mark = f.read().split()
            games[int(name[5:])] = (int(pid), mark)
    return games


def ended(pid):
    """The process has ended and been reaped, or is a zombie (ended, not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


class InterruptedWhenRead:
    """A game's decisions that raise KeyboardInterrupt when the parent reads them: Ctrl-C landing while
    the parent handles a finished game's labels (outside the pool's own wait for a result)."""

    def __iter__(self):
        raise KeyboardInterrupt


def interrupting_game(job):
    """The game of seed ``config.interrupt_seed`` returns labels whose reading interrupts the parent at
    once; the others are slow_game."""
    config, seed, directory, *_ = job
    if seed == config.interrupt_seed:
        record(directory, seed)
        return labelled_game(InterruptedWhenRead())
    return slow_game(job)
