"""Fifth Avenue as a PettingZoo AEC environment.

## Description

*Fifth Avenue* (Wilko Manz, alea / Rio Grande 2004) for 2, 3 or 4 players on the
5-plot or the 6-plot board. On a turn a player takes 3 skyscrapers (A), places
a shop (B), draws a black card and moves a commissioner (C) or scores a
district (D), then takes colored cards or black cards and moves a commissioner.
A commissioner that returns from Central Park to City Hall starts auctions in
the districts it visited and in Central Park; bidding cards win the right to
build skyscrapers, which score by the different shops beside them. With two
players the dummy bidder Alea joins every auction. The rules follow the
published rulebooks as settled by the rulings R1-R39 (``docs/RULINGS.md``;
``docs/rules.md`` says where each applies).

Every decision of the game is one step of the agent asked: the starting
placements, the choice of A-D, each shop tile and plot, each colored pile,
each commissioner move, each card added to a bid, confirming or passing, and
how many skyscrapers to build (or a building stop). Nothing is decided for a
player, not even a forced choice; the mask always tells which ids are legal.

## Action Space

``Discrete(147)`` for every configuration; see ``fifthave_env.actions`` for the
table and ``action_name(id)`` for readable names:

- 0-3: choose action A, B, C, D
- 4-45: place a starting skyscraper on plot ``id-4`` (plot = district*6 + ring position)
- 46-49: take a shop of type boutique/jeweler/gallery/perfume from the active group
- 50-91: put the taken shop on plot ``id-50``
- 92-96: draw the top card of the gray/brown/violet/orange/green pile
- 97-114: move commissioner ``(id-97)//9`` (white, beige) to location ``(id-97)%9`` (districts 0-6,
  Central Park 7, City Hall 8)
- 115-121: score district ``id-115``
- 122-139: add a card of kind ``id-122`` (color*3 + value index; black is color 5) to the bid
- 140 / 141: confirm the bid / pass
- 142-145 / 146: build 0-3 skyscrapers / declare a building stop

## Observation Space

``Dict(observation=Box(0, 1000, (1176,), float32), action_mask=Box(0, 1, (147,), int8))``,
the same for every configuration (seats and plots are zero-padded). The vector
is relative to the observing seat (its own seat first, then clockwise; Alea
last) and holds only what that seat may know (R30): the board, commissioners,
markers, shop row and box, the top and size of each pile and the cards known
to lie under them, every player's score, reserve, supply, hand size and
per-color hand counts, the cards known exactly in each hand (R31), its own
hand, and the whole auction on the table. ``fifthave_env.observation.VIEWS``
documents every feature; ``observation.views(vector)`` splits a vector into
named arrays. The mask is all zero for agents not asked; the agent asked always
has at least one legal action.

## Rewards

Chosen with ``reward``:

- ``"win_loss"`` (default): at the end of the game +1 to each winner (most VP,
  then most cards, R28; a shared win gives +1 to every seat sharing it), -1 to
  the others. A truncated game (``max_turns``) gives 0 to everyone.
- ``"win"``: +1 to each winner at the end, 0 to the others and to everyone at
  truncation. A loss is worth 0 however late it comes, so with a discount below 1
  a learner gains nothing by dragging out a lost game (``win_loss``'s -1 shrinks
  with every decision added); the ``rllib`` training method uses it by default.
- ``"vp_margin"``: at the end (also at truncation), own VP minus the best
  other seat's VP.
- ``"score_delta"``: after every step, the VP each seat gained in that step
  (final scoring included); over a whole game it adds up to the final score.

## Episode End

Termination: the 12th shop from the row is placed, or the second building stop
is scored (R27); final scoring follows. Truncation: ``max_turns`` turns have
been played (R29; no final scoring, R38). Then every agent must step ``None``.

## Arguments

``fifthave_env.fifth_avenue_v0.env(num_players=4, board=5, max_turns=300,
reward="win_loss", layout=None, random_start=False, skyscrapers_per_color=18,
render_mode=None)``

- ``num_players``: 2, 3 or 4.
- ``board``: plots per district, 5 or 6.
- ``max_turns``: turns (one player's A-D each) before truncation.
- ``reward``: ``"win_loss"``, ``"win"``, ``"vp_margin"`` or ``"score_delta"``.
- ``layout``: the ring order of plot colors per district (R7), 7 lists of color
  names (``None`` for the 6-plot board's shop plot); default: the rulings' placeholder.
- ``random_start``: draw the starting seat instead of seat 0.
- ``skyscrapers_per_color``: 18 (R3), or 21 for the French edition.
- ``render_mode``: ``"ansi"`` (a text picture), ``"rgb_array"`` (a ``(720, 1280, 3)`` uint8
  picture of the board, ``fifthave_env.render_image``) or ``"human"`` (that picture in a
  matplotlib window; where no window can open it warns once and shows nothing). The hand shown is
  the seat asked.

``env()`` checks every call itself (illegal ids, what is no action id at all such as
``4.9`` or ``"4"``, wrong agent via ``act``, stepping after the end or after every
agent stepped out) and raises ``IllegalActionError`` naming the action and the legal
ones, leaving the game as it was; it needs none of PettingZoo's generic wrappers.
``observe``, ``step`` and ``last`` before ``reset``, and ``last`` after every agent
stepped out, raise ``EnvUsageError``.
Bad arguments, including ``reset``'s ``seed`` (None or an int >= 0) and ``options``
(None or a dict), raise ``engine.checks.InvalidValueError`` (``InvalidTypeError``, also
a ``TypeError``, for a wrong type) naming the argument, the value and what is allowed.
``raw_env`` is the same class.

## Version History

- v1 (``fifth_avenue_v1``): the observation adds derived views (1409 values); all else as here.
- v0: first release.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # pettingzoo ships no type information

from .engine import checks
from .engine.actions import NUM_ACTIONS, ActionLike, action_name
from .engine.game import Game, IllegalActionError
from .env_common import RENDER_MODES, EnvUsageError, Renderer, end_reward, game_config
from .observation import OBS_HIGH, OBS_SIZES, Observer

ENV_VERSION = 0


class raw_env(AECEnv):
    metadata = {
        "name": "fifth_avenue_v0",
        "render_modes": RENDER_MODES,
        "is_parallelizable": False,
        "render_fps": 2,
    }
    observation_layout = ENV_VERSION  # the observation layout (observation.LAYOUTS); fifth_avenue_v1 sets 1

    def __init__(self, num_players: int = 4, board: int = 5, max_turns: int = 300, reward: str = "win_loss",
                 layout: Sequence[Sequence[int | str]] | None = None, random_start: bool = False,
                 skyscrapers_per_color: int = 18, render_mode: str | None = None) -> None:
        super().__init__()
        self.config = game_config(reward, render_mode, num_players=num_players, board=board, layout=layout,
                                  max_turns=max_turns, random_start=random_start,
                                  skyscrapers_per_color=skyscrapers_per_color)
        self.reward_kind = reward
        self.render_mode = render_mode
        self._renderer = Renderer(render_mode)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._agent_seat = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZES[self.observation_layout],), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._observer = Observer(self.config, version=self.observation_layout)
        self._rng: np.random.Generator | None = None
        self.game: Game = None  # type: ignore[assignment]  # a Game from reset() on
        self.agents: list[str] = []  # until reset

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; a seed (None or an int >= 0) makes it reproducible, no seed continues the
        env's generator. ``options`` (None or a dict) holds nothing this env reads."""
        seed = checks.seed("seed", seed)
        checks.options("options", options)
        if seed is not None or self._rng is None:
            self._rng = np.random.default_rng(seed)
        self.game = Game(self.config, rng=np.random.default_rng(self._rng.integers(2**63)))
        self.agents = self.possible_agents[:]
        self.rewards: dict[str, float] = {a: 0 for a in self.agents}
        self._cumulative_rewards: dict[str, float] = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.actor]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self.game
        seat = self._agent_seat.get(agent)
        if seat is None or game is None:  # one test on the hot path for both mistakes
            self._require_game()
            raise checks.InvalidValueError(f"agent must be one of {', '.join(self.possible_agents)}, got {agent!r}")
        mask = game.action_mask() if seat == game.actor else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": self._observer.observe(game, seat), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``; ``EnvUsageError`` before ``reset`` and once every agent has stepped out
        (PettingZoo's own raises AttributeError / KeyError there)."""
        if not self.agents:  # the one guard on the hot path: before reset there are none either
            self._require_game()
            raise EnvUsageError("the game is over and every agent has stepped out: call reset() to start a new game")
        agent = self.agent_selection  # PettingZoo's body, inlined: one call less on the hot path
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def _require_game(self):
        if self.game is None:
            raise EnvUsageError("call reset() before using the environment")
        return self.game

    def step(self, action: ActionLike | None) -> None:
        game = self.game
        if game is None:
            self._require_game()
        if not self.agents:
            raise IllegalActionError(f"the game is over and every agent has stepped out (got action {action!r}): "
                                     f"call reset() to start a new game")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(f"{agent}'s game is over: the only valid action is None, got {action!r}")
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(f"{agent} is asked to act: None is only for agents whose game is over")
        score_delta = self.reward_kind == "score_delta"
        if score_delta:
            before = list(game.scores)
        game.apply(action)  # raises IllegalActionError, game unchanged
        self._cumulative_rewards[agent] = 0
        rewards = self.rewards
        if score_delta:
            for a, s in self._agent_seat.items():
                rewards[a] = game.scores[s] - before[s]
        elif rewards[agent]:
            for a in rewards:
                rewards[a] = 0
        if game.is_over:
            self._finish(game)
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[game.actor]
            if score_delta:  # the other rewards are 0 until the game ends
                self._accumulate_rewards()

    def act(self, agent: str, action: int | None) -> None:
        """``step(action)`` that first checks ``agent`` is the one asked (a clear error otherwise)."""
        if agent != self.agent_selection:
            raise IllegalActionError(f"it is {self.agent_selection}'s decision, not {agent}'s; "
                                     f"{agent} may act only when env.agent_selection == {agent!r}")
        self.step(action)

    def _finish(self, game) -> None:
        scores = game.scores
        info = {"scores": list(scores), "winners": [self.possible_agents[p] for p in game.winners],
                "truncated": game.truncated}
        for a, s in self._agent_seat.items():
            if self.reward_kind != "score_delta":
                self.rewards[a] = end_reward(self.reward_kind, game, s)
            if game.truncated:
                self.truncations[a] = True
            else:
                self.terminations[a] = True
            self.infos[a] = dict(info)

    def action_name(self, action: int) -> str:
        """A readable name for an action id in this game's board."""
        return action_name(action, self.game.plot_color if self.game is not None else None)

    def render(self) -> str | np.ndarray | None:
        """The text (``"ansi"``) or the picture (``"rgb_array"``) of the game; ``"human"`` shows the picture."""
        return self._renderer.render(self.game)

    def state_dict(self) -> dict[str, Any]:
        """The whole game (hidden parts included) as JSON-compatible data; see ``Game.to_dict``."""
        return self._require_game().to_dict()

    def close(self) -> None:
        self._renderer.close()


def env(**kwargs: Any) -> raw_env:
    """The environment, checking every call itself (no generic wrappers needed)."""
    return raw_env(**kwargs)
