"""The rules of Fifth Avenue as pure Python: no RL library is imported here."""

from .actions import NUM_ACTIONS, action_from_name, action_name, decode
from .auction import ALEA
from .game import DECISION_NAMES, Game, GameConfig, IllegalActionError

__all__ = ["ALEA", "DECISION_NAMES", "Game", "GameConfig", "IllegalActionError", "NUM_ACTIONS",
           "action_from_name", "action_name", "decode"]
