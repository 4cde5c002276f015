"""Saved games (``Game.to_dict`` / ``Game.from_dict``): the documented format, checked field by field.

A saved game is untrusted input. :func:`read` checks it against the format that
``docs/guide.md`` documents ("The saved-game format"): the top-level keys, the
config (by ``GameConfig``'s own checks), the random generator (one of
:data:`BIT_GENERATORS`, never looked up by name in ``numpy.random``), and every
field of the state with its type, length and range; nothing else is set on the
game (no derived attribute such as ``config``, ``n`` or ``_legal``).
:func:`check_consistency` then checks what ties the fields together: every
card, shop and skyscraper accounted for (R1-R3, R12), the board, the
decision and its seat, the auction in progress. Every error is an
``InvalidValueError`` (``InvalidTypeError`` for a wrong type) naming the field,
the value and what is allowed. The input is never modified.
"""

from collections import Counter
from typing import TYPE_CHECKING, Any

import numpy as np

from . import auction, checks, safejson, scoring
from .auction import ALEA, ALEA_IN, ALEA_NOT_YET, ALEA_OUT
from .board import (
    CENTRAL_PARK,
    CITY_HALL,
    NO_PLOT,
    NUM_DISTRICTS,
    NUM_LOCATIONS,
    NUM_PLOTS,
    NUM_SHOP_TYPES,
    PLOTS_PER_DISTRICT,
    ROW_SLOTS,
    SHOP_PLOT,
    SHOPS_PER_TYPE,
    TOTAL_SHOPS,
)
from .cards import (
    BLACK,
    BLACK_COUNTS,
    COLORED_PER_COLOR,
    FACE_UP,
    KIND_VALUE,
    NUM_COLORS,
    NUM_KINDS,
    TOTAL_CARDS,
    VALUES,
    bid_total,
)
from .decisions import (
    BID_DECISION,
    BUILD_DECISION,
    CHOOSE_ACTION_DECISION,
    DECISION_NAMES,
    DRAW_COLOR_DECISION,
    GAME_OVER,
    MOVE_DECISION,
    PLACE_START_DECISION,
    SCORE_DISTRICT_DECISION,
    SHOP_PLOT_DECISION,
    SHOP_TILE_DECISION,
    starting_order,
)

if TYPE_CHECKING:  # game imports this module
    from .game import Game

STATE_FORMAT = 1
TOP_KEYS = ("format", "config", "rng", "state")
CONFIG_KEYS = ("num_players", "board", "layout", "row_groups", "skyscrapers_per_color", "random_start",
               "max_turns")
# The generators a saved game may name, by class name: numpy's whose state is plain JSON data
# (default_rng's PCG64 and its DXSM variant); the others' states hold numpy arrays.
BIT_GENERATORS = {g.__name__: g for g in (np.random.PCG64, np.random.PCG64DXSM)}
# Limits checked first (engine.safejson.check_shape): to_dict nests 4 levels of dicts and lists
# (state.markers[0][3]) and holds under 1,000 values.
MAX_DEPTH = 6
MAX_VALUES = 4096
MAX_INT_BITS = 3321  # 1,000 digits: far beyond any count, and the messages that show one stay cheap
UNUSED_TILES = TOTAL_SHOPS - NUM_DISTRICTS - ROW_SLOTS  # 9 tiles leave the game unseen (R10)
# The highest bid the cards allow: every card of one color and every black card (R1, R21): 302.
MAX_BID = sum(v * c for v, c in zip(VALUES, COLORED_PER_COLOR)) + sum(v * c for v, c in zip(VALUES, BLACK_COUNTS))


class SavedGameError(checks.InvalidValueError):
    """A saved game that does not follow the documented format or is inconsistent."""


class SavedGameTypeError(SavedGameError, checks.InvalidTypeError):
    """A saved game's field of the wrong type."""


def _field(name: str) -> str:
    return f"saved game field {name}"


def _fail(message):
    raise SavedGameError(f"saved game: {message}")


def _checked(check, name: str, *args):
    """``check`` (an ``engine.checks`` function) on a field, with errors of the saved-game types."""
    try:
        return check(_field(name), *args)
    except checks.InvalidTypeError as error:
        raise SavedGameTypeError(str(error)) from None
    except checks.InvalidValueError as error:
        raise SavedGameError(str(error)) from None


def _int(name: str, value, low, high=None):
    if high is None and checks.is_int(value) and abs(int(value)).bit_length() > MAX_INT_BITS:
        _fail(f"{name} must be an int >= {low} of at most 1,000 digits, got {checks.int_text(int(value))}")
    return _checked(checks.integer, name, value, low, high)


def _bool(name: str, value):
    return _checked(checks.boolean, name, value)


