"""Ray for tournaments and RLlib training: start a local Ray or join a cluster; tournament games as tasks.

``run_tournament(..., backend="ray", address=...)`` (console: ``fifthave tournament
--backend ray [--address HOST:PORT]``) plays its games as Ray tasks of a few
deals each, wherever the cluster has a free CPU, and returns the same records as
the local backend (each game depends only on the tournament seed and its index),
plus the Ray node that played it (``record["node"]``). Agent-file paths in
agent names (``PATH.npz``, ``policy:PATH``, ``rllib:PATH``) must exist on every node.

Needs the ``distributed`` extra.

``require_ray()`` imports Ray or explains how to install it; ``init_ray(address)``
starts a local Ray (``address=None``) or joins the cluster whose head listens at
``address`` (``HOST:PORT`` as printed by ``ray start --head``, or ``"auto"`` for
the cluster this machine belongs to). An address that does not answer fails
within seconds instead of Ray's long connection retries.

A local Ray listens on 127.0.0.1 only. Ray's own default binds its services (GCS, raylet, the metrics
endpoint) on every interface with no authentication unless token mode is on, so anyone who reaches this
machine could run code in it; a local Ray needs no other machine. To spread games or training over
machines, start a cluster yourself (``ray start --head``, ideally on a private network with token
authentication, https://docs.ray.io/en/latest/ray-security/token-auth.html) and pass ``--address``.

Token authentication, as checked with Ray 2.60: ``ray start --head`` on a clean home directory prints
"Token authentication is disabled" and writes no token; it turns token mode on when ``~/.ray/auth_token``
exists, which an earlier ``ray.init()`` of a local Ray writes. A driver sends the token only in token mode
(``require_ray``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR
INSTALL_HINT = ('Ray is not installed: install the distributed extra with pip install "fifthave[distributed]" '
                "(or run bash scripts/setup.sh, which installs every extra)")


def require_ray() -> ModuleType:
    """The ``ray`` module, or an ImportError that says how to install it.

    A ``ray start`` head uses token authentication when ``~/.ray/auth_token`` exists where it starts (see the
    module docstring), and a driver sends the token only in token mode, which Ray reads at import: with a
    token in ``~/.ray/auth_token``, no ``RAY_AUTH_MODE`` set and Ray not imported yet, token mode is chosen
    here (as ``ray.init`` does for a new local Ray anyway).
    """
    if ("ray" not in sys.modules and "RAY_AUTH_MODE" not in os.environ
            and os.path.exists(os.path.expanduser("~/.ray/auth_token"))):
        os.environ["RAY_AUTH_MODE"] = "token"
    try:
        import ray
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    return ray


def check_reachable(address: str | None, timeout: float = 5.0) -> None:
    """Raise ConnectionError unless something listens at ``HOST:PORT`` (``"auto"`` is left to Ray)."""
    if address in (None, "auto", "local") or address.startswith("ray://"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--address must be HOST:PORT of a Ray head (e.g. 10.0.0.5:6379, as printed by "
                         f"ray start --head) or 'auto', got {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as error:
        raise ConnectionError(
            f"no Ray cluster answers at {address} ({error}); start one there with ray start --head "
            f"--port={port}, check the host and port it printed and that the port is open, or leave out "
            f"--address to start a local Ray") from None


def init_ray(address: str | None = None, num_cpus: int | None = None, quiet: bool = True) -> ModuleType:
    """Start a local Ray (``address=None``; ``num_cpus`` caps it) or join the cluster at ``address``.

    Does nothing if Ray is already initialized in this process.
    """
    ray = require_ray()
    check_reachable(address)
    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = dict(include_dashboard=False, logging_level="ERROR" if quiet else "INFO", log_to_driver=not quiet)
    if address is not None:
        if "PYTHONHASHSEED" in os.environ:  # a cluster's workers do not inherit this process's environment
            kwargs["runtime_env"] = {"env_vars": {"PYTHONHASHSEED": os.environ["PYTHONHASHSEED"]}}
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError) as error:
            raise ConnectionError(
                f"could not join the Ray cluster at {address} ({error}); if its head uses token authentication "
                f"(ray start turns it on when the head's ~/.ray/auth_token exists), copy that file to this "
                f"machine and set RAY_AUTH_MODE=token before Python starts") from None
        return ray
    for attempt in range(3):
        try:
            with _loopback_only(ray):
                ray.init(address="local", num_cpus=num_cpus, **kwargs)  # a new one, even beside a `ray start` cluster
            return ray
        except Exception as error:  # Ray gives a local node 30 s to start; a busy machine can miss that
            ray.shutdown()
            if "timed out during startup" not in str(error) or attempt == 2:
                first_line = (str(error).strip().splitlines() or [""])[0]
                raise ConnectionError(f"could not start a local Ray ({type(error).__name__}: {first_line}); "
                                      f"its logs are under /tmp/ray/session_latest/logs") from error
    raise AssertionError("unreachable: the last attempt returns or raises")  # for the type checker


@contextlib.contextmanager
def _loopback_only(ray):
    """Inside the block, a new local Ray takes 127.0.0.1 as its node address, and its services bind there and
    nowhere else. Ray does this on macOS and Windows (single-machine mode: ``ray_constants.ENABLE_RAY_CLUSTER``
    False, read when Ray asks for the node's address); its processes read the same from the environment
    variable when they import Ray. Both are put back after, so that this process can still join a cluster."""
    constants = ray._private.ray_constants
    saved_flag, saved_env = constants.ENABLE_RAY_CLUSTER, os.environ.get(LOOPBACK_ENV)
    constants.ENABLE_RAY_CLUSTER = False
    os.environ[LOOPBACK_ENV] = "0"
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(LOOPBACK_ENV, None)
        else:
            os.environ[LOOPBACK_ENV] = saved_env


def _play_chunk(play_game, setup, indices):
    import ray

    node = ray.get_runtime_context().get_node_id()[:8]
    return [dict(play_game(setup, index), node=node) for index in indices]


def play_games(play_game: Callable[[Any, int], dict[str, Any]], setup: Any, games: int,
               address: str | None = None) -> Iterator[dict[str, Any]]:
    """Yield the records of games ``0 .. games-1`` of ``setup`` (an ``fifthave.agents.tournament._Setup``), each played
    by ``play_game(setup, index)`` (passed in, so this module need not import the tournament), as Ray
    tasks finish them (in no fixed order; each record holds its ``"game"`` index)."""
    ray = init_ray(address)
    remote = ray.remote(num_cpus=1)(_play_chunk)
    setup_ref = ray.put(setup)
    chunk = 2 * setup.num_players  # two deals per task: small enough to spread, big enough to amortize
    pending = [remote.remote(play_game, setup_ref, list(range(start, min(start + chunk, games))))
               for start in range(0, games, chunk)]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield from ray.get(done[0])


def node_summary(ray: ModuleType) -> list[str]:
    """One line per alive node of the cluster: address, CPUs, and whether it is the head."""
    lines = []
    for node in ray.nodes():
        if node.get("Alive"):
            lines.append(f"node {node['NodeID'][:8]} {node['NodeManagerAddress']}:{node['NodeManagerPort']} "
                         f"CPUs {node['Resources'].get('CPU', 0):g}"
                         f"{' (head)' if node['Resources'].get('node:__internal_head__') else ''}")
    return lines
