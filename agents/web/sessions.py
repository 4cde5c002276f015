"""The games the web app holds: replays of recorded games and games a person plays against agents.

Each lives in a session keyed by an unguessable id (``secrets.token_urlsafe``), so that several tabs
play or watch at once without meeting. A session's lock serializes its requests (a double click
cannot apply one move twice); sessions do not share state. The store keeps the most recent
``MAX_SESSIONS``; an id it does not know (a server restart, an old tab) is a ``SessionGone`` error
the page shows as such.

Everything a record holds is checked data (``GameRecord.from_dict``, ``Game.from_dict``, each
recorded action replayed as a legal move): nothing in it is executed, and agents are built only
from names the person types, never from a record.
"""

from __future__ import annotations

import collections
import json
import secrets
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from fifthave_env.agent_protocol import LayoutObservations, explain, give_sampler
from fifthave_env.engine import checks, safejson
from fifthave_env.engine.actions import NUM_ACTIONS, IllegalActionError
from fifthave_env.engine.board import LOCATION_NAMES
from fifthave_env.engine.cards import KIND_VALUE, NUM_KINDS
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION, Game, GameConfig
from fifthave_env.replay import GameRecord

from .views import board_layout, explanation_view, legal_view, state_view

MAX_SESSIONS = 64
MAX_RECORD_BYTES = 8 * 1024 * 1024
MAX_AGENT_MOVES = 5000  # agents' moves in one request: a game has about 500 decisions

SessionT = TypeVar("SessionT", "ReplaySession", "PlaySession")


class SessionGone(LookupError):
    """A session id the server does not hold."""


class BadRequest(ValueError):
    """A request the server refuses; the message says what was wrong and what is allowed."""


class Conflict(ValueError):
    """A move that is not legal now (the page was behind the game)."""


class SessionStore:
    """Sessions by id, the ``MAX_SESSIONS`` most recently used ones."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._sessions: collections.OrderedDict[str, ReplaySession | PlaySession] = collections.OrderedDict()
        self._lock = threading.Lock()

    def add(self, session: ReplaySession | PlaySession) -> str:
        key = secrets.token_urlsafe(18)
        with self._lock:
            self._sessions[key] = session
            while len(self._sessions) > self.limit:
                self._sessions.popitem(last=False)
        return key

    def get(self, key: Any, kind: type[SessionT]) -> SessionT:
        with self._lock:
            session = self._sessions.get(key) if isinstance(key, str) else None
            if session is None or not isinstance(session, kind):
                raise SessionGone("this game is not on the server any more (the server was restarted, or the game "
                                  "was closed to make room for newer ones): open the record or start a game again")
            self._sessions.move_to_end(key)
        return session


def parse_view(text: Any, num_players: int) -> int | None:
    """``"all"`` (the omniscient view) -> None, a seat number -> that seat."""
    if text in (None, "", "all"):
        return None
    if isinstance(text, str) and text.isdigit() and int(text) < num_players:
        return int(text)
    raise BadRequest(f"view must be 'all' or a seat from 0 to {num_players - 1}, got {text!r}")


def auction_event(before: tuple[int, int, list[int]], game: Game, actor: int,
                  action: int) -> dict[str, Any] | None:
    """The timeline's note on this move when an auction opened or ended with it, else None.

    ``before`` is ``(decision, auction location, the winning bid paid)`` before the move; the facts are the engine's."""
    decision, loc, paid = before
    if decision == BUILD_DECISION:
        bid = sum(KIND_VALUE[k] * count for k, count in enumerate(paid))
        text = f"{LOCATION_NAMES[loc]}: seat {actor} won with {bid} and chose {game.describe(action)}"
        if game.decision == BID_DECISION:
            text += f"; auction in {LOCATION_NAMES[game.auc_loc]}"
        return {"kind": "won", "location": LOCATION_NAMES[loc], "seat": actor, "bid": bid, "text": text}
    if game.decision == BID_DECISION and (decision != BID_DECISION or game.auc_loc != loc):
        opened = {"kind": "opened", "location": LOCATION_NAMES[game.auc_loc],
                  "text": f"auction in {LOCATION_NAMES[game.auc_loc]}"}
        if decision == BID_DECISION and game.has_alea:
            opened["text"] = f"{LOCATION_NAMES[loc]}: won by Alea; " + opened["text"]
        return opened
    if decision == BID_DECISION and game.decision not in (BID_DECISION, BUILD_DECISION):
        who = "won by Alea" if game.has_alea else "no winner"
        return {"kind": "ended", "location": LOCATION_NAMES[loc], "text": f"{LOCATION_NAMES[loc]}: {who}"}
    return None