def _list(name: str, value, length: int | None = None, most=None):
    items = _checked(checks.sequence, name, value, length)
    if most is not None and len(items) > most:
        _fail(f"{name} holds at most {most} items, got {len(items)}")
    return items


def _ints(name: str, value, length: int | None, low, high=None, most=None):
    return [_int(f"{name}[{i}]", v, low, high) for i, v in enumerate(_list(name, value, length, most))]


def _int_in(name: str, value, allowed):
    """An int that is one of ``allowed`` (a short list, named in the error)."""
    v = _int(name, value, min(allowed), max(allowed))
    if v not in allowed:
        _fail(f"{name} must be one of {sorted(allowed)}, got {v}")
    return v


def _each(name: str, value, length: int, read):
    """A list of ``length`` items, each read by ``read(item name, item)``."""
    return [read(f"{name}[{i}]", x) for i, x in enumerate(_list(name, value, length))]


def _state_fields(n, has_alea, cfg):
    """Field name -> reader of that field (checks type, length and range; returns a fresh copy)."""
    seats = list(range(n))
    owners = [-1, *seats] + ([ALEA] if has_alea else [])
    spc = cfg.skyscrapers_per_color
    alea_states = [ALEA_NOT_YET, ALEA_IN, ALEA_OUT] if has_alea else [ALEA_OUT]
    kinds = lambda name, v: _ints(name, v, NUM_KINDS, 0)  # noqa: E731
    per_seat = lambda read: lambda name, v: _each(name, v, n, read)  # noqa: E731
    return {
        "plot_shops": lambda name, v: _each(name, v, NUM_PLOTS,
                                            lambda item, x: _ints(item, x, None, 0, NUM_SHOP_TYPES - 1, most=2)),
        "plot_owner": lambda name, v: _each(name, v, NUM_PLOTS, lambda item, x: _int_in(item, x, owners)),
        "plot_height": lambda name, v: _ints(name, v, NUM_PLOTS, 0, spc),
        "closed": lambda name, v: _each(name, v, NUM_DISTRICTS, _bool),
        "closed_mask": lambda name, v: _int(name, v, 0, (1 << NUM_DISTRICTS) - 1),
        "markers": lambda name, v: _each(name, v, 2, lambda item, x: _each(item, x, NUM_DISTRICTS, _bool)),
        "comm_pos": lambda name, v: _ints(name, v, 2, 0, NUM_LOCATIONS - 1),
        "row": lambda name, v: _ints(name, v, ROW_SLOTS, -1, NUM_SHOP_TYPES - 1),
        "unused_tiles": lambda name, v: _ints(name, v, UNUSED_TILES, 0, NUM_SHOP_TYPES - 1),
        "box": lambda name, v: _ints(name, v, None, 0, NUM_SHOP_TYPES - 1, most=ROW_SLOTS),
        "removed_shops": lambda name, v: _int(name, v, 0, TOTAL_SHOPS),
        "shops_placed": lambda name, v: _int(name, v, 0, ROW_SLOTS),
        "pending_tile": lambda name, v: _int(name, v, -1, NUM_SHOP_TYPES - 1),
        "piles": lambda name, v: _each(name, v, NUM_COLORS,
                                       lambda item, x: _ints(item, x, None, 0, 2, most=sum(COLORED_PER_COLOR))),
        "pile_known": lambda name, v: _ints(name, v, NUM_COLORS, 0, sum(COLORED_PER_COLOR)),
        "black": lambda name, v: _ints(name, v, None, 0, 3 * FACE_UP + 2, most=sum(BLACK_COUNTS)),
        "black_seen": lambda name, v: _ints(name, v, 3, 0),
        "black_faceup": lambda name, v: _int(name, v, 0),
        "hands": per_seat(kinds),
        "known": per_seat(kinds),
        "scores": lambda name, v: _ints(name, v, n, 0),
        "reserve": lambda name, v: _ints(name, v, n, 0, spc),
        "supply": lambda name, v: _ints(name, v, n, 0, spc),
        "alea_supply": lambda name, v: _int(name, v, 0, spc if has_alea else 0),
        "cp_skyscrapers": lambda name, v: _ints(name, v, n, 0, spc),
        "removed_skyscrapers": lambda name, v: _ints(name, v, ALEA + 1, 0, spc),
        "owned": per_seat(lambda name, v: _ints(name, v, NUM_DISTRICTS, -1, NUM_PLOTS - 1)),
        "stops": lambda name, v: _int(name, v, 0, 2),
        "first_player": lambda name, v: _int(name, v, 0, n - 1 if cfg.random_start else 0),
        "setup_order": lambda name, v: _ints(name, v, None, 0, n - 1, most=2 * n),
        "turn": lambda name, v: _int(name, v, 0, cfg.max_turns),
        "active": lambda name, v: _int(name, v, 0, n - 1),
        "turn_action": lambda name, v: _int(name, v, -1, 3),
        "first_draw": lambda name, v: _int(name, v, -1, NUM_COLORS - 1),
        "final_move": _bool,
        "auc_queue": lambda name, v: _ints(name, v, None, 0, CENTRAL_PARK, most=NUM_DISTRICTS + 1),
        "auc_comm": lambda name, v: _int(name, v, -1, 1),
        "auc_loc": lambda name, v: _int(name, v, -1, CENTRAL_PARK),
        "auc_full": _bool,
        "auc_allowed": lambda name, v: _ints(name, v, n, 0, (1 << NUM_COLORS) - 1),
        "auc_passed": per_seat(_bool),
        "auc_cards": per_seat(kinds),
        "auc_color": lambda name, v: _ints(name, v, n, -1, NUM_COLORS - 1),
        "auc_total": lambda name, v: _ints(name, v, n, 0, MAX_BID),
        "auc_high": lambda name, v: _int(name, v, 0, MAX_BID),
        "auc_high_bidder": lambda name, v: _int_in(name, v, owners),
        # a bidding turn confirms after laying a card (never taken back but by passing, once per seat)
        "auc_turns": lambda name, v: _int(name, v, 0, TOTAL_CARDS + n),
        "auc_alea_cards": lambda name, v: _ints(name, v, None, 0, 2, most=4),
        "auc_alea_state": lambda name, v: _int_in(name, v, alea_states),
        "auc_cp_color": lambda name, v: _int(name, v, -1, NUM_COLORS - 1),
        "auc_winner": lambda name, v: _int_in(name, v, owners),
        "auc_last_bid": kinds,
        "auc_bid_color": lambda name, v: _int(name, v, -1, NUM_COLORS - 1),
        "central_park_draw": lambda name, v: _ints(name, v, None, 0, NUM_SHOP_TYPES - 1, most=3),
        "terminated": _bool,
        "truncated": _bool,
        "winners": lambda name, v: _ints(name, v, None, 0, n - 1, most=n),
        "decision": lambda name, v: _int(name, v, 0, GAME_OVER),
        "actor": lambda name, v: _int(name, v, -1, n - 1),
    }


