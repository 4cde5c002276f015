"""Process and file plumbing the command lines share: outputs checked before the work, atomic writes,
worker processes that die with their parent, and Ctrl-C as a clean exit.

* ``check_writable(name, path)`` / ``check_writable_directory(name, path)``: an output is tried (a file is
  created and removed where it will go, or in the nearest directory that exists) before hours of work, so a
  bad ``--out`` fails first, not last, and nothing is created by the check.
  ``os.access`` is not enough: it says yes to root on a read-only mount.
* ``atomic_write_bytes`` / ``atomic_write_text`` / ``atomic_open`` / ``atomic_append_csv``: write a temporary file beside the target,
  flush and fsync it, then ``os.replace`` it into place; a crash or kill leaves the old file or the whole
  new one, never half of one. The temporary is ``.NAME.tmp-PID`` (``fifthave.train.checkpoint.remove_stale_temporaries``
  removes those a killed writer left).
* ``die_with_parent(parent_pid)``: called first in a worker process. On Linux the kernel kills the worker
  when its parent dies, by any signal, kill -9 included (``prctl(PR_SET_PDEATHSIG)``, as Ray's and
  PyTorch's workers do); elsewhere a thread polls the parent id. Without it, ``ProcessPoolExecutor`` workers
  of a killed tournament waited forever on their task queue.
* ``exit_on_interrupt(program, message)``: Ctrl-C becomes one line on stderr and exit code 130 (128 + SIGINT,
  the shell's convention), not a traceback.
* ``interrupt_deferred()``: Ctrl-C inside the block takes effect when it ends, so that a library call that holds
  a lock is never left half done.
* ``WorkerPool``: a ``ProcessPoolExecutor`` that Ctrl-C cannot hang, whose ``map`` keeps a few chunks in flight;
  ``chunk_size(tasks, workers)`` the chunks for short tasks.
"""

import collections
import concurrent.futures
import contextlib
import itertools
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any

INTERRUPTED_EXIT = 130  # 128 + SIGINT: what a shell reports for a program ended by Ctrl-C
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


class OutputError(ValueError):
    """An output path that cannot be written; the message names the option, the path and why."""


def _try_create_in(name: str, path, directory):
    """Create and remove a file in ``directory`` or, if it does not exist yet, in its nearest existing
    ancestor (then the missing directories can be made there); nothing is left behind."""
    existing = os.path.abspath(directory)
    while not os.path.lexists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise OutputError(f"{name} {path!r} cannot be written: {existing} is a file, not a directory")
    try:
        handle, probe = tempfile.mkstemp(dir=existing, prefix=".write-test-")
        os.close(handle)
        os.remove(probe)
    except OSError as error:
        raise OutputError(f"{name} {path!r} cannot be written: {error.strerror or error} ({existing})") from None


def check_writable(name: str, path: str | os.PathLike[str]) -> None:
    """Raise ``OutputError`` unless a file can be written at ``path`` (missing directories can be made)."""
    if os.path.isdir(path):
        raise OutputError(f"{name} {path!r} is a directory; give a file path")
    _try_create_in(name, path, os.path.dirname(os.path.abspath(path)))


def check_writable_directory(name: str, path: str | os.PathLike[str]) -> None:
    """Raise ``OutputError`` unless ``path`` is, or can be made, a directory that files can be written in."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError(f"{name} {path!r} is a file; give a directory")
    _try_create_in(name, path, path)


def _temporary_path(path):
    directory, base = os.path.split(os.path.abspath(path))
    return directory, os.path.join(directory, f".{base}.tmp-{os.getpid()}")


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike[str], mode: str = "w", **kwargs: Any) -> Iterator[IO[Any]]:
    """``with atomic_open(path, "w") as f``: ``f`` writes a temporary file that replaces ``path`` when the
    block ends without an error (flushed and fsynced first); on an error ``path`` is left as it was."""
    if not mode.startswith("w"):
        raise ValueError(f"atomic_open writes a whole new file: mode must be 'w' or 'wb', got {mode!r}")
    directory, tmp = _temporary_path(path)
    os.makedirs(directory, exist_ok=True)
    try:
        with open(tmp, mode, **kwargs) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    with atomic_open(path, "wb") as f:
        f.write(data)


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the whole new one."""
    with atomic_open(path, "w", newline="") as f:
        f.write(text)


