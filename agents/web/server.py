"""The web app: a JSON API over ``sessions`` and the page in ``static/``, served by Starlette on uvicorn.

Starlette + uvicorn rather than the standard library's ``http.server``: a maintained ASGI toolkit
with routing, request-size-safe body reading, static files and an in-process test client
(``starlette.testclient``) in a few hundred kilobytes, and uvicorn's server handles keep-alive,
concurrent tabs and clean shutdown; plain ``def`` endpoints run in Starlette's thread pool, so an
agent thinking in one tab does not stall another. Flask would do too, but needs a WSGI server
for the same and brings Jinja and Werkzeug for pages we do not template.

Routes (every error is ``{"error": message}`` with a 4xx status; the page shows the message):

- ``GET /``: the page; ``/static/...``: its script and style (no build step, no network).
- ``POST /api/replay`` (body: a record file): a replay session (a tournament result: the list of its
  games; ``?game=N`` replays game N from its seeds); ``GET /api/replay/{id}`` its
  summary (board, timeline, scores); ``GET /api/replay/{id}/frame/{step}?view=all|SEAT``.
- ``GET /api/agents``: the agent names offered. ``POST /api/play`` (``{"seat", "agents", "players",
  "board", "seed"}``): a game against agents; ``GET /api/play/{id}``; ``POST /api/play/{id}/move``
  (``{"action", "step"}``); ``GET /api/play/{id}/record`` once it is over.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Callable, Sequence

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..base import Agent
from ..registry import AGENT_FACTORIES, PARAMETERIZED_AGENT_NAMES
from .sessions import (
    MAX_RECORD_BYTES,
    BadRequest,
    Conflict,
    PlaySession,
    ReplaySession,
    SessionGone,
    SessionStore,
    is_tournament,
    load_record,
    parse_json,
    parse_view,
    tournament_game_record,
    tournament_games,
)

STATIC = os.path.join(os.path.dirname(__file__), "static")
DEFAULT_PORT = 8737
MAX_JSON_BYTES = 64 * 1024


def _error(status, message):
    return JSONResponse({"error": str(message)}, status_code=status)


def _handled(endpoint):
    """Turn the sessions' errors into JSON answers the page shows; anything else is a 500 with one line."""
    @functools.wraps(endpoint)
    async def wrapper(request):
        try:
            return await endpoint(request)
        except SessionGone as error:
            return _error(404, error)
        except Conflict as error:
            return _error(409, error)
        except BadRequest as error:
            return _error(400, error)
        except HTTPException:
            raise
        except Exception as error:  # an agent that crashed: the server stays up and says so
            print(f"fifthave web: {type(error).__name__}: {error}", file=sys.stderr)
            return _error(500, f"the server failed: {type(error).__name__}: {error}")
    return wrapper


async def _body(request, limit):
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        raise BadRequest(f"the upload is too large; at most {limit} bytes are read")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BadRequest(f"the upload is too large; at most {limit} bytes are read")
    return body


def _require_type(request, expected):
    """Refuse a body that is not ``expected``: another web site's page can post a form (text/plain,
    urlencoded, multipart) to this local server, but not JSON or octet-stream without a preflight
    this server does not answer."""
    given = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if given != expected:
        raise BadRequest(f"send the request as {expected}, not {given or 'no content type'}")