# Every field of a saved state, in the order Game.to_dict writes them (documented in docs/guide.md).
STATE_FIELDS = (
    "plot_shops", "plot_owner", "plot_height", "closed", "closed_mask", "markers", "comm_pos", "row", "unused_tiles",
    "box", "removed_shops", "shops_placed", "pending_tile", "piles", "pile_known", "black", "black_seen",
    "black_faceup", "hands", "known", "scores", "reserve", "supply", "alea_supply", "cp_skyscrapers",
    "removed_skyscrapers", "owned", "stops", "first_player", "setup_order", "turn", "active", "turn_action",
    "first_draw", "final_move", "auc_queue", "auc_comm", "auc_loc", "auc_full", "auc_allowed", "auc_passed",
    "auc_cards", "auc_color", "auc_total", "auc_high", "auc_high_bidder", "auc_turns", "auc_alea_cards",
    "auc_alea_state", "auc_cp_color", "auc_winner", "auc_last_bid", "auc_bid_color", "central_park_draw",
    "terminated", "truncated", "winners", "decision", "actor",
)


def read(data: Any, config_class: type) -> tuple[Any, np.random.Generator, dict[str, Any]]:
    """``(config, rng, state)`` of a saved game, each checked; raises ``SavedGameError``.

    ``config_class`` is ``GameConfig`` (passed in: this module is imported by ``game``)."""
    # Bounded before anything walks the record: a field nested 100,000 deep or a list of millions of
    # items is refused here, never by a RecursionError or a long wait in the field checks below.
    safejson.check_shape(data, "saved game field ", MAX_DEPTH, MAX_VALUES, error=SavedGameError)
    _checked(checks.mapping, "(top level)", data, TOP_KEYS)
    if not checks.is_int(data["format"]) or data["format"] != STATE_FORMAT:
        _fail(f"unknown saved-game format {checks.shown(data['format'])}; this version reads {STATE_FORMAT}")
    raw = _checked(checks.mapping, "config", data["config"], CONFIG_KEYS)
    try:  # GameConfig keeps its own copies (tuples of plain values), so no copy is made here
        config = config_class(**{k: raw[k] for k in CONFIG_KEYS})
    except checks.InvalidTypeError as error:
        raise SavedGameTypeError(f"saved game field config.{error}") from None
    except checks.InvalidValueError as error:
        raise SavedGameError(f"saved game field config.{error}") from None
    rng = _read_rng(data["rng"])
    raw_state = _checked(checks.mapping, "state", data["state"], STATE_FIELDS)
    n = config.num_players
    fields = _state_fields(n, n == 2, config)
    state = {name: fields[name](f"state.{name}", raw_state[name]) for name in STATE_FIELDS}
    return config, rng, state


