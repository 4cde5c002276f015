"""Fifth Avenue as a single-agent Gymnasium environment (``FifthAvenue-v1``, ``FifthAvenue-v0``).

One seat is the learner; the other seats are played inside ``step()`` by
opponent agents (the protocol of ``fifthave.agents.base``: ``reset(config, seat, rng)``,
``act(observation, action_mask)``) until the learner is asked again or the game
ends. Importing ``fifthave_env`` registers the id, so::

    env = gymnasium.make("FifthAvenue-v1", num_players=4, board=5, opponents=[...])

    from sb3_contrib import MaskablePPO        # masks come from env.action_masks()
    model = MaskablePPO("MlpPolicy", env).learn(10_000)

``train/`` (``fifthave.train.train``) builds full runs on this env: vectorised envs,
evaluation, checkpoints, self-play.

## Spaces

- Observation: the learner's own view, exactly the ``"observation"`` of the AEC env
  of the same version (see ``observation.VIEWS``): ``Box(0, 1000, (1409,), float32)``
  for ``FifthAvenue-v1`` (``observation_layout=1``, with the derived views of
  ``fifth_avenue_v1``), ``(1176,)`` for ``FifthAvenue-v0`` (``observation_layout=0``,
  the default of ``FifthAvenueEnv`` itself, so that existing training code and
  checkpoints keep their input size).
- Action: ``Discrete(147)`` (the table in ``engine.actions``).
- ``env.action_masks()`` is the learner's legal-action mask (bool, 147), the
  method sb3-contrib's ``MaskablePPO`` calls, also through ``SubprocVecEnv``
  (``env_method("action_masks")``); ``info["action_mask"]`` holds the same mask.
  Through ``gymnasium.make``'s wrappers call ``env.get_wrapper_attr("action_masks")()``
  (or ``env.unwrapped.action_masks()``); sb3-contrib does so itself.

## Opponents

``opponents`` is ``None`` (every other seat plays uniformly random legal
moves), a list of ``num_players - 1`` agents for the seats after the learner
clockwise, or a callable ``(rng, count) -> list of agents`` called at every
reset (e.g. to draw from a pool of frozen policies). The env plays its own deep
copies of a list's agents (``InvalidValueError`` if one cannot be copied: pass a
callable then), so that envs made from one list, as single-process vector envs
(``DummyVecEnv``, ``gymnasium.make_vec(..., vectorization_mode="sync")``) make
them, share no agent; the objects passed are never played. An opponent with
``needs_observation = False`` (the default ``RandomAgent``) gets ``None`` instead
of an observation, which is then never built. ``set_opponents`` swaps
them between games. Opponents see only their own observation and mask; their
generators are drawn from the env's ``np_random``, so a seeded reset replays
the same game as long as the opponents are deterministic given their generator.

Opponents are seated as in a tournament (``fifthave_env.agent_protocol``): each
gets its observation in the layout it reads (its ``observation_layout``, 0 if it declares none),
whatever the learner's, so an agent trained on ``FifthAvenue-v0`` also plays in
``FifthAvenue-v1`` and vice versa; a searching agent (``attach_sampler``, e.g.
``search:N``) gets its seat's sampler of the live game.

## Rewards

The learner's own reward, ``reward`` as in ``fifth_avenue_v0``:
``"win_loss"`` (+1 win / shared win, -1 loss, 0 at truncation; at the end),
``"win"`` (+1 win / shared win, 0 otherwise; at the end),
``"vp_margin"`` (own VP minus the best other seat's VP; at the end), or
``"score_delta"`` (own VP gained since the learner's previous decision, the
opponents' moves and final scoring included). The terminal reward always
reaches the learner, even when the game ends on an opponent's move.

## Illegal actions

Two kinds, kept apart on purpose:

- What is no element of the action space (a float such as ``4.9`` or
  ``np.float32(4)``, a str, a bool, ``None``, a list, a shape-(1,) array, NaN, an
  int outside ``[0, 147)``) is a bug in the caller, as in ``fifth_avenue_v0``:
  ``step`` raises ``IllegalActionError`` (``ActionTypeError``, also a ``TypeError``,
  for a wrong type) saying what is allowed, and changes nothing; the episode goes on.
  Accepted: Python and numpy integers and 0-d integer arrays (what ``predict`` returns).
- An id of the action space that the mask forbids ends the episode
  (``terminated=True``) with reward ``illegal_action_reward`` (default -1.0, a loss)
  and ``info["illegal_action"]`` (the reason) set; the game is left as it was, and
  ``step`` needs a ``reset`` next. This keeps unmasked algorithms and
  ``gymnasium.utils.env_checker.check_env`` running; masked ones never see it.

An opponent that raises, or returns an illegal or malformed action, stops the
game: ``step`` (or ``reset``) raises ``OpponentError`` naming the opponent and its
seat (never that seat's legal actions), and every later ``step`` raises until the
next ``reset``.

Bad arguments (``num_players=4.0``, ``reward="wins"``, ``seed=-1``, ``options=[]``,
...) raise ``engine.checks.InvalidValueError`` (``InvalidTypeError`` for a wrong
type) naming the argument, the value and what is allowed.

## Learner seat

``learner_seat``: a seat number, or ``None`` to draw it at random each game.
``info["learner_seat"]`` tells which; at the end ``info`` also has
``"scores"``, ``"winners"`` (seat numbers), ``"truncated"`` and ``"opponents"`` (the
opponents' agent names, by seat).

## Rendering

``render_mode``: ``"ansi"`` (text), ``"rgb_array"`` (the board picture), ``"human"``
(that picture in a window), as in ``fifth_avenue_v0``.

## Version History

- v1: the observation adds derived views (``fifth_avenue_v1``): ``observation_layout=1``.
- v0: first release: ``observation_layout=0``.
"""

