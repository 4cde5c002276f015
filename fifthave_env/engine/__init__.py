"""The rules of Fifth Avenue as pure Python: no RL library is imported here."""

from .actions import NUM_ACTIONS, ActionTypeError, action_from_name, action_name, decode
from .auction import ALEA
from .checks import InvalidTypeError, InvalidValueError
from .determinize import determinize
from .game import DECISION_NAMES, Game, GameConfig, IllegalActionError
from .savefile import SavedGameError

__all__ = ["ALEA", "ActionTypeError", "DECISION_NAMES", "Game", "GameConfig", "IllegalActionError",
           "InvalidTypeError", "InvalidValueError", "NUM_ACTIONS", "SavedGameError", "action_from_name",
           "action_name", "decode", "determinize"]