def _read_rng(raw):
    raw = _checked(checks.mapping, "rng", raw, ("bit_generator", "state"))
    name = raw["bit_generator"]
    if not isinstance(name, str) or name not in BIT_GENERATORS:
        raise SavedGameError(f"saved game field rng.bit_generator must be one of {', '.join(BIT_GENERATORS)}, "
                             f"got {checks.shown(name)}")
    # The shape numpy's PCG64 states have, checked before numpy sees them (its own errors are
    # not all ValueErrors); numpy then gets fresh plain ints, so nothing of the input is kept.
    state = _checked(checks.mapping, "rng.state", raw["state"], ("bit_generator", "state", "has_uint32", "uinteger"))
    words = _checked(checks.mapping, "rng.state.state", state["state"], ("state", "inc"))
    plain = {"bit_generator": state["bit_generator"],
             "state": {k: _int(f"rng.state.state.{k}", words[k], 0, (1 << 128) - 1) for k in ("state", "inc")},
             "has_uint32": _int("rng.state.has_uint32", state["has_uint32"], 0, 1),
             "uinteger": _int("rng.state.uinteger", state["uinteger"], 0, (1 << 32) - 1)}
    bit_generator = BIT_GENERATORS[name]()
    try:
        bit_generator.state = plain  # type: ignore[assignment]  # numpy's stub wants its TypedDict
    except (TypeError, ValueError, KeyError, OverflowError) as error:
        raise SavedGameError(f"saved game field rng.state is not a state of numpy's {name}: "
                             f"{type(error).__name__}: {error}") from None
    if bit_generator.state != plain:  # numpy accepted it only by converting something
        _fail(f"rng.state is not a state of numpy's {name} as to_dict writes it: {checks.shown(state)}")
    return np.random.Generator(bit_generator)


def check_consistency(g: "Game") -> None:
    """What ties the fields of a restored game together; raises ``SavedGameError``."""
    n = g.n
    _check_cards(g)
    _check_shops(g)
    _check_board(g)
    _check_skyscrapers(g)
    _check_flow(g)
    _check_auction(g)
    for p in range(n):
        for k in range(NUM_KINDS):
            if g.known[p][k] > g.hands[p][k]:
                _fail(f"state.known[{p}][{k}] = {g.known[p][k]} exceeds state.hands[{p}][{k}] = {g.hands[p][k]}")
    for c in range(NUM_COLORS):
        if g.pile_known[c] > len(g.piles[c]):
            _fail(f"state.pile_known[{c}] = {g.pile_known[c]} exceeds the pile's {len(g.piles[c])} cards")
    if not g.is_over and not g.legal_actions():
        _fail(f"no legal action for seat {g.actor} in decision '{DECISION_NAMES[g.decision]}'")


def card_totals(g: "Game") -> list[int]:
    """Cards of each kind anywhere in the game: hands, bids, piles, Alea's draw."""
    counts = [0] * NUM_KINDS
    for p in range(g.n):
        for k in range(NUM_KINDS):
            counts[k] += g.hands[p][k] + g.auc_cards[p][k]
    for c, pile in enumerate(g.piles):
        for v in pile:
            counts[c * 3 + v] += 1
    for entry in g.black:
        counts[BLACK * 3 + entry % 3] += 1
    for v in g.auc_alea_cards:
        counts[BLACK * 3 + v] += 1
    return counts


def _check_cards(g) -> None:
    """Every card of every kind is somewhere: hands, bids, piles, Alea's draw (R1)."""
    counts = card_totals(g)
    for k in range(NUM_KINDS):
        expected = (BLACK_COUNTS if k >= BLACK * 3 else COLORED_PER_COLOR)[k % 3]
        if counts[k] != expected:
            _fail(f"{counts[k]} cards of kind {k} in hands, bids and piles; the game has {expected} (R1)")
    seen = [sum(1 for e in g.black if e >= 3 and e % 3 == v) for v in range(3)]
    if g.black_seen != seen:
        _fail(f"state.black_seen = {g.black_seen} does not match the seen cards of state.black: {seen}")
    faceup = sum(1 for e in g.black if e >= 3 * FACE_UP)
    if g.black_faceup != faceup:
        _fail(f"state.black_faceup = {g.black_faceup} does not match the face-up cards of state.black: {faceup}")


