"""The agent protocol used everywhere: tournaments, training opponents, the terminal game.

An agent sees only its own seat's view: the observation vector and action mask
that ``fifth_avenue_v1`` (or ``fifth_avenue_v0``) gives that seat (split into named
arrays with ``fifthave_env.observation.views``), plus the public game configuration. It
returns a legal action id. Its randomness comes from the generator it is given.
``fifthave.agents.view.SeatView`` turns an observation into readable fields (plots,
owners, scores, the hand, the auction) for scripted agents.

An agent that decides from the mask alone sets the class attribute
``needs_observation = False`` (e.g. ``RandomAgent``): environments and tournaments
then skip building its observation and pass ``None`` as ``observation``. Agents
without the attribute get their observation (the default, ``True``).

An agent that reads the derived views sets ``observation_layout = 1``: tournaments
and environments then give it layout 1 (``fifthave_env.observation.LAYOUTS``, whose
first part is layout 0); every other agent gets layout 0. A searching agent has
``attach_sampler``: every game runner hands it its seat's sampler (``give_sampler``).
An agent that decides from a seat view has ``reads_view = True`` and ``act_view(view)``:
runners that hold the game hand it ``fifthave_env.seat_view.StateView(game, seat)`` and build no
observation (the scripted agents do; their ``act`` reads the same view from the observation).
All are honoured through ``fifthave_env.agent_protocol`` (re-exported here), which
the environments use without importing ``agents``.
"""

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np

from fifthave_env.agent_protocol import LayoutObservations, give_sampler, reads_view
from fifthave_env.engine.game import GameConfig
from fifthave_env.random_agent import RandomAgent

__all__ = ["Agent", "AgentFactory", "LayoutObservations", "RandomAgent", "give_sampler", "reads_view"]


@runtime_checkable
class Agent(Protocol):
    """What every game runner plays: a ``name``, ``reset`` before each game and ``act`` at each decision (see
    the module docstring for the optional attributes). A structural type: an agent need not inherit from it."""

    name: str
    # Optional: ``needs_observation = False`` for an agent that reads only the mask, and
    # ``observation_layout = 1`` for one that reads the derived views (see above).

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        """Called before each game with the public configuration, the agent's seat and its generator."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id (``action_mask[id] == 1``) for this seat's observation."""


AgentFactory = Callable[[], Agent]
"""A zero-argument callable that makes a fresh agent (a tournament makes one per seat and game)."""