import copy
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .agent_protocol import LayoutObservations, act, give_sampler, observation_layout
from .engine import checks
from .engine.actions import NUM_ACTIONS, ActionLike, action_name, as_action_id
from .engine.game import Game, IllegalActionError
from .env_common import RENDER_MODES, EnvUsageError, OpponentError, Renderer, end_reward, game_config
from .observation import LAYOUTS, OBS_HIGH, OBS_SIZES, Observer
from .random_agent import RandomAgent


class FifthAvenueEnv(gym.Env):
    """One learner seat against opponent agents; see the module docstring."""

    metadata = {"render_modes": RENDER_MODES, "render_fps": 2}

    def __init__(self, num_players: int = 4, board: int = 5, max_turns: int = 300, reward: str = "win_loss",
                 learner_seat: int | None = None, opponents: Sequence[Any] | Callable[..., list] | None = None,
                 illegal_action_reward: float = -1.0, layout: Sequence[Sequence[int | str]] | None = None,
                 skyscrapers_per_color: int = 18, random_start: bool = False, render_mode: str | None = None,
                 observation_layout: int = 1) -> None:
        self.config = game_config(reward, render_mode, num_players=num_players, board=board, layout=layout,
                                  max_turns=max_turns, random_start=random_start,
                                  skyscrapers_per_color=skyscrapers_per_color)
        n = self.config.num_players
        if learner_seat is not None:
            learner_seat = checks.integer("learner_seat (None draws it each game)", learner_seat, 0, n - 1)
        self.fixed_learner_seat = learner_seat
        self.reward_kind = reward
        self.illegal_action_reward = checks.real("illegal_action_reward", illegal_action_reward)
        self.render_mode = render_mode
        self._renderer = Renderer(render_mode)
        self._observer = Observer(self.config, version=observation_layout)  # raises for an unknown version
        # layout -> Observer: opponents get the layout they read, whatever the learner's (agent_protocol)
        self._observers = {observation_layout: self._observer}
        self.observation_space = spaces.Box(0.0, OBS_HIGH, (OBS_SIZES[observation_layout],), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.set_opponents(opponents)
        self.game: Game = None  # type: ignore[assignment]  # a Game from reset() on
        self.learner_seat: int = None  # type: ignore[assignment]  # likewise
        self._opponents: dict[int, object] = {}  # seat -> agent for the current game
        self._opponent_observations: LayoutObservations = None  # type: ignore[assignment]  # from reset() on
        self._score_before = 0
        self._episode_over = False
        self._broken = None  # why the env needs a reset after an opponent failed

    def set_opponents(self, opponents: Sequence[Any] | Callable[..., list] | None) -> None:
        """Opponents from the next reset on: None (uniform random), a list of agents (the env plays its own
        copies of them), or ``(rng, count) -> list``."""
        if opponents is not None and not callable(opponents):
            opponents = checks.sequence("opponents (None, a list of agents or a callable (rng, count) -> list)",
                                        opponents)
            self._check_opponents("opponents", opponents)
            opponents = [self._own_copy(agent) for agent in opponents]
        self.opponent_spec = opponents

    @staticmethod
    def _own_copy(agent):
        """A deep copy of a listed opponent: envs made from one list (vector envs) would otherwise
        re-seed and re-seat the same objects at each of their resets, and no seed would replay a game."""
        try:
            return copy.deepcopy(agent)
        except Exception as err:
            raise checks.InvalidValueError(
                f"opponent {agent!r} cannot be copied ({type(err).__name__}: {err}); the env plays its own copy "
                "of each listed agent, so that envs made from one list share none: pass a callable "
                "(rng, count) -> list of agents that builds them instead") from err

    def _check_opponents(self, name: str, opponents):
        count = self.config.num_players - 1
        if len(opponents) != count:
            raise checks.InvalidValueError(f"{name} must hold {count} agents (one per other seat) for "
                                           f"{self.config.num_players} players, got {len(opponents)}")
        for agent in opponents:
            if not (callable(getattr(agent, "act", None)) and callable(getattr(agent, "reset", None))):
                raise checks.InvalidTypeError(f"each agent of {name} needs reset(config, seat, rng) and "
                                              f"act(observation, action_mask) (see fifthave.agents.base.Agent); got {agent!r}")
            if observation_layout(agent) not in LAYOUTS:
                raise checks.InvalidValueError(f"each agent of {name} must read an observation_layout of "
                                               f"{sorted(LAYOUTS)} (default 0), got {observation_layout(agent)!r} "
                                               f"from {agent!r}")
        if len({id(agent) for agent in opponents}) != count:
            raise checks.InvalidValueError(
                f"{name} must be distinct agent objects (each seat keeps its own state and generator); "
                "pass a sampler (rng, count) -> list to build them per game")

    def _draw_opponents(self):
        count = self.config.num_players - 1
        spec = self.opponent_spec
        if spec is None:
            return [RandomAgent() for _ in range(count)]
        if not callable(spec):
            return spec
        agents = spec(self.np_random, count)
        agents = checks.sequence("the list returned by the opponents callable", agents)
        self._check_opponents("the list returned by the opponents callable", agents)
        return agents

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """A new game; ``seed``: None or an int >= 0; ``options``: None or a dict (nothing read)."""
        seed = checks.seed("seed", seed)
        checks.options("options", options)
        self._start_game(seed)
        self._play_opponents()
        return self._observe(), self._info()

    def _start_game(self, seed: int | None) -> None:
        """A new game with its learner seat and opponents, before anyone moves."""
        super().reset(seed=seed)
        rng = self.np_random
        n = self.config.num_players
        game = Game(self.config, rng=np.random.default_rng(rng.integers(2**63)))
        learner_seat = int(rng.integers(n)) if self.fixed_learner_seat is None else self.fixed_learner_seat
        others = [(learner_seat + k) % n for k in range(1, n)]
        opponents = dict(zip(others, self._draw_opponents()))  # may refuse: nothing is replaced before
        for seat, agent in opponents.items():
            try:
                agent.reset(self.config, seat, np.random.default_rng(rng.integers(2**63)))
            except Exception as err:
                raise OpponentError(f"opponent {self._opponent_name(agent)} at seat {seat} raised "
                                    f"{type(err).__name__} in reset: {err}") from err
            give_sampler(agent, game, seat)  # as the tournament does: a search agent searches this game
        self._opponent_observations = LayoutObservations(self.config, opponents, self._observer.version,
                                                         self._observers)
        self.game, self.learner_seat, self._opponents = game, learner_seat, opponents
        self._score_before = 0  # the learner's VP at its previous decision (score_delta)
        self._episode_over = False
        self._broken = None

    def _play_opponents(self, defer=None):
        """Let the opponents move until the learner is asked or the game ends.

        An opponent that raises or chooses an illegal action breaks the env (``step`` refuses
        until ``reset``): the game cannot go on without that seat's move. The error names the
        opponent and its seat, never that seat's legal actions (the learner must not see them).

        ``defer`` (agent -> bool): stop before the move of an opponent it picks and return that
        seat, for a caller that answers several games' opponents at once (``fifthave.train.vec_env``
        batches policy opponents) and plays the move with ``_play_opponent_action``; else None."""
        game, observations = self.game, self._opponent_observations
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        while not game.is_over and game.actor != self.learner_seat:
            seat = game.actor
            agent = self._opponents[seat]
            if defer is not None and defer(agent):
                return seat
            # a scripted agent reads a seat view, one that reads only the mask gets no observation
            try:
                action = act(agent, game, seat, observations, mask)
            except Exception as err:
                self._fail(f"opponent {self._opponent_name(agent)} at seat {seat} raised "
                           f"{type(err).__name__}: {err}", err)
            self._play_opponent_action(seat, action)
        return None

    def _play_opponent_action(self, seat, action) -> None:
        agent = self._opponents[seat]
        try:
            if action.__class__ is not int or not 0 <= action < NUM_ACTIONS:
                action = as_action_id(action)
        except IllegalActionError as err:
            self._fail(f"opponent {self._opponent_name(agent)} at seat {seat} returned no action id: {err}")
        try:
            self.game.apply(action)
        except IllegalActionError:
            self._fail(f"opponent {self._opponent_name(agent)} at seat {seat} chose action {action}, "
                       f"which is not legal for it now")

    @staticmethod
    def _opponent_name(agent):
        return repr(getattr(agent, "name", type(agent).__name__))

    def _fail(self, message, cause=None):
        self._broken = message
        raise OpponentError(f"{message}; the game cannot go on: call reset()") from cause

    def _observe(self):
        return self._observer.observe(self.game, self.learner_seat)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (all False once the game is over)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        if self.game is not None and self.game.actor == self.learner_seat:
            mask[self.game.legal_actions()] = True
        return mask

    def _info(self):
        info = {"learner_seat": self.learner_seat, "action_mask": self.action_masks()}
        game = self.game
        if game.is_over:
            info.update(scores=list(game.scores), winners=list(game.winners), truncated=game.truncated,
                        opponents=[getattr(self._opponents[seat], "name", "?") for seat in sorted(self._opponents)])
        return info

    def step(self, action: ActionLike) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        illegal = self._play_learner_action(action)
        if illegal is not None:
            return illegal
        self._play_opponents()
        return self._step_result()

    def _play_learner_action(self, action):
        """Play the learner's move; the whole step's result if it was illegal (the episode ends), else None."""
        game = self.game
        if game is None:
            raise EnvUsageError("call reset() before step()")
        if self._broken is not None:
            raise EnvUsageError(f"the env is broken since {self._broken}: call reset() to start a new game")
        if self._episode_over:
            raise EnvUsageError("the episode is over: call reset() to start a new one")
        if action.__class__ is not int or not 0 <= action < NUM_ACTIONS:
            action = as_action_id(action)  # raises for what is no action id of the space; nothing changed
        try:
            game.apply(action)
        except IllegalActionError as err:
            self._episode_over = True
            info = self._info()
            info["illegal_action"] = str(err)
            return self._observe(), self.illegal_action_reward, True, False, info
        return None

    def _step_result(self):
        """What ``step`` returns once the opponents have moved."""
        game = self.game
        seat = self.learner_seat
        reward = 0.0
        if self.reward_kind == "score_delta":
            reward = float(game.scores[seat] - self._score_before)
            self._score_before = game.scores[seat]
        elif game.is_over:
            reward = float(end_reward(self.reward_kind, game, seat))
        self._episode_over = game.is_over
        terminated = game.is_over and not game.truncated
        return self._observe(), reward, terminated, game.truncated, self._info()

    def action_name(self, action: int) -> str:
        """A readable name for an action id on this game's board."""
        return action_name(action, self.game.plot_color if self.game is not None else None)

    def render(self) -> str | np.ndarray | None:
        """The text (``"ansi"``) or the picture (``"rgb_array"``) of the game; ``"human"`` shows the picture."""
        return self._renderer.render(self.game)

    def close(self) -> None:
        self._renderer.close()