def _check_shops(g) -> None:
    """9 shops of each type, 36 in all: on plots, in the row, the box, out of the game (R2)."""
    by_type = [0] * NUM_SHOP_TYPES
    for tiles in (*g.plot_shops, g.row, g.box, g.unused_tiles, [g.pending_tile]):
        for t in tiles:
            if t >= 0:
                by_type[t] += 1
    if any(count > SHOPS_PER_TYPE for count in by_type) or sum(by_type) + g.removed_shops != TOTAL_SHOPS:
        _fail(f"shops per type {by_type} (plots, row, box, unused, pending) plus {g.removed_shops} removed "
              f"must be {SHOPS_PER_TYPE} of each type, {TOTAL_SHOPS} in all (R2)")
    _check_row(g)
    # R27: the final scoring draws min(3, box) tiles from the box; nothing is drawn before it (nor at truncation)
    drawn = min(3, len(g.box)) if g.terminated else 0
    if len(g.central_park_draw) != drawn or Counter(g.central_park_draw) - Counter(g.box):
        _fail(f"state.central_park_draw = {g.central_park_draw} with state.box {g.box}: the final scoring draws "
              f"{drawn} of the box's tiles (R27; none before the end or at truncation)")


def _check_row(g) -> None:
    """The row as taking tiles leaves it (R9): groups empty up to the active (leftmost non-empty)
    one, untouched after it; a group of several tiles never keeps just one, which went to the box
    at once; so the box holds one tile per emptied group, and every other tile taken from the row
    was placed (state.shops_placed) or is pending."""
    taken = boxed = 0
    active = None
    for i, size in enumerate(g.config.row_groups):
        left = sum(1 for t in g.row[g.group_start[i]:g.group_start[i + 1]] if t >= 0)
        if active is None and left:
            active = i
            if left == 1 < size:
                _fail(f"state.row = {g.row}: group {i} keeps one tile of {size}; it goes to the box when the "
                      "one before it is taken (R9)")
        elif active is not None and left != size:
            _fail(f"state.row = {g.row}: group {i} lies after the active group {active}, so it is untouched (R9)")
        taken += size - left
        if not left and size > 1:
            boxed += 1
            taken -= 1
    if len(g.box) != boxed:
        _fail(f"state.box holds {len(g.box)} tiles; the row's {boxed} emptied groups of several tiles sent one "
              "each (R9)")
    pending = g.pending_tile >= 0
    if g.shops_placed + pending != taken:
        _fail(f"state.shops_placed = {g.shops_placed} (plus {int(pending)} pending), but {taken} tiles were taken "
              f"from state.row {g.row} to be placed (R9)")
    if active is None and g.decision not in (SHOP_PLOT_DECISION, GAME_OVER):
        _fail(f"the row is empty in decision '{DECISION_NAMES[g.decision]}'; placing its last tile ends the "
              "game (R27)")


def _check_board(g) -> None:
    """Plots hold shops or skyscrapers, never both; one plot per seat per district; closed districts
    are empty (R8, R11, R17, R24, R26)."""
    owned = [[-1] * NUM_DISTRICTS for _ in range(g.n)]
    for plot in range(NUM_PLOTS):
        owner, height, shops, color = g.plot_owner[plot], g.plot_height[plot], g.plot_shops[plot], g.plot_color[plot]
        where = f"plot {plot}"
        if (owner == -1) != (height == 0):
            _fail(f"{where}: state.plot_owner {owner} and state.plot_height {height} disagree")
        if color == NO_PLOT and (shops or height):
            _fail(f"{where} does not exist on the {g.config.board}-plot board but holds shops or skyscrapers")
        if color == SHOP_PLOT and height:
            _fail(f"{where} is the colorless shop plot but holds skyscrapers (R8)")
        if shops and height:
            _fail(f"{where} holds both shops and skyscrapers (R17)")
        if owner == ALEA and height != 1:
            _fail(f"{where}: Alea's plots hold one skyscraper each (R26), got {height}")
        if 0 <= owner < g.n:
            d = plot // PLOTS_PER_DISTRICT
            if owned[owner][d] >= 0:
                _fail(f"seat {owner} owns two plots in district {d} (R11)")
            owned[owner][d] = plot
    if owned != g.owned:
        _fail(f"state.owned {g.owned} does not match the skyscrapers on the board {owned}")
    mask = sum(1 << d for d in range(NUM_DISTRICTS) if g.closed[d])
    if g.closed_mask != mask:
        _fail(f"state.closed_mask {g.closed_mask} does not match state.closed (mask {mask})")
    if g.stops != sum(g.closed):
        _fail(f"state.stops = {g.stops}, but {sum(g.closed)} districts are closed (R24)")
    for d in range(NUM_DISTRICTS):
        if g.closed[d]:
            base = d * PLOTS_PER_DISTRICT
            if any(g.plot_shops[base:base + PLOTS_PER_DISTRICT]) or any(g.plot_height[base:base + PLOTS_PER_DISTRICT]) \
                    or g.markers[0][d] or g.markers[1][d]:
                _fail(f"district {d} is closed but holds shops, skyscrapers or markers (R24)")


