"""Fifth Avenue as an OpenSpiel Python game, ``fifth_avenue`` (optional dependency ``open_spiel``).

    import pyspiel
    import fifthave_env.openspiel_game  # registers the game
    game = pyspiel.load_game("fifth_avenue", {"players": 4, "board": 5})

A thin adapter over the same engine (:class:`fifthave_env.engine.Game`) and the
same observer (:class:`fifthave_env.observation.Observer`):

- **Parameters**: ``players`` (2-4), ``board`` (5 or 6), ``max_turns`` (R29
  truncation, default 300), ``seed`` (default 0): the k-th call of
  ``new_initial_state()`` deals ``Game(config, seed=game.deal_seed(k))``, an int drawn from ``[seed, k]``.
- **Actions**: our action ids (``engine.actions``), ``num_distinct_actions`` = ``NUM_ACTIONS``.
- **Chance**: ``DETERMINISTIC`` in OpenSpiel's sense: no chance nodes, and ``apply_action`` is a
  function of the state, whose engine draws shuffles and cards from its own generator (part of the
  state, cloned and serialized with it). The randomness is in the deal: the k-th
  ``new_initial_state()`` deals seed ``deal_seed(k)``. (``SAMPLED_STOCHASTIC`` would make OpenSpiel's
  ``serialize_game_and_state`` ask the game for a C++ RNG state, which a Python game cannot give.)
- **Returns**: at the end +1 for each winner (a shared win too), -1 for the
  others, 0 for everyone at truncation (R29) - our ``win_loss`` reward
  (``env_common.end_reward``). General-sum.
- **Observations**: the observation tensor is our observation vector for the
  player in the latest layout (``observation.LATEST``; ``observation.views`` names its parts; the observer's ``dict`` holds
  them); the observation string lists its non-zero entries.
- **Information states**: the string has perfect recall: it is the player's whole history, for
  every step the action taken and a digest of the player's observation after it (every action is
  public, so this is everything the player saw). The tensor is the observation vector: everything
  the player knows about the state now (its cards, what it saw of the others' cards and of the
  piles, the board, the auction), but not perfect recall: two histories that reach the same
  position give the same tensor.
- **Cloning**: ``state.clone()`` (and ``copy.deepcopy``) is OpenSpiel's own, so
  ``history()`` and ``move_number()`` carry over; it counts as no deal. A clone
  made by OpenSpiel's C++ code (its C++ bots) goes through ``new_initial_state()``
  and so moves the deal count on by one.
- **Cost**: a state deals on first use and records the information-state histories
  only when one is read, so a clone takes about 0.1 ms and MCTS rollouts (which
  read none) pay only for the engine's steps.
- **Serialization** (untrusted input): ``state.serialize()`` writes one line of JSON (the history,
  the engine's ``Game.to_dict`` with hidden parts and generator, the information-state histories);
  ``game.deserialize_state(text)`` reads it within size and depth limits and checks every field
  (the game through ``Game.from_dict``), so a crafted text gets a ``ValueError`` and runs nothing.
  ``serialize_game_and_state`` / ``deserialize_game_and_state`` of this module do the same for a
  game and a state in one text. ``pickle`` and ``copy`` of states go through ``serialize()``
  (multiprocessing, Ray); a restored state plays on exactly as the original. OpenSpiel's own
  ``pyspiel.serialize_game_and_state`` and ``random_sim_test(serialize=True)`` work too, but
  ``pyspiel.deserialize_game_and_state`` (C++, the same for every Python game in open_spiel 2.0.2)
  unpickles the ``__dict__=`` line of its input: never give it text you did not write.
- **Resampling**: ``state.resample_from_infostate(player, sampler)`` returns a
  state drawn with :func:`fifthave_env.engine.determinize` from what ``player``
  knows (its seed from ``sampler()``), with the same information-state string
  for ``player``. In a resampled state, the other players' histories are the resampling
  player's (tagged), so a sample holds nothing that player does not know.
- **Bots**: OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``) uses the
  resampler (``set_resampler(resampler)`` on the bot works too, ``resampler(state, player)``);
  :class:`ISMCTSBot` here is the same bot with the ``restart_at`` that ``evaluate_bots`` calls.
  (The C++ ``pyspiel.ISMCTSBot`` crashed on this Python game with open_spiel 2.0.2.)
"""

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from .engine import Game, GameConfig, checks, determinize, safejson
from .engine.actions import NUM_ACTIONS
from .env_common import end_reward
from .observation import LATEST, OBS_SIZES, Observer, views

