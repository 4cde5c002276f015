"""A seat's readable view of the game: what that seat may know (R30, R31), as plain ints and lists.

Two sources give the same fields (``tests/env/test_seat_view.py`` compares them field by field
and decision by decision over thousands of positions of every configuration):

- :class:`StateView` ``(game, seat)`` reads the engine's state directly. Cheap (a few
  microseconds: fields are read when first used, no observation vector is built), so game
  runners that hold the game (tournaments, the bidding lab, search rollouts, training
  opponents) hand it to agents that have ``act_view`` (``agent_protocol.act``).
- :class:`SeatView` ``(observation, action_mask, config)`` parses an observation vector, for
  those who have only the observation (an env's ``last()``): scripted agents' ``act`` builds it.

Seats are relative, as in the observation: slot 0 is the viewer, then clockwise; owner id 4
is Alea. A view only reads: never change what a field returns (some are the game's own
lists). The view exposes no hidden part: not the other seats' cards beyond their colors and
the cards known exactly, not the piles below their top and known cards, not the generator.
"""

from operator import mul
from typing import TYPE_CHECKING, Any, Callable, Union

import numpy as np

from .engine.auction import ALEA
from .engine.board import (
    NO_PLOT,
    NUM_DISTRICTS,
    NUM_PLOTS,
    PLOTS_PER_DISTRICT,
    POPCOUNT4,
    ROW_SLOTS,
    VP_BY_SHOP_TYPES,
    parse_layout,
    ring_neighbors,
)
from .engine.cards import KIND_VALUE, NUM_COLORS, NUM_KINDS
from .engine.game import GAME_OVER, Game, GameConfig
from .observation import views

NO_OWNER = -1
ALEA_SLOT = 4
# Shops placed / 12 as the observation holds it (float32): the agents were tuned on these values,
# and a threshold they compare with can fall exactly between the float32 and the exact fraction.
_COLORS_IN_MASK = [tuple(c for c in range(NUM_COLORS) if mask >> c & 1) for mask in range(1 << NUM_COLORS)]
_SHOPS_FRACTION = [float(np.float32(k / 12)) for k in range(ROW_SLOTS + 1)]
# [n][seat][owner id]: the relative slot of a seat's owner id (seats 0..n-1, Alea (4) as is, and -1,
# none, at the end: Python's index -1); ids n..3 do not occur with n seats.
_RELATIVE_OWNER = {n: [[(o - seat) % n for o in range(ALEA)] + [ALEA, NO_OWNER] for seat in range(n)]
                   for n in (2, 3, 4)}


class BoardTables:
    """What a configuration fixes about the board (public knowledge)."""

    def __init__(self, config: GameConfig) -> None:
        self.plot_color = parse_layout(config.layout, config.board)
        self.neighbors = ring_neighbors(config.board)
        self.district_plots: list[list[int]] = [[] for _ in range(NUM_DISTRICTS)]  # plots that exist, ring order
        for plot, c in enumerate(self.plot_color):
            d = plot // PLOTS_PER_DISTRICT
            if c != NO_PLOT:
                self.district_plots[d].append(plot)


_TABLES: dict[GameConfig, BoardTables] = {}
# id(config) -> (config, tables): hashing the config dataclass at every view costs more
_TABLES_BY_ID: dict[int, tuple[GameConfig, BoardTables]] = {}
_MAX_CONFIGS = 512


def board_tables(config: GameConfig) -> BoardTables:
    entry = _TABLES_BY_ID.get(id(config))
    if entry is not None and entry[0] is config:
        return entry[1]
    tables = _TABLES.get(config)
    if tables is None:
        tables = _TABLES[config] = BoardTables(config)
    if len(_TABLES_BY_ID) >= _MAX_CONFIGS:
        _TABLES_BY_ID.clear()
    _TABLES_BY_ID[id(config)] = (config, tables)  # the config is kept alive, so its id is not reused
    return tables


