"""The uniformly random legal player: the Gymnasium env's default opponent and ``agents.RandomAgent``.

It lives here so that ``fifthave_env`` never imports ``agents/``; it follows the agent
protocol of ``fifthave.agents.base``.
"""

import numpy as np

from .engine.game import GameConfig


class RandomAgent:
    """Uniform over the legal actions."""

    name = "random"
    needs_observation = False  # reads the mask only: callers pass observation=None and skip building it

    def __init__(self) -> None:
        self.rng = np.random.default_rng()

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        self.rng = rng

    def act(self, observation: np.ndarray | None, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])
