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
- **Chance**: ``SAMPLED_STOCHASTIC``: shuffles and draws happen inside the
  engine with the state's own generator (cloned with the state), as in the
  other adapters; there are no chance nodes.
- **Returns**: at the end +1 for each winner (a shared win too), -1 for the
  others, 0 for everyone at truncation (R29) - our ``win_loss`` reward
  (``env_common.end_reward``). General-sum.
- **Observations**: the observation tensor is our observation vector for the
  player in the latest layout (``observation.LATEST``; ``observation.views`` names its parts; the observer's ``dict`` holds
  them); the observation string lists its non-zero entries. The
  information-state string (perfect recall) is the player's whole history:
  for every step, the action taken and a digest of the player's observation
  after it. Every action is public, so this is everything the player saw.
- **Cloning**: ``state.clone()`` (and ``copy.deepcopy``) is OpenSpiel's own, so
  ``history()`` and ``move_number()`` carry over; it counts as no deal. A clone
  made by OpenSpiel's C++ code (its C++ bots) goes through ``new_initial_state()``
  and so moves the deal count on by one.
- **Cost**: a state deals on first use and records the information-state histories
  only when one is read, so a clone takes about 0.1 ms and MCTS rollouts (which
  read none) pay only for the engine's steps.
- **Pickling**: ``pickle`` and ``copy`` work on games and states (Python multiprocessing, Ray), and
  ``state.serialize()`` / ``game.deserialize_state(text)`` round-trip a state; a restored state
  plays on exactly as the original (the engine's generator is part of it). OpenSpiel's
  ``pyspiel.serialize_game_and_state`` does not: it asks the game for a C++ RNG state, which
  OpenSpiel's Python games cannot give ("GetRNGState unimplemented").
- **Resampling**: ``state.resample_from_infostate(player, sampler)`` returns a
  state drawn with :func:`fifthave_env.engine.determinize` from what ``player``
  knows (its seed from ``sampler()``), with the same information-state string
  for ``player``. OpenSpiel's Python ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``)
  uses it; ``set_resampler(resampler)`` on the bot works too (``resampler(state, player)``).
  (The C++ ``pyspiel.ISMCTSBot`` crashed on this Python game with open_spiel 2.0.2.)
  In a resampled state, the other players' histories are the resampling player's
  (tagged), so a sample holds nothing that player does not know.
"""

import hashlib

import numpy as np
import pyspiel

from .engine import Game, GameConfig, checks, determinize
from .engine.actions import NUM_ACTIONS
from .env_common import end_reward
from .observation import LATEST, OBS_SIZES, Observer, views

GAME_NAME = "fifth_avenue"
DEFAULT_PARAMS = {"players": 4, "board": 5, "max_turns": 300, "seed": 0}
MAX_DECISIONS_PER_TURN = 200  # a generous bound for max_game_length (auctions lay cards one by one)

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Fifth Avenue",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


class FifthAvenueGame(pyspiel.Game):
    """``pyspiel.load_game("fifth_avenue", {"players": 4, "board": 5})``."""

    def __init__(self, params=None):
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

    def deal_seed(self, k):
        """The engine seed of the k-th ``new_initial_state()``."""
        return int(np.random.SeedSequence([self.seed, k]).generate_state(1, np.uint64)[0])

    def new_initial_state(self):
        state = FifthAvenueState(self, deal_seed=self.deal_seed(self._deals))
        self._deals += 1
        return state

    def __reduce__(self):
        # pyspiel pickles a game with its C++ RNG state, which a Python game cannot give ("GetRNGState
        # unimplemented"); this game's only such state is its deal count
        return _restore_game, (self.get_parameters(), self._deals)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"fifth_avenue observers take no parameters, got {params!r}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        if iig_obs_type is not None and (not iig_obs_type.public_info or
                                         iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("fifth_avenue observes one player's view (public_info=True, private_info=SINGLE_PLAYER)"
                             f"; got {iig_obs_type}")
        return InformationStateObserver() if perfect_recall else FifthAvenueObserver(self.config)


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

    def __init__(self, game, engine_game=None, histories=None, deal_seed=None):
        super().__init__(game)
        self._engine_game = engine_game
        self._deal_seed = deal_seed
        self._histories = _Histories(_ImmutableItems(h) for h in histories) if histories is not None else None
        self._unrecorded = _ImmutableItems()  # actions applied since the histories were brought up to date
        self._replay_from = None  # the game before the first of them

    @property
    def game(self):
        """The engine's ``Game`` of this state."""
        if self._engine_game is None:
            self._engine_game = Game(self.get_game().config, seed=self._deal_seed)
        return self._engine_game

    @property
    def histories(self):
        """Each player's history: the action taken and a digest of the player's observation after it
        (the first entry, action -1, is the observation of the deal)."""
        if self._unrecorded:
            replay, actions = self._replay_from, self._unrecorded
            self._replay_from, self._unrecorded = None, _ImmutableItems()
            if self._histories is None:
                self._histories = self._start_histories(replay)
            for action in actions:  # the engine replays them exactly: the copy has the generator too
                replay.apply(action)
                self._record(self._histories, replay, action)
        elif self._histories is None:
            self._histories = self._start_histories(self.game)
        return self._histories

    def _start_histories(self, g):
        """Histories whose first entry (action -1) is each player's observation of the deal ``g``."""
        histories = _Histories(_ImmutableItems() for _ in range(g.n))
        self._record(histories, g, -1)
        return histories

    def _record(self, histories, g, action):
        observer = self.get_game().history_observer
        for p in range(g.n):
            digest = hashlib.blake2b(observer.observe(g, p).tobytes(), digest_size=8).hexdigest()
            histories[p].append(f"{action}:{digest}")

    def current_player(self):
        if self.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.game.actor

    def _legal_actions(self, player):
        return list(self.game.legal_actions()) if player == self.game.actor else []

    def _apply_action(self, action):
        action = int(action)
        game = self.game
        if not self._unrecorded:
            self._replay_from = game.clone()
        game.apply(action)  # raises for an illegal action, nothing noted
        self._unrecorded.append(action)

    def _action_to_string(self, player, action):
        return self.game.describe(int(action))

    def is_terminal(self):
        return self.game.is_over

    def returns(self):
        g = self.game
        if not g.is_over:
            return [0.0] * g.n
        return [float(end_reward("win_loss", g, p)) for p in range(g.n)]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state drawn from what ``player_id`` knows (``engine.determinize``)."""
        seed = int(probability_sampler() * (1 << 53))
        sample = determinize(self.game, player_id, np.random.default_rng(seed))
        mine = self.histories[player_id]
        others = [f"seen by {player_id}"] + mine
        histories = [list(mine) if p == player_id else list(others) for p in range(self.game.n)]
        return FifthAvenueState(self.get_game(), sample, histories)

    def clone(self):
        """OpenSpiel's own clone, which keeps ``history()`` and ``move_number()``.

        It copies this state's attributes into a throwaway ``new_initial_state()``, which is no deal."""
        return _without_deal(self.get_game(), super().clone)

    def __deepcopy__(self, memo):
        return self.clone()

    def __reduce__(self):
        # pyspiel pickles a state through its game's RNG state too (see FifthAvenueGame.__reduce__);
        # OpenSpiel's own serialize() holds everything else, the engine's generator included
        return _restore_state, (self.get_game(), self.serialize())

    def __str__(self):
        return f"turn {self.game.turn}, actor {self.game.actor}, scores {self.game.scores}"


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

    def __init__(self, config):
        self._observer = Observer(config, version=LATEST)
        self.tensor = np.zeros(OBS_SIZES[LATEST], np.float32)
        self.dict = views(self.tensor)

    def set_from(self, state, player):
        self.tensor[:] = self._observer.observe(state.game, player)

    def string_from(self, state, player):
        obs = self._observer.observe(state.game, player)
        return " ".join(f"{i}:{obs[i]:g}" for i in np.flatnonzero(obs))


class InformationStateObserver:
    """Perfect recall: the player's history of (action, observation digest); strings only."""

    def __init__(self):
        self.tensor = None
        self.dict = {}

    def set_from(self, state, player):
        raise NotImplementedError("fifth_avenue has no information-state tensor (provides_information_state_tensor "
                                  "is False): use information_state_string, or observation_tensor")

    def string_from(self, state, player):
        return "\n".join(state.histories[player])


pyspiel.register_game(_GAME_TYPE, FifthAvenueGame)
