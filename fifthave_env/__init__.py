"""fifthave: Fifth Avenue as a reinforcement-learning environment."""

import gymnasium as _gymnasium

from . import fifth_avenue_v0, fifth_avenue_v1
from .engine import NUM_ACTIONS, Game, GameConfig, IllegalActionError, action_from_name, action_name

__version__ = "0.1.0"

# The single-agent Gymnasium env (fifthave_env.gym_env), built lazily by gymnasium.make;
# the id's version is the observation layout (fifth_avenue_v0 / fifth_avenue_v1).
for _version in (0, 1):
    if f"FifthAvenue-v{_version}" not in _gymnasium.registry:
        _gymnasium.register(id=f"FifthAvenue-v{_version}", entry_point="fifthave_env.gym_env:FifthAvenueEnv",
                            kwargs={"observation_layout": _version})

__all__ = ["Game", "GameConfig", "IllegalActionError", "NUM_ACTIONS", "action_from_name", "action_name",
           "fifth_avenue_v0", "fifth_avenue_v1", "__version__"]
