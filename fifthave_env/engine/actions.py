"""The one flat action space: action ids, their meanings and readable names.

Every decision of the game is one step with one action id. The table is the
same for every configuration (2-4 players, either board); ids that a
configuration never uses (the sixth plot of the 5-plot board, say) are simply
never legal.

=======  =============================  =============================================
ids      decision                       meaning
=======  =============================  =============================================
0-3      CHOOSE_ACTION                  action A, B, C or D of the turn
4-45     PLACE_START                    starting skyscraper on plot ``id - 4``
46-49    SHOP_TILE                      take a shop of type ``id - 46`` from the active group
50-91    SHOP_PLOT                      put the taken shop on plot ``id - 50``
92-96    DRAW_COLOR                     take the top card of colored pile ``id - 92``
97-114   MOVE                           commissioner ``(id - 97) // 9`` to location ``(id - 97) % 9``
115-121  SCORE_DISTRICT                 score district ``id - 115``
122-139  BID (add card)                 lay a card of kind ``id - 122`` (color*3 + value index)
140      BID (confirm)                  end the bidding turn with the cards laid
141      BID (pass)                     leave the auction, taking the cards back
142-145  BUILD                          build ``id - 142`` skyscrapers (0-3) after winning
146      BUILD (stop)                   declare a building stop
=======  =============================  =============================================

Plot ``i`` is district ``i // 6``, ring position ``i % 6``. Locations: districts
0-6, Cen tral Park 7, City Hall 8. Commissioners: white 0, beige 1. Card colors:
gray, brown, violet, orange, green, black (0-5); values 4, 5, 6 (index 0-2).
"""

from collections.abc import Sequence
from typing import Union

import numpy as np

from .checks import InvalidTypeError, shown
from .board import (
    COMMISSIONER_NAMES,
    DISTRICT_NAMES,
    LOCATION_NAMES,
    NUM_LOCATIONS,
    NUM_PLOTS,
    SHOP_NAMES,
    plot_name,
)
from .cards import CARD_COLOR_NAMES, COLOR_NAMES, NUM_KINDS, VALUES, kind_name

CHOOSE_ACTION = 0
PLACE_START = 4
SHOP_TILE = PLACE_START + NUM_PLOTS  # 46
SHOP_PLOT = SHOP_TILE + 4  # 50
DRAW_COLOR = SHOP_PLOT + NUM_PLOTS  # 92
MOVE = DRAW_COLOR + 5  # 97
SCORE_DISTRICT = MOVE + 2 * NUM_LOCATIONS  # 115
BID_ADD = SCORE_DISTRICT + 7  # 122
BID_CONFIRM = BID_ADD + NUM_KINDS  # 140
BID_PASS = BID_CONFIRM + 1  # 141
BUILD = BID_PASS + 1  # 142
DECLARE_STOP = BUILD + 4  # 146
NUM_ACTIONS = DECLARE_STOP + 1  # 147

ACTION_LETTERS = "ABCD"

# (first id, block size, short block name)
BLOCKS = (
    (CHOOSE_ACTION, 4, "choose"),
    (PLACE_START, NUM_PLOTS, "start"),
    (SHOP_TILE, 4, "tile"),
    (SHOP_PLOT, NUM_PLOTS, "shop"),
    (DRAW_COLOR, 5, "draw"),
    (MOVE, 2 * NUM_LOCATIONS, "move"),
    (SCORE_DISTRICT, 7, "score"),
    (BID_ADD, NUM_KINDS, "bid"),
    (BID_CONFIRM, 1, "confirm"),
    (BID_PASS, 1, "pass"),
    (BUILD, 4, "build"),
    (DECLARE_STOP, 1, "stop"),
)


class IllegalActionError(ValueError):
    """An action that is not legal now; the game is left exactly as it was."""


class ActionTypeError(IllegalActionError, InvalidTypeError):
    """An action that is no action id at all (a float, str, bool, None, a list, ...).

    Catchable as ``IllegalActionError``, as ``TypeError`` and as ``checks.InvalidValueError``."""


ACTION_ID_ALLOWED = (f"an action is an int id in [0, {NUM_ACTIONS}) (a Python or numpy integer, "
                     f"or a 0-d integer array)")


ActionLike = Union[int, np.integer, np.ndarray]
"""What an action may be given as (``as_action_id`` checks it): a Python or numpy integer, or a 0-d integer
array (what a policy's ``predict`` returns)."""


