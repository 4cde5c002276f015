"""The one validation layer for values that come from outside: configs, env options, saved games,
command-line options.

Each check takes the ``name`` of what it checks (a parameter such as ``max_turns``,
or a saved game's field such as ``state.hands[1][4]``) and the value, returns the
value in its plain Python form (a numpy integer becomes an ``int``), and otherwise
raises an error that names the parameter, the value and what is allowed. Types are
exact: a bool is not an int, a float is not an int even when whole, a str is never a
number. Nothing is changed before a check passes, so a refusal leaves every state
as it was.
"""

import argparse
import math
import reprlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np


class InvalidValueError(ValueError):
    """A value from outside (a parameter, an option, a saved game's field) that is not allowed."""


class InvalidTypeError(InvalidValueError, TypeError):
    """A value of the wrong type; catchable as ``TypeError`` or as ``InvalidValueError``."""


class _ShortRepr(reprlib.Repr):
    """A repr for error messages that never recurses deep nor converts a huge int (which fails past
    4,300 digits) or a huge container or string whole."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxlist, self.maxtuple, self.maxdict, self.maxstring, self.maxother = 3, 8, 8, 6, 60, 60

    def repr_int(self, value, level):
        return int_text(value)


_short_repr = _ShortRepr()


def int_text(value: int) -> str:
    """``value`` (an int) in digits, or its size when it is too long to show (or to convert at all)."""
    if abs(value).bit_length() > 200:  # 60 digits and more: the count is enough
        return f"<an int of about {int(abs(value).bit_length() * math.log10(2)) + 1} digits>"
    return repr(int(value))


def shown(value: Any) -> str:
    """``value`` as an error message shows it: its repr (shortened, of bounded cost for any value) and its type."""
    text = _short_repr.repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} of type {type(value).__name__}"


def is_int(value: Any) -> bool:
    """A Python or numpy integer, never a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _ints_allowed(low, high) -> str:
    if low is not None and high is not None:
        return f"an int from {low} to {high}"
    if low is not None:
        return f"an int >= {low}"
    if high is not None:
        return f"an int <= {high}"
    return "an int"


def integer(name: str, value: Any, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]`` (either bound may be None)."""
    allowed = _ints_allowed(low, high)
    if not is_int(value):
        raise InvalidTypeError(f"{name} must be {allowed}, got {shown(value)}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise InvalidValueError(f"{name} must be {allowed}, got {int_text(value)}")
    return value


def choice(name: str, value: Any, allowed: Iterable[Any]) -> Any:
    """``value`` if it is one of ``allowed`` (compared with the type too: ``True`` is not ``1``)."""
    for option in allowed:
        if type(value) is type(option) and value == option:
            return option
        if is_int(value) and type(option) is int and int(value) == option:
            return option
    listed = ", ".join(repr(a) for a in allowed)
    error = InvalidValueError if any(type(value) is type(a) for a in allowed) else InvalidTypeError
    raise error(f"{name} must be one of {listed}, got {shown(value)}")


def boolean(name: str, value: Any) -> bool:
    """``value`` if it is True or False (a numpy bool becomes a bool; 0, 1, "yes" are refused)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidTypeError(f"{name} must be True or False, got {shown(value)}")


def real(name: str, value: Any, low: float | None = None, high: float | None = None,
         low_included: bool = True) -> float:
    """``value`` as a finite float (an int or float, never a bool, NaN or infinity), from ``low`` (or, with
    ``low_included=False``, above it) up to ``high``; either bound may be None."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InvalidTypeError(f"{name} must be a finite number (int or float), got {shown(value)}")
    try:
        value = float(value)
    except OverflowError:  # an int beyond the floats
        raise InvalidValueError(f"{name} must be a finite number (int or float), got {int_text(int(value))}") from None
    if not math.isfinite(value):
        raise InvalidValueError(f"{name} must be a finite number (int or float), got {value!r}")
    if (low is not None and (value < low if low_included else value <= low)) or (high is not None and value > high):
        allowed = "" if low is None else f" {'from' if low_included else 'above'} {low}"
        allowed += "" if high is None else f" {'to' if low is not None else 'up to'} {high}"
        raise InvalidValueError(f"{name} must be a number{allowed}, got {value!r}")
    return value


def sequence(name: str, value: Any, length: int | None = None) -> list:
    """``value`` as a list, if it is a list or tuple (of ``length`` items when given)."""
    if not isinstance(value, (list, tuple)):
        what = "a list" if length is None else f"a list of {length} items"
        raise InvalidTypeError(f"{name} must be {what}, got {shown(value)}")
    if length is not None and len(value) != length:
        raise InvalidValueError(f"{name} must be a list of {length} items, got {len(value)} items: {shown(value)}")
    return list(value)


def mapping(name: str, value: Any, keys: Iterable[str] | None = None) -> dict:
    """``value`` if it is a dict whose keys are exactly ``keys`` (when given)."""
    if not isinstance(value, dict):
        raise InvalidTypeError(f"{name} must be a dict, got {shown(value)}")
    if keys is not None:
        missing = [k for k in keys if k not in value]
        unknown = [k for k in value if k not in keys]
        if missing:
            raise InvalidValueError(f"{name} lacks the key(s) {', '.join(map(repr, missing))}; "
                                    f"it must hold exactly {', '.join(map(repr, keys))}")
        if unknown:
            raise InvalidValueError(f"{name} has the unknown key(s) {', '.join(map(repr, unknown))}; "
                                    f"it must hold exactly {', '.join(map(repr, keys))}")
    return value


def seed(name: str, value: Any) -> int | None:
    """A seed: None or an int >= 0."""
    if value is None:
        return None
    if not is_int(value):
        raise InvalidTypeError(f"{name} must be None or an int >= 0, got {shown(value)}")
    if value < 0:
        raise InvalidValueError(f"{name} must be None or an int >= 0, got {int_text(int(value))}")
    return int(value)


def options(name: str, value: Any) -> dict | None:
    """Reset options: None or a dict (the environments take no option yet)."""
    if value is not None and not isinstance(value, dict):
        raise InvalidTypeError(f"{name} must be None or a dict, got {shown(value)}")
    return value


# ---- command-line options: argparse ``type``s (argparse names the flag: "argument --seed: ...") ----

def cli_int(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: the text as an int in ``[low, high]``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {_ints_allowed(low, high)}, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {_ints_allowed(low, high)}, got {value}")
        return value
    return parse


MAX_SEED = 2**32 - 1
"""The largest seed a command line takes: numpy's legacy ``np.random.seed``, which training seeds, takes no more."""


def cli_seed(text: str) -> int:
    """An argparse ``type``: a seed, an int from 0 to ``MAX_SEED``."""
    return cli_int(0, MAX_SEED)(text)


MAX_WORKERS = 256
"""The most worker processes a command line starts: each is a whole Python process (forking 10**8 of them
was accepted)."""


def cli_workers(text: str) -> int:
    """An argparse ``type``: a number of worker processes, an int from 1 to ``MAX_WORKERS``."""
    return cli_int(1, MAX_WORKERS)(text)


def cli_positive(text: str) -> float:
    """An argparse ``type``: the text as a finite number > 0 (not NaN or infinity)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value