async def _json(request):
    _require_type(request, "application/json")
    body = await _body(request, MAX_JSON_BYTES)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        raise BadRequest("the request is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest("the request must be a JSON object")
    return data


def _run(function, *args):
    """Run game code (agents may think for seconds) in the thread pool, off the event loop."""
    from starlette.concurrency import run_in_threadpool

    return run_in_threadpool(function, *args)


def make_agent(name: str) -> Agent:
    """An agent by the name a person typed (``fifthave.agents.tournament.agent_factory``'s names)."""
    from ..tournament import agent_factory

    return agent_factory(name)()


def create_app(agent_maker: Callable[[str], Agent] = make_agent,
               allowed_hosts: Sequence[str] | None = None) -> Starlette:
    """The Starlette app; ``agent_maker(name)`` builds the agents of played games. ``allowed_hosts``: the
    Host headers answered (None: any); a server on the loopback answers only its own names, so that a
    web page cannot reach it through a DNS name rebound to 127.0.0.1."""
    store = SessionStore()

    async def index(request):
        return FileResponse(os.path.join(STATIC, "index.html"), headers={"Cache-Control": "no-store"})

    @_handled
    async def new_replay(request):
        _require_type(request, "application/octet-stream")
        body = await _body(request, MAX_RECORD_BYTES)
        title = request.query_params.get("name", "recorded game")[:120]
        game = request.query_params.get("game")

        def build():
            data = parse_json(body)
            if not is_tournament(data):
                return ReplaySession(load_record(body), title)
            if game is None:  # the page lists the games to pick from
                return tournament_games(data)
            if not game.isdigit():
                raise BadRequest(f"game must be a game number of the tournament, got {game!r}")
            return ReplaySession(tournament_game_record(data, int(game)), f"{title}, game {game}")
        session = await _run(build)
        if isinstance(session, list):
            return JSONResponse({"kind": "tournament", "title": title, "games": session})
        key = store.add(session)
        return JSONResponse({"id": key, **session.summary()})

    @_handled
    async def replay_summary(request):
        session = store.get(request.path_params["key"], ReplaySession)
        return JSONResponse({"id": request.path_params["key"], **session.summary()})

    @_handled
    async def replay_frame(request):
        session = store.get(request.path_params["key"], ReplaySession)
        step = request.path_params["step"]
        seat = parse_view(request.query_params.get("view"), session.config.num_players)
        if not step.isdigit():
            raise BadRequest(f"step must be a whole number, got {step!r}")
        return JSONResponse(session.frame(int(step), seat))

    async def agent_names(request):
        return JSONResponse({"agents": sorted(AGENT_FACTORIES) + ["search"],
                             "parameterized": list(PARAMETERIZED_AGENT_NAMES),
                             "models": _committed_models()})

    @_handled
    async def new_game(request):
        data = await _json(request)

        def build():
            return PlaySession(data.get("seat", 0), data.get("agents"), data.get("players", 4), data.get("board", 5),
                               data.get("seed"), agent_maker)
        session = await _run(build)
        key = store.add(session)
        return JSONResponse({"id": key, **session.view()})

    @_handled
    async def game_view(request):
        session = store.get(request.path_params["key"], PlaySession)

        def view():
            with session.lock:
                return session.view()
        return JSONResponse({"id": request.path_params["key"], **await _run(view)})

    @_handled
    async def game_move(request):
        session = store.get(request.path_params["key"], PlaySession)
        data = await _json(request)

        def move():
            with session.lock:
                session.play(data.get("action"), data.get("step"))
                return session.view()
        view = await _run(move)
        return JSONResponse({"id": request.path_params["key"], **view})

    @_handled
    async def game_record(request):
        session = store.get(request.path_params["key"], PlaySession)

        def record():
            with session.lock:
                return session.record_data()
        data = await _run(record)
        return Response(json.dumps(data), media_type="application/json",
                        headers={"Content-Disposition": 'attachment; filename="fifthave-game.json"'})

    routes = [
        Route("/", index),
        Route("/api/replay", new_replay, methods=["POST"]),
        Route("/api/replay/{key}", replay_summary),
        Route("/api/replay/{key}/frame/{step}", replay_frame),
        Route("/api/agents", agent_names),
        Route("/api/play", new_game, methods=["POST"]),
        Route("/api/play/{key}", game_view),
        Route("/api/play/{key}/move", game_move, methods=["POST"]),
        Route("/api/play/{key}/record", game_record),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    return Starlette(routes=routes, middleware=middleware)


def _committed_models():
    """The committed learned models (``fifthave.agents.models``) whose files this checkout holds, by name."""
    from .. import models

    return [model.name for model in models.available() if os.path.isfile(model.file)]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="fifthave serve",
        description="Watch recorded games and play against the agents in your browser (a local web app).")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: only this machine can connect)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    args = parser.parse_args(argv)
    import uvicorn

    loopback = args.host in ("127.0.0.1", "localhost", "::1")
    hosts = ["127.0.0.1", "localhost", "[::1]"] if loopback else None
    config = uvicorn.Config(create_app(allowed_hosts=hosts), host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)
    _announce(server, args.host)
    server.run()


def _announce(server, host):
    """Print the address once the server listens (the port may have been picked by the system)."""
    startup = server.startup

    async def startup_and_print(sockets=None):
        await startup(sockets=sockets)
        for listener in server.servers:
            for sock in listener.sockets:
                port = sock.getsockname()[1]
                print(f"Fifth Avenue web app: http://{host}:{port}/  (Ctrl+C stops it)", flush=True)
                return
    server.startup = startup_and_print


if __name__ == "__main__":
    main()