# Few boards are worth keeping: a tournament never meets a board again once its plots changed, and a
# search's samples and candidates share the boards of the position searched. Kept long, their memos
# (~20 containers a board) outlive the garbage collector's young generation and make it traverse them
# again and again: a 40-game four-heuristic tournament ran 37-54 young and up to one full collection
# (~11 ms each) with 512 boards, 13-27 with 32 (and its agents' cycle gone): 0.296 -> 0.270 s
# (issue 36, seventh pass; search and labelling were no slower).
_MAX_BOARD_CACHES = 32
_BOARD_CACHES: dict[object, dict[Any, Any]] = {}  # game.plots_token -> what views of those plots share (see StateView)


def _board_cache(game: Game) -> dict[Any, Any]:
    """The dict that views of ``game``'s plots (its ``plots_token``) share. The token is renewed at
    every change of the plots, the stops, the row, the box or the shops placed (not at commissioner
    moves; also by ``Game.touch``), and clones keep it while their plots are the original's, so
    search rollouts share it too. What goes in must depend on nothing else (the seat aside)."""
    cache = _BOARD_CACHES.get(game.plots_token)
    if cache is None:
        if len(_BOARD_CACHES) >= _MAX_BOARD_CACHES:
            _BOARD_CACHES.clear()
        cache = _BOARD_CACHES[game.plots_token] = {}
    return cache


if TYPE_CHECKING:  # the checker knows functools.cached_property; the one below behaves the same
    from functools import cached_property
else:
    class cached_property:
        """``functools.cached_property`` without its lock (Python 3.11 takes one per first read, which
        here costs more than most fields): the value goes into the instance's dict, read from there after."""

        def __init__(self, func: Callable[[Any], Any]) -> None:
            self.func = func
            self.name = func.__name__
            self.__doc__ = func.__doc__

        def __get__(self, obj: Any, cls: type | None = None) -> Any:
            if obj is None:
                return self
            value = obj.__dict__[self.name] = self.func(obj)
            return value