def die_with_parent(parent_pid: int) -> None:
    """End this (worker) process when the process ``parent_pid`` ends, however it ends; Ctrl-C is left to
    the parent (a worker ignores SIGINT, which the terminal sends to the whole process group)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before prctl: this process was handed to init
        os._exit(1)
    if not sys.platform.startswith("linux"):
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()


def _watch_parent(parent_pid, every: float = 1.0) -> None:
    stop = threading.Event()
    while not stop.wait(every):
        if os.getppid() != parent_pid:
            os._exit(1)


@contextlib.contextmanager
def exit_on_interrupt(program: str, message: str | Callable[[], str] | None = None) -> Iterator[None]:
    """Turn Ctrl-C inside the block into ``program: interrupted[; message]`` on stderr and exit code 130.
    ``message`` may be a callable, called then (e.g. to name what was kept)."""
    try:
        yield
    except KeyboardInterrupt:
        detail = message() if callable(message) else message
        print(f"\n{program}: interrupted" + (f"; {detail}" if detail else ""), file=sys.stderr, flush=True)
        raise SystemExit(INTERRUPTED_EXIT) from None


@contextlib.contextmanager
def interrupt_deferred() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) off until the block ends, then deliver it to the handler it would have reached.

    A KeyboardInterrupt can be raised between any two bytecodes, also between a ``with lock:`` taking its lock
    and the block that releases it; ``ProcessPoolExecutor.submit`` takes two such locks, and a Ctrl-C landing
    there left one taken, so that the pool's shutdown waited forever (it did once in CI). Only the main thread
    receives signals in Python; elsewhere, or while SIGINT is ignored, this is a no-op."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or previous in (signal.SIG_IGN, None):
        yield
        return
    received: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)


def _call_chunk(function, chunk):
    return [function(*arguments) for arguments in chunk]


def chunk_size(tasks: int, workers: int, largest: int | None = 8) -> int:
    """Tasks per chunk for ``WorkerPool.map``: four chunks a worker at least, so that the workers end together,
    and at most ``largest`` tasks (None: no cap), so that one submit carries several short ones."""
    even = tasks // (4 * workers)
    return max(1, even if largest is None else min(largest, even))


class WorkerPool(concurrent.futures.ProcessPoolExecutor):
    """A ``ProcessPoolExecutor`` that Ctrl-C cannot hang, whose ``map`` keeps only a few chunks in flight.

    The executor takes its locks in Python code (``with condition:``, ``queue.put``), where a KeyboardInterrupt
    can land after a lock is taken and before the block that releases it: the lock stays taken and the
    executor's shutdown waits forever for its manager thread (it did once in CI, when Ctrl-C met the
    submitting of 100,000 tasks; 3 times in 80 in a loop). Here every call into the executor from the main
    thread runs under ``interrupt_deferred``, and a wait for a result is cut in 0.1 s slices, so that Ctrl-C
    takes effect within 0.1 s, between calls. ``map`` submits ``4 * max_workers`` chunks ahead of the results
    read, not every task at once (as Python 3.14's ``map(buffersize=...)``): no seconds of submitting nor a
    future per task held."""

    _SLICE = 0.1  # seconds: how late Ctrl-C can take effect while a result is awaited

    def __init__(self, max_workers: int | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(max_workers, *args, **kwargs)
        self._chunks_ahead = 4 * (max_workers or os.cpu_count() or 1)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        with interrupt_deferred():
            return super().submit(fn, *args, **kwargs)

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any], timeout: float | None = None,
            chunksize: int = 1) -> Iterator[Any]:
        if timeout is not None:
            raise ValueError("WorkerPool.map takes no timeout")
        if chunksize < 1:
            raise ValueError(f"chunksize must be >= 1, got {chunksize}")
        return self._bounded_map(fn, zip(*iterables), chunksize)

    def result(self, future: concurrent.futures.Future) -> Any:
        """``future.result()``, waited for in slices so that Ctrl-C is never raised inside the future's lock."""
        while True:
            with interrupt_deferred():
                try:
                    return future.result(timeout=self._SLICE)
                except concurrent.futures.TimeoutError:
                    if future.done():  # the task's own TimeoutError
                        raise

    def _bounded_map(self, fn, arguments, chunksize):
        ahead: collections.deque[concurrent.futures.Future] = collections.deque()
        try:
            while chunk := list(itertools.islice(arguments, chunksize)):
                ahead.append(self.submit(_call_chunk, fn, chunk))
                if len(ahead) >= self._chunks_ahead:
                    yield from self.result(ahead.popleft())
            while ahead:
                yield from self.result(ahead.popleft())
        finally:
            with interrupt_deferred():
                for future in ahead:
                    future.cancel()


def atomic_append_csv(path: str | os.PathLike[str], fieldnames: Sequence[str], rows: Iterable[dict]) -> None:
    """Add ``rows`` (dicts) to the CSV file ``path`` (made with a header if missing) by writing the whole new
    file atomically: a kill mid-write never leaves half a row."""
    import csv
    import io

    text = ""
    if os.path.exists(path):
        with open(path, newline="") as f:
            text = f.read()
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fieldnames)
    if not text:
        writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, text + buffer.getvalue())


def process_exists(pid: int) -> bool:
    """Whether a process ``pid`` exists (a stale lock or temp file names its writer's pid)."""
    if pid <= 0:
        return False  # not a process id (0 would signal our own process group)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
