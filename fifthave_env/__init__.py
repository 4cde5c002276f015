"""fifthave: Fifth Avenue as a reinforcement-learning environment."""

from . import fifth_avenue_v0
from .engine import NUM_ACTIONS, Game, GameConfig, IllegalActionError, action_from_name, action_name

__version__ = "0.1.0"

__all__ = ["Game", "GameConfig", "IllegalActionError", "NUM_ACTIONS", "action_from_name", "action_name",
           "fifth_avenue_v0", "__version__"]