class _Fields:
    """What both views compute the same way from their basic fields."""

    # The basic fields, which each view reads its own way (documented there); read-only.
    config: GameConfig
    n: int
    tables: BoardTables
    if TYPE_CHECKING:
        @property
        def legal(self) -> list[int]: ...

        @property
        def decision(self) -> int: ...

        @property
        def stops(self) -> int: ...

        @property
        def shops_placed(self) -> int: ...

        @property
        def pending_tile(self) -> int: ...

        @property
        def owner(self) -> list[int]: ...

        @property
        def height(self) -> list[int]: ...

        @property
        def shop_mask(self) -> list[int]: ...

        @property
        def shop_count(self) -> list[int]: ...

        @property
        def closed(self) -> list[bool]: ...

        @property
        def commissioner_at(self) -> list[int]: ...

        @property
        def markers(self) -> list[list[bool]]: ...

        @property
        def box_types(self) -> int: ...

        @property
        def box_size(self) -> int: ...

        @property
        def active_tiles(self) -> list[int]: ...

        @property
        def scores(self) -> list[int]: ...

        @property
        def reserve(self) -> list[int]: ...

        @property
        def supply(self) -> list[int]: ...

        @property
        def central_park(self) -> list[int]: ...

        @property
        def hand(self) -> list[int]: ...

        @property
        def known_cards(self) -> list[list[int]]: ...

        @property
        def hand_colors(self) -> list[list[int]]: ...

        @property
        def pile_top(self) -> list[int]: ...

        @property
        def auction_location(self) -> int: ...

        @property
        def auction_full(self) -> bool: ...

        @property
        def high_bid(self) -> int: ...

        @property
        def high_bidder(self) -> int: ...

        @property
        def table_cards(self) -> list[list[int]]: ...

        @property
        def bid_color(self) -> list[int]: ...

        @property
        def allowed_colors(self) -> list[int]: ...

        @property
        def central_park_color(self) -> int: ...

        @property
        def auction_passed(self) -> list[bool]: ...

    # ---- the decision -----------------------------------------------------------------

    @cached_property
    def progress(self) -> float:
        """How far the game is towards its end, 0..1: the larger of shops placed / 12 and stops / 2."""
        return max(self.stops / 2, _SHOPS_FRACTION[self.shops_placed])

    @cached_property
    def progress_shops(self) -> float:
        """Shops placed from the row / 12 (in float32, as the observation has it)."""
        return _SHOPS_FRACTION[self.shops_placed]

    # ---- the board --------------------------------------------------------------------

    @cached_property
    def empty(self) -> list[bool]:
        """Per plot: a colored plot with no skyscraper and no shop (where a new skyscraper may go)."""
        height, count = self.height, self.shop_count
        return [c >= 0 and not height[plot] and not count[plot] for plot, c in enumerate(self.tables.plot_color)]

    def is_empty(self, plot: int) -> bool:
        return self.empty[plot]

    @cached_property
    def district_empty(self) -> list[int]:
        """Per district: its empty plots (``empty``)."""
        empty = self.empty
        return [sum(map(empty.__getitem__, plots)) for plots in self.tables.district_plots]

    @cached_property
    def beside_mask(self) -> list[int]:
        """Per plot: the shop types on its two ring neighbours (what a skyscraper there scores by, R19)."""
        mask = self.shop_mask
        return [mask[pair[0]] | mask[pair[1]] if pair else 0 for pair in self.tables.neighbors]

    @cached_property
    def shop_room(self) -> list[int]:
        """Per plot: the shops it may still take now (2 minus its shops on an open plot with no skyscraper, R17)."""
        height, count, closed, color = self.height, self.shop_count, self.closed, self.tables.plot_color
        return [2 - count[p] if color[p] != NO_PLOT and not closed[p // PLOTS_PER_DISTRICT] and not height[p]
                and count[p] < 2 else 0 for p in range(NUM_PLOTS)]

    @cached_property
    def beside_room(self) -> list[int]:
        """Per plot: ``shop_room`` of its two ring neighbours added (shops that may still come beside it)."""
        room = self.shop_room
        return [room[pair[0]] + room[pair[1]] if pair else 0 for pair in self.tables.neighbors]

    @cached_property
    def memo(self) -> dict[Any, Any]:
        """Scratch space for values that depend only on the board and the game's progress (agents'
        valuations): shared by the state views of one board, this view's own for an observation."""
        return {}

    @cached_property
    def seat_memo(self) -> dict[Any, Any]:
        """Like ``memo``, for values that depend on the board, the progress and the viewer's seat
        (relative values): shared by the state views of one board and seat."""
        return {}

    def plot_value(self, plot: int, extra_shops: tuple[int, int] | None = None) -> int:
        """VP one skyscraper on ``plot`` scores now (R19); ``extra_shops`` = (plot, type) added first."""
        a, b = self.tables.neighbors[plot]
        mask = self.shop_mask[a] | self.shop_mask[b]
        if extra_shops is not None and extra_shops[0] in (a, b):
            mask |= 1 << extra_shops[1]
        return VP_BY_SHOP_TYPES[POPCOUNT4[mask]]

    def district_scores(self, d: int) -> list[int]:
        """VP scoring district ``d`` gives each relative seat now."""
        n = self.n
        scores = [0] * n
        owner, height, shop_mask, neighbors = self.owner, self.height, self.shop_mask, self.tables.neighbors
        for plot in self.tables.district_plots[d]:
            slot = owner[plot]
            if 0 <= slot < n:
                a, b = neighbors[plot]  # self.plot_value(plot), inlined
                scores[slot] += VP_BY_SHOP_TYPES[POPCOUNT4[shop_mask[a] | shop_mask[b]]] * height[plot]
        return scores

    @cached_property
    def open_district_scores(self) -> list[int]:
        """Per relative seat: the VP scoring every open district now would give it."""
        totals = [0] * self.n
        for d in range(NUM_DISTRICTS):
            if not self.closed[d]:
                for slot, vp in enumerate(self.district_scores(d)):
                    totals[slot] += vp
        return totals

    def skyscrapers_in(self, d: int) -> int:
        return sum(map(self.height.__getitem__, self.tables.district_plots[d]))

    def my_plot(self, d: int) -> int:
        """My plot in district ``d``, or -1."""
        return self._my_plots[d]

    @cached_property
    def _my_plots(self) -> list[int]:
        """Per district: my plot there (the first in ring order), or -1."""
        owner, mine = self.owner, [-1] * NUM_DISTRICTS
        plot = -1
        for _ in range(owner.count(0)):
            plot = owner.index(0, plot + 1)
            d = plot // PLOTS_PER_DISTRICT
            if mine[d] < 0:
                mine[d] = plot
        return mine

    def owners_in(self, d: int) -> set[int]:
        return {self.owner[p] for p in self.tables.district_plots[d] if self.owner[p] != NO_OWNER}

    # ---- players ----------------------------------------------------------------------

    @cached_property
    def hand_points(self) -> list[int]:
        """Total card value in each seat's hand, counting unknown cards as 5."""
        return [sum(map(mul, KIND_VALUE, known)) + 5 * (sum(colors) - sum(known))
                for known, colors in zip(self.known_cards, self.hand_colors)]

    @cached_property
    def plots_owned(self) -> list[list[int]]:
        """Per relative seat and district: its plot there (a seat has at most one, R22), or -1."""
        n, owner = self.n, self.owner
        plots = [[-1] * NUM_DISTRICTS for _ in range(n)]
        for d, ring in enumerate(self.tables.district_plots):
            for plot in ring:
                slot = owner[plot]
                if 0 <= slot < n and plots[slot][d] < 0:
                    plots[slot][d] = plot
        return plots

    @cached_property
    def districts_owned(self) -> list[int]:
        """Per relative seat: districts where it has a plot."""
        n, owner = self.n, self.owner
        counts = [0] * n
        for plots in self.tables.district_plots:
            for slot in {owner[p] for p in plots}:
                if 0 <= slot < n:
                    counts[slot] += 1
        return counts

    # ---- the auction ------------------------------------------------------------------

    @cached_property
    def my_table_cards(self) -> list[int]:
        """Cards I have laid in this auction."""
        return self.table_cards[0]

    @cached_property
    def my_bid_color(self) -> int:
        return self.bid_color[0]


class StateView(_Fields):
    """Seat ``seat``'s view of ``game``, read from the engine's state (see the module docstring).

    Take a new one at every decision (it caches what it read). ``legal`` is the game's own list.
    """

    # set at construction (see __init__)
    decision: int
    legal: list[int]
    height: list[int]
    closed: list[bool]
    hand: list[int]
    shop_mask: list[int]
    empty: list[bool]
    district_empty: list[int]
    beside_mask: list[int]
    shop_room: list[int]
    beside_room: list[int]

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self._seat = seat
        self.config = config = game.config
        self.n = game.n
        entry = _TABLES_BY_ID.get(id(config))  # board_tables(config), inlined: a view per decision
        self.tables = entry[1] if entry is not None and entry[0] is config else board_tables(config)
        # The fields every decision reads, set here (an attribute costs less than a first read through
        # cached_property); the engine's own objects, as the properties below return them.
        self.decision = game.decision
        self.legal = game.legal_actions()
        self.height = game.plot_height
        self.closed = game.closed
        self.hand = game.hands[seat]
        # the board state the engine keeps up to date as plots change (Game.BOARD_STATE_FIELDS): read, never rebuilt
        self.shop_mask = game.plot_shop_mask
        self.empty = game.plot_empty
        self.district_empty = game.district_empty
        self.beside_mask = game.plot_beside_mask
        self.shop_room = game.plot_shop_room
        self.beside_room = game.plot_beside_room

    def _slots(self, values: list) -> list:
        """A per-seat list rotated to relative seats (slot 0 = this seat)."""
        seat = self._seat
        return values[seat:] + values[:seat]  # the game's per-seat lists: slices are new lists

    def _slot_of(self, absolute: int) -> int:
        """The relative slot of an absolute seat or owner id (Alea stays 4, -1 stays -1)."""
        if absolute < 0 or absolute == ALEA:
            return absolute
        return (absolute - self._seat) % self.n

    # ---- the decision -----------------------------------------------------------------

    def is_legal(self, action: int) -> bool:
        return action in self.legal

    @cached_property
    def mask(self) -> np.ndarray:
        return self._game.action_mask()

    @property
    def stops(self) -> int:
        return self._game.stops

    @cached_property
    def progress(self) -> float:
        """How far the game is towards its end, 0..1: the larger of shops placed / 12 and stops / 2."""
        g = self._game  # _Fields.progress from the engine's fields
        stops, shops = g.stops / 2, _SHOPS_FRACTION[g.shops_placed]
        return shops if shops > stops else stops  # max(stops, shops), without the call

    @cached_property
    def progress_shops(self) -> float:
        """Shops placed from the row / 12 (in float32, as the observation has it)."""
        return _SHOPS_FRACTION[self._game.shops_placed]

    @property
    def shops_placed(self) -> int:
        return self._game.shops_placed

    @property
    def pending_tile(self) -> int:
        return self._game.pending_tile

    # ---- the board --------------------------------------------------------------------

    @cached_property
    def _board(self) -> dict[Any, Any]:
        cache = _BOARD_CACHES.get(self._game.plots_token)  # _board_cache(game), its common case inlined
        return cache if cache is not None else _board_cache(self._game)

    @cached_property
    def memo(self) -> dict[Any, Any]:
        board = self._board
        memo = board.get("memo")
        if memo is None:
            memo = board["memo"] = {}
        return memo

    @cached_property
    def seat_memo(self) -> dict[Any, Any]:
        board = self.__dict__.get("_board")
        if board is None:  # self._board, inlined (most decisions read the seat's memo only)
            board = _BOARD_CACHES.get(self._game.plots_token)
            if board is None:
                board = _board_cache(self._game)
        key = ("memo", self._seat)
        memo = board.get(key)
        if memo is None:
            memo = board[key] = {}
        return memo

    @cached_property
    def owner(self) -> list[int]:
        """Per plot: the relative seat (0 = me) owning its skyscrapers, 4 for Alea, -1 for none."""
        board, seat = self._board, self._seat
        owner = board.get(seat)
        if owner is None:
            # the engine's owner is -1 exactly where no skyscraper stands (savefile.check_consistency)
            owner = board[seat] = list(map(_RELATIVE_OWNER[self.n][seat].__getitem__, self._game.plot_owner))
        return owner

    def district_scores(self, d: int) -> list[int]:
        """VP scoring district ``d`` gives each relative seat now (the engine keeps them: Game.district_vp)."""
        scores, seat = self._game.district_vp[d], self._seat
        return scores[seat:] + scores[:seat]

    @cached_property
    def open_district_scores(self) -> list[int]:
        """Per relative seat: the VP scoring every open district now would give it."""
        vp, closed = self._game.district_vp, self.closed
        open_vp = []  # (loops and map: a comprehension is a call in Python 3.11)
        for d in range(NUM_DISTRICTS):
            if not closed[d]:
                open_vp.append(vp[d])
        totals = list(map(sum, zip(*open_vp)))
        if not totals:  # every district closed
            return [0] * self.n
        seat = self._seat
        return totals[seat:] + totals[:seat]

    @cached_property
    def _my_plots(self) -> list[int]:
        return self._game.owned[self._seat]

    @cached_property
    def plots_owned(self) -> list[list[int]]:
        """Per relative seat and district: its plot there (a seat has at most one, R22), or -1."""
        return self._slots(self._game.owned)  # the engine's per-seat lists (read only)

    @cached_property
    def districts_owned(self) -> list[int]:
        """Per relative seat: districts where it has a plot."""
        return [NUM_DISTRICTS - owned.count(NO_OWNER) for owned in self.plots_owned]

    @cached_property
    def shop_count(self) -> list[int]:
        board = self._board
        result = board.get("shop_count")
        if result is None:
            result = board["shop_count"] = [len(shops) for shops in self._game.plot_shops]
        return result

    @cached_property
    def commissioner_at(self) -> list[int]:
        return self._game.comm_pos

    @cached_property
    def markers(self) -> list[list[bool]]:
        return self._game.markers

    @cached_property
    def box_types(self) -> int:
        """Distinct shop types in the Central Park box."""
        return len(set(self._game.box))

    @cached_property
    def box_size(self) -> int:
        return len(self._game.box)

    @cached_property
    def active_tiles(self) -> list[int]:
        """Shop types available in the active group of the row."""
        g = self._game
        group = g._active_group()
        if group < 0:
            return []
        tiles = set(g.row[g.group_start[group]:g.group_start[group + 1]])
        tiles.discard(-1)  # a slot whose tile was taken
        return sorted(tiles)

    # ---- players ----------------------------------------------------------------------

    @cached_property
    def scores(self) -> list[int]:
        return self._slots(self._game.scores)

    @cached_property
    def reserve(self) -> list[int]:
        return self._slots(self._game.reserve)

    @cached_property
    def supply(self) -> list[int]:
        return self._slots(self._game.supply)

    @cached_property
    def central_park(self) -> list[int]:
        return self._slots(self._game.cp_skyscrapers)

    @cached_property
    def known_cards(self) -> list[list[int]]:
        """Per relative seat: cards known exactly to be in its hand (my own: my whole hand, R31)."""
        known = self._slots(self._game.known)
        known[0] = self.hand
        return known

    @cached_property
    def hand_colors(self) -> list[list[int]]:
        """Cards in hand per color (black last) for every relative seat (public, R31)."""
        return [[a + b + c for a, b, c in zip(h[0::3], h[1::3], h[2::3])] for h in self._slots(self._game.hands)]

    @cached_property
    def hand_points(self) -> list[int]:
        """Total card value in each seat's hand, counting unknown cards as 5 (a hand's size is public)."""
        g, seat = self._game, self._seat
        hands, known = g.hands, g.known
        points = []
        for s in (*range(seat, self.n), *range(seat)):  # relative seats
            cards = hands[s] if s == seat else known[s]  # (_Fields.hand_points from the engine's lists)
            # every card as a 5, a known 4 one less and a known 6 one more (kinds: color * 3 + value index):
            # the same ints as the known cards' values plus 5 per unknown card, with no products
            points.append(5 * sum(hands[s]) + sum(cards[2::3]) - sum(cards[0::3]))
        return points

    # ---- piles ------------------------------------------------------------------------

    @cached_property
    def pile_top(self) -> list[int]:
        """Per color: the value index of the top card (face up), or -1 for an empty pile."""
        tops = []
        for pile in self._game.piles:
            tops.append(pile[-1] if pile else -1)
        return tops

    # ---- the auction ------------------------------------------------------------------

    def _read_auction(self, name: str) -> Any:
        """Set the auction fields a bid reads, all at once (one call instead of one per field); ``name``'s value."""
        g, seat, fields = self._game, self._seat, self.__dict__
        if g.auc_loc < 0:
            fields.update(auction_location=g.auc_loc, auction_full=False, high_bid=0, my_table_cards=[0] * NUM_KINDS,
                          my_bid_color=-1, allowed_colors=[], central_park_color=-1)
        else:  # (item assignments: cheaper than update's keywords)
            cp_color = g.auc_cp_color
            fields["auction_location"] = g.auc_loc
            fields["auction_full"] = g.auc_full
            fields["high_bid"] = g.auc_high
            fields["my_table_cards"] = g.auc_cards[seat]
            fields["my_bid_color"] = g.auc_color[seat]
            fields["allowed_colors"] = list(_COLORS_IN_MASK[g.auc_allowed[seat] if cp_color < 0 else 1 << cp_color])
            fields["central_park_color"] = cp_color
        return fields[name]

    @cached_property
    def auction_location(self) -> int:
        return self._read_auction("auction_location")

    @cached_property
    def auction_full(self) -> bool:
        return self._read_auction("auction_full")

    @cached_property
    def high_bid(self) -> int:
        return self._read_auction("high_bid")

    @cached_property
    def my_table_cards(self) -> list[int]:
        return self._read_auction("my_table_cards")

    @cached_property
    def my_bid_color(self) -> int:
        return self._read_auction("my_bid_color")

    @cached_property
    def high_bidder(self) -> int:
        return self._slot_of(self._game.auc_high_bidder) if self._game.auc_loc >= 0 else -1

    @cached_property
    def table_cards(self) -> list[list[int]]:
        """Per relative seat: the cards it has laid in this auction."""
        if self._game.auc_loc < 0:
            return [[0] * NUM_KINDS for _ in range(self.n)]
        return self._slots(self._game.auc_cards)

    @cached_property
    def bid_color(self) -> list[int]:
        """Per relative seat: the color it bids in this auction, -1 if none yet."""
        if self._game.auc_loc < 0:
            return [-1] * self.n
        return self._slots(self._game.auc_color)

    @cached_property
    def allowed_colors(self) -> list[int]:
        return self._read_auction("allowed_colors")

    @cached_property
    def central_park_color(self) -> int:
        """The color fixed for Central Park in this auction (R36), -1 if none."""
        return self._read_auction("central_park_color")

    @cached_property
    def auction_passed(self) -> list[bool]:
        if self._game.auc_loc < 0:
            return [False] * self.n
        return self._slots(self._game.auc_passed)


def _one_hot_index(onehot: np.ndarray) -> int:
    """The index set in a one-hot view, -1 when none is."""
    return int(onehot.argmax()) if onehot.any() else -1


def _rounded(array: np.ndarray, scale: float = 1.0) -> list[int]:
    return [int(round(x * scale)) for x in array.tolist()]


class SeatView(_Fields):
    """One seat's observation vector (any layout) read into the same fields as :class:`StateView`.

    Never touches a ``Game``: an agent deciding from it sees exactly what its seat's
    observation holds. ``v``: the named views of the vector (``observation.views``).
    """

    def __init__(self, observation: np.ndarray, action_mask: np.ndarray, config: GameConfig) -> None:
        self.config = config
        self.n = config.num_players
        self.tables = board_tables(config)
        self.v = views(np.asarray(observation))
        self.mask = action_mask

    # ---- the decision -----------------------------------------------------------------

    @cached_property
    def legal(self) -> list[int]:
        return np.flatnonzero(self.mask).tolist()

    def is_legal(self, action: int) -> bool:
        return bool(self.mask[action])

    @cached_property
    def decision(self) -> int:
        onehot = self.v["decision"]
        return int(onehot.argmax()) if onehot.any() else GAME_OVER

    @cached_property
    def stops(self) -> int:
        return int(round(float(self.v["progress"][1]) * 2))

    @cached_property
    def shops_placed(self) -> int:
        return int(round(float(self.v["progress"][2]) * 12))

    @cached_property
    def pending_tile(self) -> int:
        return _one_hot_index(self.v["pending_tile"])

    # ---- the board --------------------------------------------------------------------

    @cached_property
    def owner(self) -> list[int]:
        """Per plot: the relative seat (0 = me) owning its skyscrapers, 4 for Alea, -1 for none."""
        owners = self.v["plot_owner"]
        result = [NO_OWNER] * NUM_PLOTS
        for plot, slot in zip(*np.nonzero(owners)):
            result[int(plot)] = int(slot)
        return result

    @cached_property
    def height(self) -> list[int]:
        return _rounded(self.v["plot_height"])

    @cached_property
    def shop_mask(self) -> list[int]:
        """Per plot: bitmask of the shop types on it."""
        shops = self.v["plot_shops"]
        result = [0] * NUM_PLOTS
        for plot, t in zip(*np.nonzero(shops)):
            result[int(plot)] |= 1 << int(t)
        return result

    @cached_property
    def shop_count(self) -> list[int]:
        return _rounded(self.v["plot_shops"].sum(axis=1))

    @cached_property
    def closed(self) -> list[bool]:
        return [bool(x) for x in self.v["district_closed"].tolist()]

    @cached_property
    def commissioner_at(self) -> list[int]:
        return [int(self.v["commissioner_at"][c].argmax()) for c in (0, 1)]

    @cached_property
    def markers(self) -> list[list[bool]]:
        return [[bool(x) for x in self.v["markers"][c].tolist()] for c in (0, 1)]

    @cached_property
    def box_types(self) -> int:
        """Distinct shop types in the Central Park box."""
        return int((self.v["box"] > 0).sum())

    @cached_property
    def box_size(self) -> int:
        return int(round(float(self.v["box"].sum())))

    @cached_property
    def active_tiles(self) -> list[int]:
        """Shop types available in the active group of the row."""
        row = self.v["row"][self.v["row_active"] > 0]
        return sorted({int(t) for t in np.nonzero(row)[1]})

    # ---- players ----------------------------------------------------------------------

    @cached_property
    def scores(self) -> list[int]:
        return _rounded(self.v["score"][: self.n], 50)

    @cached_property
    def reserve(self) -> list[int]:
        return _rounded(self.v["reserve"][: self.n], 18)

    @cached_property
    def supply(self) -> list[int]:
        return _rounded(self.v["supply"][: self.n], 18)

    @cached_property
    def central_park(self) -> list[int]:
        return _rounded(self.v["central_park"][: self.n])

    @cached_property
    def hand(self) -> list[int]:
        """My hand as 18 counts (kind = color * 3 + value index)."""
        return self.known_cards[0]

    @cached_property
    def known_cards(self) -> list[list[int]]:
        """Per relative seat: cards known exactly to be in its hand (my own: my whole hand, R31)."""
        return [_rounded(row) for row in self.v["known_cards"][: self.n]]

    @cached_property
    def hand_colors(self) -> list[list[int]]:
        """Cards in hand per color (black last) for every relative seat (public, R31)."""
        return [_rounded(row) for row in self.v["hand_colors"][: self.n]]

    # ---- piles ------------------------------------------------------------------------

    @cached_property
    def pile_top(self) -> list[int]:
        """Per color: the value index of the top card, or -1 for an empty pile."""
        tops = self.v["pile_top"]
        return [_one_hot_index(tops[c]) for c in range(NUM_COLORS)]

    # ---- the auction ------------------------------------------------------------------

    @cached_property
    def auction_location(self) -> int:
        return _one_hot_index(self.v["auction_location"])

    @cached_property
    def auction_full(self) -> bool:
        return bool(self.v["auction_full"][0])

    @cached_property
    def high_bid(self) -> int:
        return int(round(float(self.v["high_bid"][0]) * 50))

    @cached_property
    def high_bidder(self) -> int:
        return _one_hot_index(self.v["high_bidder"])

    @cached_property
    def table_cards(self) -> list[list[int]]:
        """Per relative seat: the cards it has laid in this auction."""
        return [_rounded(row) for row in self.v["auction_cards"][: self.n]]

    @cached_property
    def bid_color(self) -> list[int]:
        """Per relative seat: the color it bids in this auction, -1 if none yet."""
        return [_one_hot_index(row) for row in self.v["auction_color"][: self.n]]

    @cached_property
    def allowed_colors(self) -> list[int]:
        return [c for c in range(NUM_COLORS) if self.v["allowed_colors"][c] > 0]

    @cached_property
    def central_park_color(self) -> int:
        """The color fixed for Central Park in this auction (R36), -1 if none."""
        return _one_hot_index(self.v["central_park_color"])

    @cached_property
    def auction_passed(self) -> list[bool]:
        return [bool(x) for x in self.v["auction_passed"][: self.n].tolist()]



View = Union[StateView, SeatView]
"""Either view: what the scripted agents' functions take (they read only the fields both have)."""
