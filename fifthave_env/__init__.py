"""fifthave: Fifth Avenue as a reinforcement-learning environment."""

import gymnasium as _gymnasium

from . import fifth_avenue_v0
from .engine import NUM_ACTIONS, Game, GameConfig, IllegalActionError, action_from_name, action_name

__version__ = "0.1.0"

# The single-agent Gymnasium env (fifthave_env.gym_env), built lazily by gymnasium.make.
if "FifthAvenue-v0" not in _gymnasium.registry:
    _gymnasium.register(id="FifthAvenue-v0", entry_point="fifthave_env.gym_env:FifthAvenueEnv")

__all__ = ["Game", "GameConfig", "IllegalActionError", "NUM_ACTIONS", "action_from_name", "action_name",
           "fifth_avenue_v0", "__version__"]