def _check_skyscrapers(g) -> None:
    """Each seat's skyscrapers: supply, reserve, board, Central Park, removed, the score marker
    and the starting ones still to place add up to ``skyscrapers_per_color`` (R3, R12); Alea's too."""
    spc = g.config.skyscrapers_per_color
    on_board = [0] * (ALEA + 1)
    for owner, height in zip(g.plot_owner, g.plot_height):
        if height:
            on_board[owner] += height
    for p in range(g.n):
        total = (g.supply[p] + g.reserve[p] + on_board[p] + g.cp_skyscrapers[p] + g.removed_skyscrapers[p]
                 + 1 + g.setup_order.count(p))
        if total != spc:
            _fail(f"seat {p} has {total} skyscrapers (supply, reserve, board, Central Park, removed, score "
                  f"marker, still to place); the config says {spc} (R3, R12)")
    for owner in range(g.n, ALEA):
        if g.removed_skyscrapers[owner]:
            _fail(f"state.removed_skyscrapers[{owner}] must be 0: the game has {g.n} seats")
    alea = g.alea_supply + on_board[ALEA] + g.removed_skyscrapers[ALEA]
    if alea != (spc if g.has_alea else 0):
        _fail(f"Alea has {alea} skyscrapers; it must have {spc if g.has_alea else 0} (R26)")


def _check_flow(g) -> None:
    """The decision asked, its seat, the turn and the end."""
    dec, actor, n = g.decision, g.actor, g.n
    over = dec == GAME_OVER
    if over != (actor == -1):
        _fail(f"state.actor = {actor} in decision '{DECISION_NAMES[dec]}' (-1 exactly when the game is over)")
    if over != (g.terminated or g.truncated) or (g.terminated and g.truncated):
        _fail(f"state.terminated = {g.terminated}, state.truncated = {g.truncated} in decision "
              f"'{DECISION_NAMES[dec]}' (exactly one of them once the game is over)")
    if over != bool(g.winners):
        _fail(f"state.winners = {g.winners}: the winners are known exactly when the game is over")
    if g.winners != sorted(set(g.winners)):
        _fail(f"state.winners = {g.winners} must be distinct seats in increasing order")
    if g.truncated and g.turn != g.config.max_turns or not over and g.turn >= g.config.max_turns:
        _fail(f"state.turn = {g.turn} with max_turns {g.config.max_turns} in decision '{DECISION_NAMES[dec]}'")
    if g.stops >= 2 and not over:
        _fail("two building stops end the game (R27), but it is not over")
    if (dec == PLACE_START_DECISION) != bool(g.setup_order):
        _fail(f"state.setup_order = {g.setup_order} in decision '{DECISION_NAMES[dec]}' "
              "(seats still to place exactly during setup)")
    order = starting_order(g.first_player, n)
    if g.setup_order != order[len(order) - len(g.setup_order):] or g.setup_order and g.turn:
        _fail(f"state.setup_order = {g.setup_order} at turn {g.turn} is not what remains, before turn 0, of the "
              f"starting order {order} (R11)")
    if g.setup_order and actor != g.setup_order[0]:
        _fail(f"state.actor = {actor}, but seat {g.setup_order[0]} places the next starting skyscraper")
    # R11: turns pass clockwise from the first player; truncation ends a turn without passing it on (R29)
    expected_active = (g.first_player + g.turn - g.truncated) % n
    if g.active != expected_active:
        _fail(f"state.active = {g.active}, but turn {g.turn} from state.first_player {g.first_player} is seat "
              f"{expected_active}'s (R11)")
    if dec in (CHOOSE_ACTION_DECISION, SHOP_TILE_DECISION, SHOP_PLOT_DECISION, DRAW_COLOR_DECISION, MOVE_DECISION,
               SCORE_DISTRICT_DECISION) and actor != g.active:
        _fail(f"state.actor = {actor}, but decision '{DECISION_NAMES[dec]}' is the active seat {g.active}'s")
    if (dec == SHOP_PLOT_DECISION) != (g.pending_tile >= 0):
        _fail(f"state.pending_tile = {g.pending_tile} in decision '{DECISION_NAMES[dec]}' "
              "(a tile is pending exactly when its plot is asked)")
    # The turn's action (-1 none yet, 0-3 A-D) and phase that lead to each decision: phase 2 follows
    # A, B and C (R14), a phase-1 move is C's (R20), and its auctions too unless in phase 3.
    if dec in (MOVE_DECISION, BID_DECISION, BUILD_DECISION):
        actions = (0, 1, 2, 3) if g.final_move else (2,)
    else:
        actions = {PLACE_START_DECISION: (-1,), CHOOSE_ACTION_DECISION: (-1,), SHOP_TILE_DECISION: (1,),
                   SHOP_PLOT_DECISION: (1,), DRAW_COLOR_DECISION: (0, 1, 2), SCORE_DISTRICT_DECISION: (3,)}.get(dec)
        if actions is not None and g.final_move:
            _fail(f"state.final_move = True in decision '{DECISION_NAMES[dec]}' (only the phase-3 move and its "
                  "auctions come after it)")
    if actions is not None and g.turn_action not in actions:
        _fail(f"state.turn_action = {g.turn_action} with state.final_move = {g.final_move} in decision "
              f"'{DECISION_NAMES[dec]}'; it must be one of {list(actions)} (-1 none yet, 0-3 actions A-D)")
    if g.first_draw >= 0 and not (dec == DRAW_COLOR_DECISION or g.final_move):
        _fail(f"state.first_draw = {g.first_draw} in decision '{DECISION_NAMES[dec]}' before phase 2 (R14)")
    if over and g.winners != scoring.leaders(g):
        _fail(f"state.winners = {g.winners}, but the leaders by VP, then cards in hand, are "
              f"{scoring.leaders(g)} (R28)")
    _check_scores(g)