class ReplaySession:
    """A recorded game, replayed once on load (each action checked) with every state kept."""

    def __init__(self, record: GameRecord, title: str = "recorded game") -> None:
        try:
            start = Game.from_dict(record.initial_state)
        except ValueError as error:
            raise BadRequest(f"the record's starting state is not a valid saved game: {error}") from None
        self.record = record
        self.title = title
        self.config = start.config
        self.states = [start.clone()]
        self.steps: list[dict[str, Any]] = []  # per action: actor, turn, name, auction ended (or None)
        game = start
        for index, action in enumerate(record.actions):
            actor, before = game.actor, (game.decision, game.auc_loc, list(game.auc_last_bid))
            name = game.describe(action)
            try:
                game.apply(action)
            except IllegalActionError as error:
                raise BadRequest(f"recorded action #{index + 1} ({action}) is not legal in the replayed game, so "
                                 f"the record does not belong to its starting state: {error}") from None
            self.steps.append({"actor": actor, "action": action, "name": name, "turn": game.turn,
                               "event": auction_event(before, game, actor, action), "scores": list(game.scores)})
            self.states.append(game.clone())
        self.lock = threading.Lock()

    def summary(self) -> dict[str, Any]:
        final = self.states[-1]
        return {"kind": "replay", "title": self.title, "layout": board_layout(self.config),
                "agents": self.record.agents, "steps": self.steps, "start_scores": list(self.states[0].scores),
                "final": {"scores": list(final.scores), "winners": list(final.winners), "over": final.is_over,
                          "truncated": final.truncated}}

    def frame(self, index: Any, seat: int | None) -> dict[str, Any]:
        """The state after ``index`` actions from ``seat``'s view (None: omniscient) and the decision
        taken there: its legal actions, the action, and what the agent reported, each only when the
        view may see it (the actor's own view or the omniscient one)."""
        if not checks.is_int(index) or not 0 <= index < len(self.states):
            raise BadRequest(f"step must be from 0 to {len(self.states) - 1}, got {index!r}")
        game = self.states[index]
        frame: dict[str, Any] = {"step": index, "state": state_view(game, seat)}
        if index < len(self.record.actions):
            action = self.record.actions[index]
            decision: dict[str, Any] = {"actor": game.actor, "action": action, "name": game.describe(action)}
            if seat is None or seat == game.actor:
                decision["legal"] = legal_view(game)
                reports = self.record.explanations
                decision["explanation"] = explanation_view(game, reports[index]) if reports else None
            frame["decision"] = decision
        return frame


def parse_json(data: str | bytes | bytearray) -> Any:
    """Untrusted JSON text or bytes as data, read within the project's limits (``engine.safejson``);
    ``BadRequest`` with a clear message."""
    try:
        return safejson.loads(data, "the file", max_bytes=MAX_RECORD_BYTES)
    except safejson.JSONInputError as error:
        raise BadRequest(str(error)) from None


def is_tournament(data: Any) -> bool:
    """Whether ``data`` is a tournament result (``TournamentResult.save``): settings and per-game outcomes."""
    return isinstance(data, dict) and "settings" in data and "games" in data and "initial_state" not in data