def as_action_id(action: object) -> int:
    """The one check of what callers pass as an action: a Python or numpy integer (or a 0-d
    integer array, as a policy's ``predict`` returns) in ``[0, NUM_ACTIONS)`` becomes a plain int;
    anything else (bool, float, str, None, a list, a shape-(1,) array, NaN, an id out of range, ...)
    raises ``IllegalActionError`` (``ActionTypeError`` for a wrong type) saying what is allowed.
    Whether the id is legal now is the game's business. Callers on a hot path call it only when
    ``action.__class__ is not int or not 0 <= action < NUM_ACTIONS``."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ActionTypeError(f"{ACTION_ID_ALLOWED}, got {shown(action)}")
    action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"action id {action} is out of range: {ACTION_ID_ALLOWED}")
    return action


def move_action(commissioner: int, destination: int) -> int:
    return MOVE + commissioner * NUM_LOCATIONS + destination


def decode(action: int) -> tuple[str, int]:
    """``(block name, argument)`` for an action id; raises ValueError if out of range."""
    if not isinstance(action, (int,)) and not hasattr(action, "__index__"):
        raise TypeError(f"an action id is an int in [0, {NUM_ACTIONS}), got {action!r}")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action id {a} is out of range: ids are 0..{NUM_ACTIONS - 1}")
    for first, size, name in reversed(BLOCKS):
        if a >= first:
            return name, a - first
    raise AssertionError("unreachable")


def action_name(action: int, plot_colors: Sequence[int] | None = None) -> str:
    """A readable name, e.g. ``"move beige -> Times Square"``; stable and parseable.

    ``plot_colors`` (a game's flat plot colors) adds each plot's color.
    """
    block, arg = decode(action)
    if block == "choose":
        return f"action {ACTION_LETTERS[arg]}"
    if block == "start":
        return f"start skyscraper on {plot_name(arg, plot_colors)}"
    if block == "tile":
        return f"take {SHOP_NAMES[arg]}"
    if block == "shop":
        return f"place shop on {plot_name(arg, plot_colors)}"
    if block == "draw":
        return f"draw {COLOR_NAMES[arg]}"
    if block == "move":
        c, dest = divmod(arg, NUM_LOCATIONS)
        return f"move {COMMISSIONER_NAMES[c]} -> {LOCATION_NAMES[dest]}"
    if block == "score":
        return f"score {DISTRICT_NAMES[arg]}"
    if block == "bid":
        return f"bid {kind_name(arg)}"
    if block == "confirm":
        return "confirm bid"
    if block == "pass":
        return "pass"
    if block == "build":
        return f"build {arg}"
    return "declare building stop"


_NAMES_CACHE: dict[tuple[int, ...] | None, tuple[str, ...]] = {}
_IDS_CACHE: dict[tuple[int, ...] | None, dict[str, int]] = {}


def action_names(plot_colors: Sequence[int] | None = None) -> tuple[str, ...]:
    """Every action's name, indexed by id (a tuple, cached per board's ``plot_colors``)."""
    key = tuple(plot_colors) if plot_colors is not None else None
    names = _NAMES_CACHE.get(key)
    if names is None:
        names = _NAMES_CACHE[key] = tuple(action_name(a, plot_colors) for a in range(NUM_ACTIONS))
    return names


def action_from_name(name: str, plot_colors: Sequence[int] | None = None) -> int:
    """The inverse of :func:`action_name` (with the same ``plot_colors``)."""
    key = tuple(plot_colors) if plot_colors is not None else None
    table = _IDS_CACHE.get(key)
    if table is None:
        table = _IDS_CACHE[key] = {n: a for a, n in enumerate(action_names(plot_colors))}
    try:
        return table[name.strip()]
    except KeyError:
        raise ValueError(f"no action is named {name!r}; names look like 'action A', 'draw gray', "
                         f"'bid black 5', 'move white -> 34th St West', 'pass'") from None


def describe_table() -> list[str]:
    """The whole action table as lines ``id  name`` (for documentation)."""
    return [f"{a:3d}  {action_name(a)}" for a in range(NUM_ACTIONS)]


__all__ = [
    "NUM_ACTIONS", "CHOOSE_ACTION", "PLACE_START", "SHOP_TILE", "SHOP_PLOT", "DRAW_COLOR",
    "MOVE", "SCORE_DISTRICT", "BID_ADD", "BID_CONFIRM", "BID_PASS", "BUILD", "DECLARE_STOP",
    "BLOCKS", "decode", "action_name", "action_names", "action_from_name", "move_action", "describe_table",
    "CARD_COLOR_NAMES", "VALUES", "ActionLike",
]