def _check_scores(g) -> None:
    """No seat has more VP than the game can give by this turn: every scoring (at most one action D a
    turn, then the final one) gives at most 8 VP per skyscraper (R15, R19, R27); each of the two
    building stops at most 1 VP per skyscraper of up to five owners (R24); special scoring 18 (R17)."""
    spc = g.config.skyscrapers_per_color
    special = sum(vp for _, vp in scoring.SPECIAL_SCORING.values())
    most = 8 * spc * (g.turn + 2) + 2 * (ALEA + 1) * spc + special
    for p, score in enumerate(g.scores):
        if score > most:
            _fail(f"state.scores[{p}] = {score} is more VP than a game can reach by turn {g.turn}: at most "
                  f"{most} with {spc} skyscrapers per color (R15-R19, R24, R27)")


class _AuctionAtRest:
    """What ``auction.clear_auction`` leaves: the auction fields when no auction is on."""

    def __init__(self, n) -> None:
        self.n = n


def _check_auction(g) -> None:
    """The auction on the table (R20-R26, R34-R36)."""
    dec, n = g.decision, g.n
    in_auction = g.auc_loc >= 0
    if dec in (BID_DECISION, BUILD_DECISION) and not in_auction:
        _fail(f"decision '{DECISION_NAMES[dec]}' needs an auction, but state.auc_loc is -1")
    if dec not in (BID_DECISION, BUILD_DECISION) and (in_auction or g.auc_queue):
        _fail(f"an auction (state.auc_loc {g.auc_loc}, state.auc_queue {g.auc_queue}) in decision "
              f"'{DECISION_NAMES[dec]}'")
    if in_auction:
        # R22, R37: fixed when the auction began, and the board does not change before its end
        if g.auc_loc == CENTRAL_PARK:
            allowed, full = [auction.ALL_COLORS] * n, False
        else:
            allowed = [auction.allowed_colors(g, p, g.auc_loc) for p in range(n)]
            full = auction.district_is_full(g, g.auc_loc)
        if g.auc_allowed != allowed or g.auc_full != full:
            _fail(f"state.auc_allowed = {g.auc_allowed} and state.auc_full = {g.auc_full} do not match the "
                  f"board at location {g.auc_loc}: {allowed} and {full} (R22, R37)")
        for p in range(n):
            if g.auc_color[p] >= 0 and not allowed[p] >> g.auc_color[p] & 1:
                _fail(f"state.auc_color[{p}] = {g.auc_color[p]} is not a color seat {p} may bid here (R22)")
        if g.auc_cp_color >= 0 and g.auc_loc != CENTRAL_PARK:
            _fail(f"state.auc_cp_color = {g.auc_cp_color} outside a Central Park auction (R36)")
        if g.auc_comm < 0 or g.comm_pos[g.auc_comm] != CITY_HALL:
            _fail(f"state.auc_comm = {g.auc_comm}: the commissioner that started the auctions stands in City Hall")
        if g.auc_loc < NUM_DISTRICTS and g.closed[g.auc_loc]:
            _fail(f"state.auc_loc = {g.auc_loc} is a closed district")
        if len(set(g.auc_queue)) != len(g.auc_queue) or g.auc_loc in g.auc_queue \
                or any(loc < NUM_DISTRICTS and g.closed[loc] for loc in g.auc_queue):
            _fail(f"state.auc_queue = {g.auc_queue} must list distinct open locations still to auction")
    for p in range(n):
        cards = g.auc_cards[p]
        total = bid_total(cards)
        if g.auc_total[p] != total:
            _fail(f"state.auc_total[{p}] = {g.auc_total[p]}, but the cards laid add up to {total}")
        colored = [k // 3 for k in range(BLACK * 3) if cards[k]]
        paid = p == g.auc_winner  # the winner's cards are paid; their color stays while they build
        if any(c != g.auc_color[p] for c in colored) or (total and not colored) \
                or (g.auc_color[p] >= 0 and not total and not paid):
            _fail(f"state.auc_color[{p}] = {g.auc_color[p]} does not match the cards laid {cards} (R21)")
        if g.auc_passed[p] and total:
            _fail(f"seat {p} passed but still has cards laid (R21)")
        if total and not in_auction:
            _fail(f"seat {p} has cards laid but no auction is on")
    if not in_auction:
        at_rest = _AuctionAtRest(n)
        auction.clear_auction(at_rest)  # type: ignore[arg-type]  # a stand-in with the fields it sets
        for name, value in vars(at_rest).items():
            if name != "n" and getattr(g, name) != value:
                _fail(f"state.{name} = {getattr(g, name)!r} while no auction is on (must be {value!r})")
    if g.auc_alea_state == ALEA_NOT_YET and (g.auc_alea_cards or g.auc_turns >= 2):
        _fail(f"Alea has not bid yet (state.auc_alea_state 0) after {g.auc_turns} bidding turns "
              f"with cards {g.auc_alea_cards} drawn (R25)")
    high, bidder = g.auc_high, g.auc_high_bidder
    if dec == BID_DECISION:
        if g.auc_winner != -1 or g.auc_passed[g.actor]:
            _fail(f"state.actor = {g.actor} bids, but has passed or the auction is won")
        if g.actor == bidder:
            _fail(f"state.actor = {g.actor} bids, but holds the high bid: the others bid or pass first (R21)")
        # R21: every bid confirmed was strictly above the one before; only the bidder's may grow
        for p in range(n):
            total = g.auc_total[p]
            beaten = p not in (bidder, g.actor) and total and total >= high
            if beaten or p == bidder and (total != high or g.auc_passed[p]):
                _fail(f"state.auc_total[{p}] = {total} with state.auc_high = {high} held by "
                      f"state.auc_high_bidder {bidder}: the high bid is its bidder's bid on the table, above "
                      "every other confirmed one (R21)")
        if g.auc_last_bid != [0] * NUM_KINDS or g.auc_bid_color != -1:
            _fail(f"state.auc_last_bid = {g.auc_last_bid}, state.auc_bid_color = {g.auc_bid_color} while bidding: "
                  "they record the winning bid, once the auction is won")
    if dec == BUILD_DECISION:
        if g.auc_winner != g.actor or g.actor < 0 or bidder != g.actor:
            _fail(f"state.auc_winner = {g.auc_winner} builds, but state.actor is {g.actor} and "
                  f"state.auc_high_bidder {bidder}")
        if g.auc_loc != CENTRAL_PARK and (g.auc_bid_color < 0 or not g.auc_allowed[g.actor] >> g.auc_bid_color & 1):
            _fail(f"state.auc_bid_color = {g.auc_bid_color}: the winner builds on the plot of a color they "
                  f"may bid (R22, R23)")
        # R21, R23, R36: the winner's paid cards are their high bid, in their (Central Park's) color
        colors = {k // 3 for k in range(BLACK * 3) if g.auc_last_bid[k]}
        if bid_total(g.auc_last_bid) != high or colors != {g.auc_bid_color} \
                or g.auc_bid_color != g.auc_color[g.actor] \
                or g.auc_loc == CENTRAL_PARK and g.auc_cp_color != g.auc_bid_color:
            _fail(f"state.auc_last_bid = {g.auc_last_bid} in color state.auc_bid_color = {g.auc_bid_color} is not "
                  f"the winner's bid: state.auc_high {high} in their color {g.auc_color[g.actor]} (R21, R23, R36)")
    elif g.auc_winner != -1:
        _fail(f"state.auc_winner = {g.auc_winner} outside decision 'build'")
    if (bidder == ALEA) != (g.auc_alea_state == ALEA_IN):
        _fail(f"state.auc_high_bidder = {bidder} and state.auc_alea_state = {g.auc_alea_state} disagree")
    alea_bid = sum(KIND_VALUE[BLACK * 3 + v] for v in g.auc_alea_cards)
    if bidder == ALEA and high != alea_bid:
        _fail(f"state.auc_high = {high}, but Alea's cards {g.auc_alea_cards} bid {alea_bid} (R25)")
    if bidder == -1 and high:
        _fail(f"state.auc_high = {high} without a high bidder")