def tournament_games(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The games of a tournament result, for the page to pick one: index, seats' labels, scores."""
    settings, games = _tournament_parts(data)
    labels = settings["labels"]
    listed = []
    for record in games:
        if isinstance(record, dict) and checks.is_int(record.get("game")) and isinstance(record.get("entries"), list):
            entries = record["entries"]
            names = [labels[e] if checks.is_int(e) and 0 <= e < len(labels) else "?" for e in entries]
            listed.append({"game": record["game"], "agents": names, "scores": record.get("scores"),
                           "turns": record.get("turns")})
    return listed[:5000]


def _tournament_parts(data):
    settings, games = data.get("settings"), data.get("games")
    if not isinstance(settings, dict) or not isinstance(games, list):
        raise BadRequest("a tournament result holds 'settings' (a dict) and 'games' (a list)")
    labels = settings.get("labels")
    if not (isinstance(labels, list) and labels and all(isinstance(x, str) and len(x) < 200 for x in labels)):
        raise BadRequest("the tournament's settings lack its agents' labels")
    return settings, games


def tournament_game_record(data: dict[str, Any], index: Any) -> GameRecord:
    """Game ``index`` of a tournament result: its moves when the result kept them (``--keep-moves``), else
    played again from its seeds (the same deal, seats and agent generators: ``fifthave.agents.tournament.play_game``).
    Only scripted agents and ``search`` are played again (a record never makes the server load a model from
    a path), and the replayed scores must equal the recorded ones."""
    from ..registry import AGENT_FACTORIES
    from ..search import search_factory
    from ..tournament import _Setup, play_game

    settings, games = _tournament_parts(data)
    labels = settings["labels"]
    found = [g for g in games if isinstance(g, dict) and g.get("game") == index]
    if not checks.is_int(index) or not found:
        raise BadRequest(f"the tournament has no game {index!r}")
    outcome = found[0]
    if "record" in outcome:
        try:
            return GameRecord.from_dict(outcome["record"])
        except (ValueError, TypeError, RecursionError) as error:
            raise BadRequest(f"game {index}'s moves are not a game record: {error}") from None
    try:
        n = checks.choice("settings.num_players", settings.get("num_players"), (2, 3, 4))
        board = checks.choice("settings.board", settings.get("board"), (5, 6))
        seed = checks.integer("settings.seed", settings.get("seed"), 0)
        max_turns = checks.integer("settings.max_turns", settings.get("max_turns"), 1, 1_000_000)
        seat_orders = checks.choice("settings.seat_orders", settings.get("seat_orders", "cyclic"),
                                    ("cyclic", "all", "sample"))
        per_deal_orders = checks.integer("settings.orders_per_deal", settings.get("orders_per_deal", n), 1, 24)
    except ValueError as error:
        raise BadRequest(f"the tournament's settings are not valid: {error}") from None
    if len(labels) != n:
        raise BadRequest(f"the tournament's settings name {len(labels)} agents for {n} players")
    factories = []
    for label in labels:
        if label in AGENT_FACTORIES:
            factories.append(AGENT_FACTORIES[label])
        elif label == "search" or label.startswith("search:"):
            try:
                factories.append(search_factory(label))
            except ValueError as error:
                raise BadRequest(f"cannot replay agent {label!r}: {error}") from None
        else:
            raise BadRequest(f"this tournament seats {label!r}: the viewer replays tournament games of scripted agents "
                             "and search only (it never loads a model named by a file); run the tournament with "
                             "--keep-moves, or record such games with fifthave_env.replay.record_game")
    played = play_game(_Setup(labels, factories, n, board, max_turns, seed, seat_orders, per_deal_orders,
                              keep_moves=True), index)
    if played["scores"] != outcome.get("scores"):
        raise BadRequest(f"game {index} played again ends with the scores {played['scores']}, not the recorded "
                         f"{outcome.get('scores')}: the agents or the rules changed since the tournament was run")
    return GameRecord.from_dict(played["record"])


def load_record(data: str | bytes | bytearray) -> GameRecord:
    """A ``GameRecord`` from untrusted JSON text or bytes; ``BadRequest`` with a clear message."""
    parsed = parse_json(data)
    if is_tournament(parsed):
        raise BadRequest("this is a tournament result (fifthave tournament --out): pick one of its games to replay")
    try:
        return GameRecord.from_dict(parsed)
    except (ValueError, TypeError, RecursionError) as error:
        raise BadRequest(f"not a game record: {error}") from None


class PlaySession:
    """A game between a person at ``human`` and agents at the other seats.

    The agents move when it is their turn (``advance``); the person's moves come through ``play``,
    which refuses a move that is not legal now (the page was behind) and leaves the game untouched."""

    def __init__(self, human: Any, agent_names: Any, num_players: Any = 4, board: Any = 5, seed: Any = None,
                 make_agent: Callable[[str], Any] | None = None) -> None:
        # the arguments are the page's untrusted JSON values: each is checked here (BadRequest)
        if num_players not in (2, 3, 4):
            raise BadRequest(f"players must be 2, 3 or 4, got {num_players!r}")
        if board not in (5, 6):
            raise BadRequest(f"board must be 5 or 6 plots per district, got {board!r}")
        if not (checks.is_int(human) and 0 <= human < num_players):
            raise BadRequest(f"your seat must be from 0 to {num_players - 1}, got {human!r}")
        if not isinstance(agent_names, list) or len(agent_names) != num_players - 1 or not all(
                isinstance(n, str) and n.strip() for n in agent_names):
            raise BadRequest(f"name one agent for each of the {num_players - 1} other seats")
        if seed is not None and not (checks.is_int(seed) and 0 <= seed < 2 ** 63):
            raise BadRequest(f"seed must be empty or a whole number from 0, got {seed!r}")
        self.config = GameConfig(num_players=num_players, board=board)
        self.human = human
        names = iter(n.strip() for n in agent_names)
        self.names = ["you" if s == human else next(names) for s in range(num_players)]
        game_seed, *agent_seeds = np.random.SeedSequence(seed).spawn(1 + num_players)
        self.game = Game(self.config, rng=np.random.default_rng(game_seed))
        self.agents: dict[int, Any] = {}
        for seat, name in enumerate(self.names):
            if seat == human:
                continue
            try:
                agent = make_agent(name) if make_agent is not None else _agent_by_name(name)
                agent.reset(self.config, seat, np.random.default_rng(agent_seeds[seat]))
            except Exception as error:  # an unknown name, a model that does not load or fit this game
                raise BadRequest(f"seat {seat}: cannot seat agent {name!r}: {error}") from None
            give_sampler(agent, self.game, seat)
            self.agents[seat] = agent
        self.record = GameRecord.start(self.game)
        self.record.agents = self.names
        self._explanations: list[Any] = []
        self.record.explanations = self._explanations
        self.observations = LayoutObservations(self.config, self.agents, env_layout=None)
        self.log: list[dict[str, Any]] = []  # every move: seat, name
        self.lock = threading.Lock()
        self.advance()

    def _apply(self, action, report=None):
        seat = self.game.actor
        name = self.game.describe(action)
        self.game.apply(action)
        self.record.actions.append(action)
        self._explanations.append(report)
        self.log.append({"seat": seat, "name": name, "turn": self.game.turn})

    def advance(self) -> None:
        """Let the agents move until it is the person's turn or the game is over."""
        for _ in range(MAX_AGENT_MOVES):
            game = self.game
            if game.is_over or game.actor == self.human:
                return
            seat = game.actor
            agent = self.agents[seat]
            action = agent.act(self.observations.observe(game, seat), game.action_mask())
            action = int(action)
            self._apply(action, explain(agent))
        raise RuntimeError(f"the agents made {MAX_AGENT_MOVES} moves in a row without reaching your turn")

    def play(self, action: Any, step: Any) -> None:
        """The person's ``action`` at move number ``step`` (the page's count of moves so far)."""
        if not checks.is_int(action) or isinstance(action, bool):
            raise BadRequest(f"a move is an action id (a whole number), got {action!r}")
        if step != len(self.record.actions):
            raise Conflict("the game has moved on since this page was drawn; it now shows the current position")
        if self.game.is_over:
            raise Conflict("the game is over; no more moves")
        if self.game.actor != self.human:
            raise Conflict("it is not your turn")
        if action not in self.game.legal_actions():
            shown = self.game.describe(action) if 0 <= action < NUM_ACTIONS else action
            raise Conflict(f"that move ({shown}) is not legal now; choose one of the moves offered")
        self._apply(action)
        self.advance()

    def view(self) -> dict[str, Any]:
        game = self.game
        mine = game.actor == self.human and not game.is_over
        return {"kind": "play", "layout": board_layout(self.config), "agents": self.names, "seat": self.human,
                "step": len(self.record.actions), "state": state_view(game, self.human),
                "legal": legal_view(game) if mine else [], "log": self.log[-60:], "moves": len(self.log)}

    def record_data(self) -> dict[str, Any]:
        if not self.game.is_over:
            raise Conflict("the record can be downloaded when the game is over (it holds the agents' hidden cards)")
        return self.record.to_dict()


def _agent_by_name(name: str) -> Any:
    """A ``PlaySession`` seat's agent when no ``make_agent`` is given: ``fifthave.agents.tournament.agent_factory``'s
    names, as the web server's ``make_agent``."""
    from ..tournament import agent_factory

    return agent_factory(name)()
