"""JSON from outside (a user's file, a shared position), read within limits of size and depth.

``json.load`` recurses once per level of nesting, so a file of 100,000 ``[`` ends in a
``RecursionError``, and Python code that walks the result recurses again; a huge file is read
whole into memory. :func:`load` and :func:`loads` refuse a text larger than ``max_bytes`` (a
file is measured before it is read) or nested deeper than ``max_depth`` with a
:class:`JSONInputError` (a ``ValueError``) that names the source and what is allowed; so does
every other way the text can fail to be JSON (bad syntax, bad UTF-8, an integer of more than
4,300 digits). :func:`check_shape` bounds an already-parsed value (a dict a caller passes in)
without recursing: the saved-game reader runs it before anything else looks at a record.
"""

import json
import os
from typing import Any

from . import checks

MAX_BYTES = 64 << 20  # far above anything we write (a long recorded game is a few MB)
MAX_DEPTH = 32  # our files nest at most 6 levels


class JSONInputError(checks.InvalidValueError):
    """JSON from outside that is not JSON, or is too large or too deep."""


def loads(text: str | bytes | bytearray, source: str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The value of the JSON ``text`` (str or bytes); ``source`` names it in errors ("the config file x.json")."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise JSONInputError(f"{source} must be JSON text (str or bytes), got {checks.shown(text)}")
    if len(text) > max_bytes:
        raise JSONInputError(f"{source} holds {len(text):,} characters; at most {max_bytes:,} are read")
    if isinstance(text, (bytes, bytearray)):
        try:  # JSON files are UTF-8 (RFC 8259); json.loads would guess UTF-16 from stray bytes
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            raise JSONInputError(f"{source} is not UTF-8 text ({error.reason} at byte {error.start}): "
                                 "JSON is read as UTF-8") from None
    try:
        value = json.loads(text)
    except RecursionError:
        raise JSONInputError(f"{source} is nested too deeply; at most {max_depth} levels of lists and "
                             "objects are read") from None
    except json.JSONDecodeError as error:
        raise JSONInputError(f"{source} is not valid JSON: {error}") from None
    except (UnicodeDecodeError, ValueError) as error:  # bad UTF-8; an int of more than 4,300 digits
        raise JSONInputError(f"{source} is not valid JSON: {error}") from None
    check_shape(value, source, max_depth, error=JSONInputError)
    return value


def load(path: str | os.PathLike[str], source: str | None = None, max_bytes: int = MAX_BYTES,
         max_depth: int = MAX_DEPTH) -> Any:
    """The value of the JSON file at ``path``; ``OSError`` if it does not read, ``JSONInputError`` if it is
    not JSON within the limits (measured before the file is read)."""
    source = source or f"the file {os.fspath(path)}"
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            raise JSONInputError(f"{source} holds {size:,} bytes; at most {max_bytes:,} are read")
        text = f.read(max_bytes + 1)
    return loads(text, source, max_bytes, max_depth)


def check_shape(value: Any, name: str, max_depth: int, max_items: int | None = None,
                error: type[Exception] = JSONInputError) -> None:
    """Raise ``error`` naming the place if ``value`` nests lists, tuples and dicts deeper than ``max_depth``
    or (with ``max_items``) holds more than ``max_items`` values in all. Iterative: any depth, even a
    list that holds itself, is refused without recursing."""
    containers = (dict, list, tuple)
    if not isinstance(value, containers):
        return
    items = 0
    # (container, its place: (the parent's place, key or index) or None, depth)
    stack: list[tuple[Any, Any, int]] = [(value, None, 0)]
    while stack:
        node, place, depth = stack.pop()
        items += len(node)
        if max_items is not None and items > max_items:
            raise error(f"{_place_name(name, place)} is too large: at most {max_items:,} values in all are "
                        "allowed here")
        if depth >= max_depth:
            raise error(f"{_place_name(name, place)} is nested too deeply: at most {max_depth} levels of lists "
                        "and dicts are allowed")
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        stack.extend((child, (place, key), depth + 1) for key, child in pairs if isinstance(child, containers))


def _place_name(name: str, place: Any) -> str:
    """``name`` followed by the keys and indexes that lead to ``place`` (``x.json.state.piles[0][3]``); after
    a ``name`` that ends in a space, the path without its leading dot (``saved game field state.piles[0]``)."""
    keys = []
    while place is not None:
        place, key = place
        keys.append(key)
    parts = []
    for key in reversed(keys):
        if isinstance(key, int):
            parts.append(f"[{key}]")
        elif isinstance(key, str) and len(key) <= 40 and key.isidentifier():
            parts.append(f".{key}")
        else:
            parts.append(f"[{checks.shown(key)}]")
    path = "".join(parts)
    if name.endswith(" "):  # "saved game field " + "state.piles[0]"
        return name + (path[1:] if path.startswith(".") else path or "(top level)")
    return name + path
