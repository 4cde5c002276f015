"""What a game runner does for the agents it seats beyond ``reset`` and ``act``.

The agent protocol (``fifthave.agents.base``) has two optional parts, duck-typed so that the
environments need not import ``agents``:

- ``attach_sampler(sampler)``: a searching agent (``fifthave.agents.search.SearchAgent``) gets its
  seat's door to the live game (``give_sampler``); without it, it cannot search.
- ``observation_layout``: the observation layout the agent reads (``observation.LAYOUTS``,
  default 0); ``LayoutObservations`` builds it whatever layout the runner's env has.
- ``explain()``: a small JSON-able dict about the agent's latest ``act`` (or None when it has
  nothing to say about it), which game records keep (``replay.record_game``) and the web viewer
  shows (``fifthave.agents.web``). Its shape: ``{"kind": ..., "value": what the numbers mean,
  "candidates": [{"actions": [action ids], "value": number}, ...]}`` plus anything else small, e.g.
  policy probabilities (``fifthave.train.policy_agent``), candidate values (``fifthave.train.values_agent``),
  search values and samples (``fifthave.agents.search``).
- ``reads_view = True`` with a method ``act_view(view)``: the agent decides from a seat view
  (``fifthave_env.seat_view``); a runner that holds the game calls ``act_view(StateView(game,
  seat))`` (``reads_view(agent)``) and builds no observation for it, several times cheaper than
  an observation and its parsing. The scripted agents (greedy, heuristic, search) have it;
  their ``act`` reads the same view from the observation.

The game runner (``runner.play``, which every whole game between agents goes through), the terminal
game, the web app, the Gymnasium env and the RLlib env all seat agents this way.
"""

from collections.abc import Mapping
from typing import Any

import numpy as np

from .engine.determinize import SeatSampler
from .engine.game import Game, GameConfig
from .observation import Observer
from .seat_view import StateView


def give_sampler(agent: Any, game: Game, seat: int) -> None:
    """Hand a searching agent (one with ``attach_sampler``, e.g. ``fifthave.agents.search.SearchAgent``) its
    seat's door to ``game``: a sampler of determinizations that hold only what the seat knows."""
    if hasattr(agent, "attach_sampler"):
        agent.attach_sampler(SeatSampler(game, seat))


def explain(agent: Any) -> Any:
    """What ``agent`` reported about its latest ``act`` (its optional ``explain()``), or None."""
    report = getattr(agent, "explain", None)
    return report() if report is not None else None


def reads_view(agent: Any) -> bool:
    """Whether ``agent`` decides from a seat view: the runner calls ``agent.act_view(StateView(game, seat))``."""
    return getattr(agent, "reads_view", False)


def act(agent: Any, game: Game, seat: int, observations: "LayoutObservations", mask: np.ndarray | None = None) -> int:
    """``agent``'s action at ``seat`` of ``game``: from ``StateView(game, seat)`` when it reads seat
    views, else from its observation (``observations.observe(game, seat)``, a ``LayoutObservations``;
    None for an agent with ``needs_observation = False``) and the action mask (written into ``mask``
    when given)."""
    if reads_view(agent):
        return agent.act_view(StateView(game, seat))
    observation = observations.observe(game, seat) if getattr(agent, "needs_observation", True) else None
    return agent.act(observation, game.action_mask(mask))


def observation_layout(agent: Any) -> int:
    """The observation layout ``agent`` reads: its ``observation_layout``, default 0."""
    return getattr(agent, "observation_layout", 0)


class LayoutObservations:
    """The observations of seated agents in the layouts they read (``observation_layout``).

    ``wants(seat)`` says whether the seat's agent reads another layout than the runner's env
    (``env_layout``; None for a runner without an env, which builds every seat's observation
    here); ``observe(game, seat)`` builds the seat's observation in its agent's layout.
    """

    def __init__(self, config: GameConfig, agents: Mapping[int, Any], env_layout: int | None = 0,
                 observers: dict[int, Observer] | None = None) -> None:
        """``agents``: seat -> agent. ``observers``: layout -> ``Observer`` of ``config`` to use and add
        to; a runner that seats agents game after game passes the same dict (the env's own observer in
        it), so each layout's observer is built once, when an agent first reads that layout. Raises
        ``ValueError`` for a layout that does not exist, before anything is added."""
        self.layouts = {seat: observation_layout(agent) for seat, agent in agents.items()}
        self.env_layout = env_layout
        self.observers = {} if observers is None else observers
        missing = set(self.layouts.values()) - {env_layout} - self.observers.keys()
        built = {layout: Observer(config, version=layout) for layout in missing}
        self.observers.update(built)

    def wants(self, seat: int) -> bool:
        return self.layouts.get(seat, self.env_layout) != self.env_layout

    def observe(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``seat``'s observation in its agent's layout (as a new array, or written into ``out``)."""
        return self.observers[self.layouts[seat]].observe(game, seat, out)