GAME_NAME = "fifth_avenue"
DEFAULT_PARAMS = {"players": 4, "board": 5, "max_turns": 300, "seed": 0}
MAX_DECISIONS_PER_TURN = 200  # a generous bound for max_game_length (auctions lay cards one by one)
STATE_FORMAT = 1  # of state.serialize()
# OpenSpiel's C++ deserializer (PyState::Deserialize) sets history() and move_number() from a text whose last
# line, "__dict__=<base64 pickle>", it unpickles; deserialize_state hands it this constant, the pickle of an
# empty dict, and never a byte of its input.
_EMPTY_DICT_PICKLE = "gAR9lC4="
_HISTORY_ENTRY = re.compile(r"(-1|[0-9]{1,4}):[0-9a-f]{16}|seen by [0-3]")

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Fifth Avenue",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


class FifthAvenueGame(pyspiel.Game):
    """``pyspiel.load_game("fifth_avenue", {"players": 4, "board": 5})``."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMS, **(params or {})}
        self.config = GameConfig(num_players=int(params["players"]), board=int(params["board"]),
                                 max_turns=int(params["max_turns"]))
        self.seed = checks.integer("seed", params["seed"], 0)
        self._deals = 0
        self.history_observer = Observer(self.config, version=LATEST)  # the states' history digests
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=self.config.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=self.config.max_turns * MAX_DECISIONS_PER_TURN,
        )
        super().__init__(_GAME_TYPE, info, params)

    def deal_seed(self, k: int) -> int:
        """The engine seed of the k-th ``new_initial_state()``."""
        return int(np.random.SeedSequence([self.seed, k]).generate_state(1, np.uint64)[0])

    def new_initial_state(self) -> "FifthAvenueState":
        state = FifthAvenueState(self, deal_seed=self.deal_seed(self._deals))
        self._deals += 1
        return state

    def __reduce__(self):
        # pyspiel would pickle a game as its parameters, without the deal count
        return _restore_game, (self.get_parameters(), self._deals)

    def deserialize_state(self, text: str) -> "FifthAvenueState":
        """The state ``state.serialize()`` wrote: untrusted input, read as JSON within limits and checked
        field by field (the game by ``Game.from_dict``); a ``ValueError`` names what is wrong. Nothing
        in the text is unpickled or looked up by name."""
        return _without_deal(self, lambda: self._read_state(text))

    def _read_state(self, text: str):
        max_length = self.max_game_length()
        data = safejson.loads(text, "a serialized fifth_avenue state", max_depth=8)
        checks.mapping("the serialized state", data, ("fifth_avenue_state", "history", "game", "histories"))
        if not checks.is_int(data["fifth_avenue_state"]) or data["fifth_avenue_state"] != STATE_FORMAT:
            raise checks.InvalidValueError("the serialized state is of format "
                                           f"{checks.shown(data['fifth_avenue_state'])}; this version reads {STATE_FORMAT}")
        n = self.num_players()
        history = checks.sequence("the serialized state's history", data["history"])
        if len(history) > max_length:
            raise checks.InvalidValueError(f"the serialized state's history holds {len(history)} actions; a game "
                                           f"has at most {max_length}")
        pairs = []
        for i, pair in enumerate(history):
            player, action = checks.sequence(f"history[{i}]", pair, 2)
            pairs.append((checks.integer(f"history[{i}][0] (player)", player, 0, n - 1),
                          checks.integer(f"history[{i}][1] (action)", action, 0, NUM_ACTIONS - 1)))
        game = Game.from_dict(data["game"])
        if game.config != self.config:
            theirs, ours = game.config.to_dict(), self.config.to_dict()
            differ = [k for k in ours if theirs[k] != ours[k]]
            raise checks.InvalidValueError(
                "the serialized state is a game with " + ", ".join(f"{k}={theirs[k]!r}" for k in differ)
                + "; this game has " + ", ".join(f"{k}={ours[k]!r}" for k in differ))
        histories = checks.sequence("the serialized state's histories", data["histories"], n)
        for p, entries in enumerate(histories):
            checks.sequence(f"histories[{p}]", entries)
            if len(entries) > max_length + 2:
                raise checks.InvalidValueError(f"histories[{p}] holds {len(entries)} entries; at most {max_length + 2}")
            for i, entry in enumerate(entries):
                if not isinstance(entry, str) or not _HISTORY_ENTRY.fullmatch(entry):
                    raise checks.InvalidValueError(f"histories[{p}][{i}] must be 'ACTION:DIGEST' (16 hex digits) or "
                                                   f"'seen by SEAT', got {checks.shown(entry)}")
        moves = ",".join(f"{player}:{action}" for player, action in pairs)
        state = pyspiel.Game.deserialize_state(
            self, f"history={moves}\nmove_number={len(pairs)}\n__dict__={_EMPTY_DICT_PICKLE}")
        state._engine_game, state._deal_seed = game, None
        state._histories = _Histories(_ImmutableItems(entries) for entries in histories)
        return state

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Mapping[str, Any] | None = None) -> "FifthAvenueObserver":
        if params:
            raise ValueError(f"fifth_avenue observers take no parameters, got {params!r}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and (not iig_obs_type.public_info or
                                         iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("fifth_avenue observes one player's view (public_info=True, private_info=SINGLE_PLAYER)"
                             f"; got {iig_obs_type}")
        return InformationStateObserver(self.config) if perfect_recall else FifthAvenueObserver(self.config)


class _ImmutableItems(list):
    """A list of immutable items (strings, ints): ``deepcopy`` (OpenSpiel's clone) copies the
    list in one go instead of visiting every item."""

    def __deepcopy__(self, memo):
        return _ImmutableItems(self)


class _Histories(list):
    """The players' histories (``_ImmutableItems`` of strings), each copied in one go by ``deepcopy``."""

    def __deepcopy__(self, memo):
        return _Histories(_ImmutableItems(history) for history in self)


class FifthAvenueState(pyspiel.State):
    """A game in progress: the engine's Game plus each player's history (for perfect recall).

    Both are made when first needed. A state from ``new_initial_state()`` deals its game on
    first use: OpenSpiel's clone makes a throwaway initial state and then overwrites its
    attributes, so it never pays for a deal. The histories (a digest of every player's
    observation after every step) are brought up to date only when asked for: an action is
    only noted, with a copy of the game from before the first one not yet recorded, so
    search that never reads an information state (MCTS rollouts) does not pay for them.
    """

    def __init__(self, game: FifthAvenueGame, engine_game: Game | None = None,
                 histories: Iterable[Iterable[str]] | None = None, deal_seed: int | None = None) -> None:
        super().__init__(game)
        self._engine_game = engine_game
        self._deal_seed = deal_seed
        self._histories = _Histories(_ImmutableItems(h) for h in histories) if histories is not None else None
        self._unrecorded = _ImmutableItems()  # actions applied since the histories were brought up to date
        self._replay_from: Game | None = None  # the game before the first of them

    @property
    def game(self) -> Game:
        """The engine's ``Game`` of this state."""
        if self._engine_game is None:
            self._engine_game = Game(self.get_game().config, seed=self._deal_seed)
        return self._engine_game

    @property
    def histories(self) -> "_Histories":
        """Each player's history: the action taken and a digest of the player's observation after it
        (the first entry, action -1, is the observation of the deal)."""
        if self._unrecorded:
            replay, actions = self._replay_from, self._unrecorded
            self._replay_from, self._unrecorded = None, _ImmutableItems()
            if self._histories is None:
                self._histories = self._start_histories(replay)
            for action in actions:  # the engine replays them exactly: the copy has the generator too
                replay.apply(action)  # type: ignore[union-attr]  # set whenever actions are unrecorded
                self._record(self._histories, replay, action)
        elif self._histories is None:
            self._histories = self._start_histories(self.game)
        return self._histories

    def _start_histories(self, g):
        """Histories whose first entry (action -1) is each player's observation of the deal ``g``."""
        histories = _Histories(_ImmutableItems() for _ in range(g.n))
        self._record(histories, g, -1)
        return histories

    def _record(self, histories, g, action) -> None:
        observer = self.get_game().history_observer
        for p in range(g.n):
            digest = hashlib.blake2b(observer.observe(g, p).tobytes(), digest_size=8).hexdigest()
            histories[p].append(f"{action}:{digest}")

    def current_player(self) -> int:
        if self.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.game.actor

    def _legal_actions(self, player):
        return list(self.game.legal_actions()) if player == self.game.actor else []

    def _apply_action(self, action) -> None:
        action = int(action)
        game = self.game
        if not self._unrecorded:
            self._replay_from = game.clone()
        game.apply(action)  # raises for an illegal action, nothing noted
        self._unrecorded.append(action)

    def _action_to_string(self, player, action):
        return self.game.describe(int(action))

    def is_terminal(self) -> bool:
        return self.game.is_over

    def returns(self) -> list[float]:
        g = self.game
        if not g.is_over:
            return [0.0] * g.n
        return [float(end_reward("win_loss", g, p)) for p in range(g.n)]

    def resample_from_infostate(self, player_id: int,
                                probability_sampler: Callable[[], float]) -> "FifthAvenueState":
        """A state drawn from what ``player_id`` knows (``engine.determinize``)."""
        seed = int(probability_sampler() * (1 << 53))
        sample = determinize(self.game, player_id, np.random.default_rng(seed))
        mine = self.histories[player_id]
        others = [f"seen by {player_id}"] + mine
        histories = [list(mine) if p == player_id else list(others) for p in range(self.game.n)]
        return FifthAvenueState(self.get_game(), sample, histories)

    def clone(self) -> "FifthAvenueState":
        """OpenSpiel's own clone, which keeps ``history()`` and ``move_number()``.

        It copies this state's attributes into a throwaway ``new_initial_state()``, which is no deal."""
        return _without_deal(self.get_game(), super().clone)

    def __deepcopy__(self, memo):
        return self.clone()

    def serialize(self) -> str:
        """This state as one line of JSON that ``game.deserialize_state`` reads: OpenSpiel's ``history()``
        (player, action pairs), the engine's game (``Game.to_dict``: hidden parts and generator included)
        and every player's information-state history."""
        history = [[item.player, item.action] for item in self.full_history()]
        return json.dumps({"fifth_avenue_state": STATE_FORMAT, "history": history, "game": self.game.to_dict(),
                           "histories": [list(h) for h in self.histories]}, separators=(",", ":"))

    def __reduce__(self):
        # through serialize(): a pickled state holds JSON text, read back by the checked deserialize_state
        return _restore_state, (self.get_game(), self.serialize())

    def __str__(self) -> str:
        return f"turn {self.game.turn}, actor {self.game.actor}, scores {self.game.scores}"


_SECTIONS = ("[Meta]", "[Game]", "[State]")


def serialize_game_and_state(game: FifthAvenueGame, state: "FifthAvenueState") -> str:
    """``game`` and ``state`` in one text, laid out as OpenSpiel's ``serialize_game_and_state`` lays them
    out, with ``state.serialize()``'s JSON as the state: :func:`deserialize_game_and_state` reads it."""
    return (f"# fifth_avenue game and state (fifthave_env.openspiel_game.serialize_game_and_state)\n"
            f"[Meta]\nVersion: 1\n\n[Game]\n{game.serialize()}\n[State]\n{state.serialize()}\n")


def deserialize_game_and_state(text: str) -> tuple[FifthAvenueGame, "FifthAvenueState"]:
    """``(game, state)`` from :func:`serialize_game_and_state`'s text, which is untrusted input: the game is
    ``fifth_avenue`` with known parameters, the state is read by ``game.deserialize_state``; a
    ``ValueError`` names what is wrong. (``pyspiel.deserialize_game_and_state`` unpickles Python games'
    states: never use it on text from someone else.)"""
    if not isinstance(text, str):
        raise checks.InvalidTypeError(f"a serialized game and state must be a str, got {checks.shown(text)}")
    if len(text) > safejson.MAX_BYTES:
        raise checks.InvalidValueError(f"the serialized game and state holds {len(text):,} characters; at most "
                                       f"{safejson.MAX_BYTES:,} are read")
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line in _SECTIONS:
            if line in sections or _SECTIONS.index(line) != len(sections):
                raise checks.InvalidValueError(f"the serialized game and state has the sections out of order: "
                                               f"{', '.join(_SECTIONS)} expected, once each")
            current = sections[line] = []
        elif current is None:
            raise checks.InvalidValueError("the serialized game and state must start with [Meta]")
        else:
            current.append(line)
    if any(line.startswith("__dict__=") for line in sections.get("[State]", ())):
        raise checks.InvalidValueError("this is pyspiel.serialize_game_and_state's text, whose state is a pickle, "
                                       "which is never read: write it with fifthave_env.openspiel_game."
                                       "serialize_game_and_state")
    if list(sections) != list(_SECTIONS) or len(sections["[Game]"]) != 1 or len(sections["[State]"]) != 1:
        raise checks.InvalidValueError(f"the serialized game and state must hold the sections {', '.join(_SECTIONS)} "
                                       "with one line of game and one of state (serialize_game_and_state writes it)")
    try:
        params = pyspiel.game_parameters_from_string(sections["[Game]"][0])
    except pyspiel.SpielError as error:
        raise checks.InvalidValueError(f"the serialized game is not a game string: {error}") from None
    name = params.pop("name", None)
    if name != GAME_NAME or set(params) - set(DEFAULT_PARAMS):
        raise checks.InvalidValueError(f"the serialized game must be {GAME_NAME} with parameters among "
                                       f"{', '.join(DEFAULT_PARAMS)}, got {checks.shown(sections['[Game]'][0])}")
    for key, value in params.items():
        checks.integer(f"the serialized game's parameter {key}", value)
    game = pyspiel.load_game(GAME_NAME, params)
    return game, game.deserialize_state(sections["[State]"][0])


def _restore_game(params, deals):
    game = FifthAvenueGame(params)
    game._deals = deals
    return game


def _restore_state(game, serialized):
    return _without_deal(game, lambda: game.deserialize_state(serialized))


def _without_deal(game, make):
    """``make()``'s state: OpenSpiel makes it from a throwaway ``new_initial_state()`` (clone,
    deserialize_state), which is no deal, so the game's deal count is put back."""
    deals = game._deals
    state = make()
    game._deals = deals
    return state


class FifthAvenueObserver:
    """Our observation vector (tensor) and its named views (dict); PyObserver interface."""

    def __init__(self, config: GameConfig) -> None:
        self._observer = Observer(config, version=LATEST)
        self.tensor = np.zeros(OBS_SIZES[LATEST], np.float32)
        self.dict = views(self.tensor)

    def set_from(self, state: "FifthAvenueState", player: int) -> None:
        self.tensor[:] = self._observer.observe(state.game, player)

    def string_from(self, state: "FifthAvenueState", player: int) -> str:
        obs = self._observer.observe(state.game, player)
        return " ".join(f"{i}:{obs[i]:g}" for i in np.flatnonzero(obs))


class InformationStateObserver(FifthAvenueObserver):
    """The information state: the string is the player's whole history (perfect recall); the tensor is the
    observation vector, which holds everything the player knows about the state now but is not perfect
    recall (the same cards and board reached by different moves give the same tensor)."""

    def string_from(self, state: "FifthAvenueState", player: int) -> str:
        return "\n".join(state.histories[player])


class ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ``ISMCTSBot`` that ``evaluate_bots`` can run: it searches each move afresh, so
    ``restart_at`` (which ``evaluate_bots`` calls first and ``pyspiel.Bot`` leaves unimplemented) only
    clears its tree."""

    def restart_at(self, state: "FifthAvenueState") -> None:
        self.reset()


pyspiel.register_game(_GAME_TYPE, FifthAvenueGame)
