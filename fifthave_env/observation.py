"""The one place that builds observations: a flat float32 vector with named views.

``Observer(config).observe(game, seat)`` writes what ``seat`` may know (R30,
R31) into a vector, relative to that seat: seat slot 0 is the observer, slot 1
the next seat clockwise, and so on; slot 4 of an owner axis is Alea. Seats a
configuration does not have are zero-padded, so the shape is the same for every
configuration. ``views(vector)`` gives named views into any observation vector
(like OpenSpiel's observers).

Layouts (the environments' versions): layout 0 (``fifth_avenue_v0``,
``FifthAvenue-v0``) is ``VIEWS_V0``; layout 1 (``fifth_avenue_v1``,
``FifthAvenue-v1``) appends ``DERIVED_VIEWS``, features a seat could compute from
what it sees (the VP each plot scores, district standings, what the hand lets it
bid...), so a flat network need not rediscover the scoring arithmetic. Layout 1
starts with layout 0, view for view, so ``vector[:OBS_SIZES[0]]`` of a layout-1
observation is its layout-0 observation.

Scaling: counts are raw except where a view's meaning says otherwise (scores and bids
/50, pile sizes /12, the black pile /50, skyscraper stocks /18, turns /max_turns,
plot values /8). The layout table (name, shape, meaning) is ``VIEWS``;
``docs/observation.md`` renders it.

Speed: the observer keeps one *absolute* state vector (every seat's rows in seat
order, the observing seat's private rows beside them) that it updates section by
section, only where the game changed since the last call (the board when the
game's ``board_token`` changes, and of it only the districts that changed; the
piles when its ``cards_token`` changes; a hand when that hand changed, ...); an
observation is then one ``numpy.take`` of that vector through the seat's
precomputed index table, which also does the rotation to relative seats and the
zero padding. Values are written through an ``array.array`` (far cheaper per
element than numpy item assignment) that the numpy vector views; whole rows (a
hand, a bid) through ``struct.pack_into`` on its buffer. (A C version of the hand and
auction rows was removed: it sped no real workload by even 10%, issue 36.)
"""

import array
import os
import struct
import warnings
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from .engine import auction, checks, scoring
from .engine.board import (NUM_DISTRICTS, NUM_LOCATIONS, NUM_PLOTS, NUM_SHOP_TYPES, PLOTS_PER_DISTRICT, SHOP_PLOT,
                           parse_layout)
from .engine.cards import BLACK, NUM_COLORS, NUM_KINDS
from .engine.game import NUM_DECISIONS, Game, GameConfig

MAX_SEATS = 4
OWNERS = MAX_SEATS + 1  # relative seats 0..3, then Alea
NUM_AUCTION_LOCATIONS = NUM_DISTRICTS + 1  # districts, Central Park
ALEA_SLOT = OWNERS - 1
MAX_PLOT_VALUE = 8  # R19: VP of a skyscraper beside all four shop types

# (name, shape, meaning)
VIEWS_V0 = (
    ("decision", (NUM_DECISIONS,), "one-hot: the decision asked now (game.DECISION_NAMES); all zero but 'game over' at the end"),
    ("is_my_decision", (1,), "1 if this seat is asked now"),
    ("turn_action", (4,), "one-hot: A/B/C/D chosen by the active player this turn"),
    ("first_draw", (NUM_COLORS,), "one-hot: the colored pile already drawn from in this phase 2"),
    ("pending_tile", (NUM_SHOP_TYPES,), "one-hot: the shop type taken and not yet placed (action B)"),
    ("final_move", (1,), "1 if the next commissioner move is phase 3 (ends the turn)"),
    ("num_players", (3,), "one-hot: 2, 3 or 4 players"),
    ("six_plot_board", (1,), "1 on the 6-plot board"),
    ("progress", (3,), "turn / max_turns, stops / 2, shops placed from the row / 12"),
    ("plot_exists", (NUM_PLOTS,), "1 where the plot exists on this board (plot = district*6 + position)"),
    ("plot_color", (NUM_PLOTS, NUM_COLORS), "one-hot plot color; all zero for the colorless shop plot"),
    ("plot_shops", (NUM_PLOTS, NUM_SHOP_TYPES), "shops of each type on the plot"),
    ("plot_owner", (NUM_PLOTS, OWNERS), "one-hot owner of the plot's skyscrapers (relative seat, Alea last)"),
    ("plot_height", (NUM_PLOTS,), "skyscrapers on the plot"),
    ("district_closed", (NUM_DISTRICTS,), "1 where a building stop closed the district"),
    ("commissioner_at", (2, NUM_LOCATIONS), "one-hot location of the white and beige commissioner (districts, Central Park, City Hall)"),
    ("markers", (2, NUM_DISTRICTS), "white and beige commissioner markers per district"),
    ("row", (20, NUM_SHOP_TYPES), "one-hot shop type in each slot of the supply row"),
    ("row_active", (20,), "1 for the slots of the active group"),
    ("box", (NUM_SHOP_TYPES,), "shops of each type in the Central Park box"),
    ("pile_size", (NUM_COLORS,), "cards in each colored pile (/12)"),
    ("pile_top", (NUM_COLORS, 3), "one-hot value (4/5/6) of each colored pile's top card"),
    ("pile_known_below", (NUM_COLORS, 3), "cards of each value known to lie below the top (went under face up)"),
    ("black_pile", (2,), "black draw pile size and face-up cards in it (/50)"),
    ("black_seen", (3,), "black cards of each value in the draw pile seen since its last shuffle"),
    ("player_present", (MAX_SEATS,), "1 for seats this configuration has"),
    ("score", (MAX_SEATS,), "victory points (/50; at most 1000, which only stalling for thousands of turns reaches, R29)"),
    ("reserve", (MAX_SEATS,), "skyscrapers in the player's reserve (/18)"),
    ("supply", (MAX_SEATS,), "skyscrapers left in the player's general supply (/18)"),
    ("hand_size", (MAX_SEATS,), "cards in hand"),
    ("central_park", (MAX_SEATS,), "skyscrapers in Central Park"),
    ("is_first_player", (MAX_SEATS,), "one-hot: the starting seat"),
    ("is_actor", (OWNERS,), "one-hot: the seat asked now (Alea never is)"),
    ("hand_colors", (MAX_SEATS, BLACK + 1), "cards in hand per color, black last (public by R31)"),
    ("known_cards", (MAX_SEATS, NUM_KINDS), "cards known exactly to be in the hand (own slot: the whole hand)"),
    ("alea", (2,), "1 if Alea plays, Alea's skyscrapers left (/18)"),
    ("auction_location", (NUM_AUCTION_LOCATIONS,), "one-hot: district or Central Park being auctioned"),
    ("auction_queue", (NUM_AUCTION_LOCATIONS,), "locations still to be auctioned in this set"),
    ("auction_full", (1,), "1 if the district had no empty plot when its auction began (stop possible)"),
    ("auction_passed", (MAX_SEATS,), "1 for seats out of this auction"),
    ("auction_cards", (MAX_SEATS, NUM_KINDS), "cards each seat has laid in this auction"),
    ("auction_total", (MAX_SEATS,), "each seat's bid total (/50)"),
    ("auction_color", (MAX_SEATS, NUM_COLORS), "one-hot color each seat bids"),
    ("high_bid", (1,), "the highest confirmed bid (/50)"),
    ("high_bidder", (OWNERS,), "one-hot: who holds the high bid"),
    ("alea_bid", (4,), "Alea (2 players): one-hot not yet bid / in / out, then Alea's bid total (/50)"),
    ("alea_cards", (3,), "Alea's drawn black cards on the table, per value 4/5/6"),
    ("allowed_colors", (NUM_COLORS,), "colors this seat may open with in this auction (R22)"),
    ("central_park_color", (NUM_COLORS,), "one-hot color fixed for Central Park (R36)"),
    ("winning_bid", (NUM_KINDS,), "the winner's cards while they build"),
)

# Layout 1 adds what a seat could work out from the views above (so nothing hidden, R30, R31).
DERIVED_VIEWS = (
    ("plot_value", (NUM_PLOTS,), "VP one skyscraper on the plot scores at each scoring now, by the shop types beside it (R19; /8); 0 where no skyscraper can stand"),
    ("plot_points", (NUM_PLOTS,), "VP the plot's skyscrapers give their owner if the district is scored now: value x height (/50)"),
    ("district_score", (NUM_DISTRICTS, MAX_SEATS), "VP scoring the district now gives each seat (R19; /50)"),
    ("district_lead", (NUM_DISTRICTS,), "how far this seat is ahead in the district's scoring now: own VP minus the best other seat's, when positive (/50)"),
    ("district_deficit", (NUM_DISTRICTS,), "how far this seat is behind in the district's scoring now: the best other seat's VP minus own, when positive (/50)"),
    ("district_skyscrapers", (NUM_DISTRICTS, OWNERS), "skyscrapers of each owner in the district (relative seat, Alea last)"),
    ("build_value", (NUM_DISTRICTS, MAX_SEATS), "VP per scoring of one more skyscraper the seat builds in the district now: its own plot's value, else the best plot its allowed colors reach (R22; /8); 0 if closed or nowhere to build"),
    ("districts_owned", (MAX_SEATS,), "districts where the seat has a plot (special scoring R17 counts them; /7)"),
    ("central_park_value", (1,), "expected VP of one Central Park skyscraper were the game to end now: the R27 draw from the box as it is (/8)"),
    ("projected_score", (MAX_SEATS,), "VP were the game to end now: score, every open district scored, Central Park at its expected value (R27; /50, at most 1000)"),
    ("bid_power", (NUM_COLORS, 3), "this seat's hand: the largest bid in each color that still builds at least 1/2/3 skyscrapers (colored and black cards of a high enough building limit, an opening card of the color needed, R1, R21; /50)"),
    ("max_bid", (MAX_SEATS, NUM_COLORS), "the most card points each seat could bid in each color from its hand: exact for this seat; for the others the known cards plus 6 for each unknown card of that color or black, 0 without a card of the color (/50)"),
)

LAYOUTS = {0: VIEWS_V0, 1: VIEWS_V0 + DERIVED_VIEWS}
LATEST = max(LAYOUTS)
VIEWS = LAYOUTS[LATEST]

_SHAPES = {name: shape for name, shape, _ in VIEWS}
_OFFSETS = {}
_size = 0
for _name, _shape, _ in VIEWS:
    _n = int(np.prod(_shape))
    _OFFSETS[_name] = (_size, _size + _n)
    _size += _n
OBS_SIZES = {version: sum(int(np.prod(shape)) for _, shape, _ in views) for version, views in LAYOUTS.items()}
OBS_SIZE = OBS_SIZES[LATEST]
OBS_HIGH = 1000.0


def views(vector: np.ndarray) -> dict[str, np.ndarray]:
    """Named views (reshaped, no copy) into an observation vector of any layout."""
    size = len(vector)
    if size not in OBS_SIZES.values():
        raise ValueError(f"an observation has {' or '.join(map(str, sorted(OBS_SIZES.values())))} values "
                         f"(layouts {sorted(OBS_SIZES)}), got {size}")
    return {name: vector[lo:hi].reshape(_SHAPES[name]) for name, (lo, hi) in _OFFSETS.items() if hi <= size}


_O = {name: lo for name, (lo, _) in _OFFSETS.items()}

# The absolute state vector: the observation layout holding every seat's rows in seat
# order (owner axes: seats 0..3, Alea 4), then the rows only their own seat sees, then
# one slot that is always zero (padding).
_HANDS = OBS_SIZE  # MAX_SEATS x NUM_KINDS: whole hands (known_cards slot 0)
_ALLOWED = _HANDS + MAX_SEATS * NUM_KINDS  # MAX_SEATS x NUM_COLORS: allowed_colors
_LEAD = _ALLOWED + MAX_SEATS * NUM_COLORS  # MAX_SEATS x NUM_DISTRICTS: district_lead
_DEFICIT = _LEAD + MAX_SEATS * NUM_DISTRICTS  # MAX_SEATS x NUM_DISTRICTS: district_deficit
_BID_POWER = _DEFICIT + MAX_SEATS * NUM_DISTRICTS  # MAX_SEATS x NUM_COLORS x 3: bid_power
_EXACT_MAX_BID = _BID_POWER + MAX_SEATS * NUM_COLORS * 3  # MAX_SEATS x NUM_COLORS: max_bid slot 0
_ZERO = _EXACT_MAX_BID + MAX_SEATS * NUM_COLORS
_STATE_SIZE = _ZERO + 1

_SEAT_ROWS = ("score", "reserve", "supply", "hand_size", "central_park", "hand_colors", "known_cards",
              "auction_passed", "auction_cards", "auction_total", "auction_color", "max_bid", "districts_owned",
              "projected_score", "is_first_player", "is_actor", "high_bidder")  # first axis: seats (owners)
_SEAT_COLUMNS = ("plot_owner", "district_skyscrapers", "district_score", "build_value")  # last axis: seats
_OWN_ROWS = {"is_my_decision": None, "allowed_colors": _ALLOWED, "district_lead": _LEAD,
             "district_deficit": _DEFICIT, "bid_power": _BID_POWER}  # the observer's own row only
_DECISION_END = _O["final_move"] + 1  # decision, is_my_decision, turn_action, first_draw, pending_tile, final_move
assert _O["decision"] == 0 and _O["is_actor"] == _O["is_first_player"] + MAX_SEATS
_ROUTE = (_O["commissioner_at"], _O["row"])  # commissioner_at, markers
_ROW = (_O["row"], _O["box"] + NUM_SHOP_TYPES)  # row, row_active, box
_AUCTION = (_O["auction_location"], _O["winning_bid"] + NUM_KINDS)  # the auction views, contiguous
_AUCTION_TAIL = (_O["high_bid"], _O["allowed_colors"])  # high_bid .. alea_cards


_SEAT_INDEXES: dict[tuple[int, int], Any] = {}


def _seat_index(n, seat):
    """Indices into the state vector that give ``seat``'s observation (relative seats, padding).

    Built once per (players, seat) and shared (search agents and OpenSpiel states make many
    observers); not flagged read-only, since ``take`` through a read-only index costs 0.5 us more."""
    index = _SEAT_INDEXES.get((n, seat))
    if index is None:
        index = _SEAT_INDEXES[(n, seat)] = _build_seat_index(n, seat)
    return index


def _build_seat_index(n, seat):
    index = np.arange(OBS_SIZE, dtype=np.intp)
    slot_seat = [(seat + i) % n if i < n else -1 for i in range(MAX_SEATS)] + [ALEA_SLOT]

    def remap(name: str, axis_first) -> None:
        lo, hi = _OFFSETS[name]
        shape = _SHAPES[name]
        block = index[lo:hi].reshape(shape)
        source = np.arange(lo, hi).reshape(shape)
        for slot in range(shape[0] if axis_first else shape[-1]):
            target = block[slot, ...] if axis_first else block[..., slot]
            absolute = slot_seat[slot]
            if absolute < 0:
                target[...] = _ZERO
            else:
                target[...] = source[absolute] if axis_first else source[..., absolute]

    for name in _SEAT_ROWS:
        remap(name, True)
    for name in _SEAT_COLUMNS:
        remap(name, False)
    index[_O["is_my_decision"]] = _O["is_actor"] + seat
    index[_O["known_cards"]:_O["known_cards"] + NUM_KINDS] = np.arange(NUM_KINDS) + _HANDS + seat * NUM_KINDS
    index[_O["max_bid"]:_O["max_bid"] + NUM_COLORS] = np.arange(NUM_COLORS) + _EXACT_MAX_BID + seat * NUM_COLORS
    for name, area in _OWN_ROWS.items():
        if area is not None:
            lo, hi = _OFFSETS[name]
            index[lo:hi] = np.arange(hi - lo) + area + seat * (hi - lo)
    return index


# struct's pack_into writes a row of Python numbers straight into the state vector's buffer, cheaper
# than building an array.array to slice-assign (a bid step rewrites a hand row or two)
_PACK_KINDS = struct.Struct(f"{NUM_KINDS}f").pack_into
_PACK_HAND_COLORS = struct.Struct(f"{BLACK + 1}f").pack_into
_PACK_BID_POWER = struct.Struct(f"{NUM_COLORS * 3}f").pack_into
_PACK_COLORS = struct.Struct(f"{NUM_COLORS}f").pack_into
_FLOAT = 4  # bytes per value of the state vector


def _zeros(count: int):
    return array.array("f", bytes(4 * count))


_ZEROS_DECISION = _zeros(_DECISION_END)
_ZEROS_SEATS = _zeros(MAX_SEATS + OWNERS)
_ZEROS_DISTRICT_SHOPS = _zeros(PLOTS_PER_DISTRICT * NUM_SHOP_TYPES)
_ZEROS_DISTRICT_OWNERS = _zeros(PLOTS_PER_DISTRICT * OWNERS)
_ZEROS_DISTRICT_PLOTS = _zeros(PLOTS_PER_DISTRICT)
_ZEROS_ROUTE = _zeros(_ROUTE[1] - _ROUTE[0])
_ZEROS_ROW = _zeros(_ROW[1] - _ROW[0])
_ZEROS_PILE_ROW = _zeros(3)
_ZEROS_AUCTION = _zeros(_AUCTION[1] - _AUCTION[0])
_ZEROS_AUCTION_TAIL = _zeros(_AUCTION_TAIL[1] - _AUCTION_TAIL[0])
_ZEROS_ALLOWED = _zeros(MAX_SEATS * NUM_COLORS)
_NO_CARDS = [0] * NUM_KINDS

_COLOR_ROWS = [array.array("f", [mask >> c & 1 for c in range(NUM_COLORS)]) for mask in range(1 << NUM_COLORS)]


class Observer:
    """Builds the observations of one game configuration in layout ``version``; reuse it across games.

    The default is layout 1 (``LATEST``, with the derived views), the one new runs use; ``version=0`` is
    the first layout, which networks trained on ``FifthAvenue-v0`` read (they keep their input size).
    ``builds`` counts the observations built (tests use it to prove laziness).
    """

    # What the last observation wrote, per section (None: nothing yet), so that the next one rewrites only what
    # changed; declared here for the type checker (_forget sets them).
    _decision_seen: Any
    _progress_seen: Any
    _plots_seen: Any
    _row_seen: Any
    _box_seen: Any
    _scalars_seen: Any
    _piles_seen: list[Any]
    _auction_seen: Any

    def __init__(self, config: GameConfig, version: int = 1) -> None:
        if not isinstance(config, GameConfig):
            raise checks.InvalidTypeError(f"config must be a GameConfig, got {checks.shown(config)}")
        version = checks.choice("observation layout (version)", version, tuple(sorted(LAYOUTS)))
        self.config = config
        self.version = version
        self.size = OBS_SIZES[version]
        self.builds = 0
        self._derived = version >= 1
        n = self.n = config.num_players
        self._index = [_seat_index(n, seat)[:self.size] for seat in range(n)]
        self._state = _zeros(_STATE_SIZE)
        self._write_static()
        self._forget()

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["_vector"]  # a view of _state: rebuilt on unpickling, or it would be a detached copy
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        self._forget()  # what was cached belongs to games of another process: rebuild on first use

    def _forget(self) -> None:
        """Drop every record of what was written: the next observation rewrites all sections."""
        self._vector = np.frombuffer(self._state, dtype=np.float32)
        self._decision_seen = self._actor_seen = self._first_player_seen = self._progress_seen = None
        self._board_token = None
        self._plots_seen = self._row_seen = self._box_seen = None
        self._district_scores = [[0] * self.n for _ in range(NUM_DISTRICTS)]
        self._plot_values = [0] * NUM_PLOTS
        self._cp_value: float = 1
        self._cards_token = None
        self._piles_seen = [None] * NUM_COLORS
        self._scalars_seen = None
        self._hands_seen = [None] * self.n
        self._known_seen = [None] * self.n
        self._own_bids_stale = bytearray(b"\x01" * self.n)
        self._public_bids_stale = bytearray(b"\x01" * self.n)
        self._auction_seen = False  # None: no auction written; else what was, to find what changed

    def _write_static(self) -> None:
        """The parts fixed by the configuration."""
        a = self._state
        n = self.n
        a[_O["num_players"] + n - 2] = 1
        a[_O["six_plot_board"]] = self.config.board == 6
        colors = parse_layout(self.config.layout, self.config.board)
        self._no_skyscraper_plots = [[plot for plot in range(d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT)
                                      if colors[plot] == SHOP_PLOT] for d in range(NUM_DISTRICTS)]
        for plot, c in enumerate(colors):
            a[_O["plot_exists"] + plot] = c != -2
            if c >= 0:
                a[_O["plot_color"] + plot * NUM_COLORS + c] = 1
        for q in range(n):
            a[_O["player_present"] + q] = 1
        a[_O["alea"]] = n == 2

    def observe(self, game: Game, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seat`` as a new array (or written into ``out``)."""
        if seat.__class__ is not int or not 0 <= seat < self.n:  # one cheap test on the hot path
            seat = checks.integer("seat", seat, 0, self.n - 1)  # a numpy int passes; nothing written yet
        self.builds += 1
        g = game
        if g.config is not self.config and g.config != self.config:
            raise ValueError(f"this Observer builds observations for {self.config}, not for a game of {g.config}")
        self._write_decision(g)
        if g.board_token != self._board_token:
            self._write_board(g)
        if g.cards_token is not self._cards_token:
            self._write_cards(g)
        self._write_players(g, seat)
        if g.auc_loc >= 0 or self._auction_seen is not None:
            self._write_auction(g)
        # mode="clip" skips the bounds check ("raise" mode's); the tables hold valid indices only
        if out is None:
            return self._vector.take(self._index[seat], mode="clip")
        return self._vector.take(self._index[seat], out=out, mode="clip")

    # ---- sections of the state vector ------------------------------------------------

    def _write_decision(self, g) -> None:
        """What changes at nearly every decision: the decision, the actor, the turn's progress.

        Of these, a bid step changes only the actor: each part is rewritten only when it changed."""
        a = self._state
        decision = (g.decision, g.turn_action, g.first_draw, g.pending_tile, g.final_move)
        if decision != self._decision_seen:
            self._decision_seen = decision
            a[:_DECISION_END] = _ZEROS_DECISION  # decision .. final_move
            if g.decision < NUM_DECISIONS:
                a[g.decision] = 1  # decision is the first view
            if g.turn_action >= 0:
                a[_O["turn_action"] + g.turn_action] = 1
            if g.first_draw >= 0:
                a[_O["first_draw"] + g.first_draw] = 1
            if g.pending_tile >= 0:
                a[_O["pending_tile"] + g.pending_tile] = 1
            if g.final_move:
                a[_O["final_move"]] = 1
        if g.actor != self._actor_seen or g.first_player != self._first_player_seen:
            self._actor_seen, self._first_player_seen = g.actor, g.first_player
            fp = _O["is_first_player"]
            a[fp:fp + MAX_SEATS + OWNERS] = _ZEROS_SEATS  # is_first_player, is_actor
            a[fp + g.first_player] = 1
            if g.actor >= 0:
                a[_O["is_actor"] + g.actor] = 1
        progress = (g.turn, g.stops, g.shops_placed, g.alea_supply)
        if progress != self._progress_seen:
            self._progress_seen = progress
            p = _O["progress"]
            a[p] = g.turn / g.config.max_turns
            a[p + 1] = g.stops / 2
            a[p + 2] = g.shops_placed / 12
            a[_O["alea"] + 1] = g.alea_supply / 18

    def _write_board(self, g) -> None:
        """Plots, districts, commissioners, markers, row and box (and the derived board views).

        Called when the game's ``board_token`` changed; of its parts only those that changed
        are rewritten (a commissioner move, the most frequent, touches no plot)."""
        self._board_token = g.board_token
        a = self._state
        lo, hi = _ROUTE
        a[lo:hi] = _ZEROS_ROUTE
        ca, mk = _O["commissioner_at"], _O["markers"]
        a[ca + g.comm_pos[0]] = 1
        a[ca + NUM_LOCATIONS + g.comm_pos[1]] = 1
        a[mk:mk + 2 * NUM_DISTRICTS] = array.array("f", g.markers[0] + g.markers[1])  # bools: 0.0 / 1.0
        seen = self._plots_seen
        height, owner, shops, closed = g.plot_height, g.plot_owner, g.plot_shops, g.closed
        if seen is None or seen[0] != height or seen[1] != owner or seen[2] != shops or seen[3] != closed:
            # a build, a shop or a stop changes one district: only its rows are rewritten
            seen_height, seen_owner, seen_shops, seen_closed = (  # type: Any, Any, Any, Any
                seen or (None, None, None, None))
            self._plots_seen = (height[:], owner[:], [plot_shops[:] for plot_shops in shops], closed[:])
            for d in range(NUM_DISTRICTS):
                lo, hi = d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT
                if (seen is None or seen_closed[d] != closed[d] or seen_height[lo:hi] != height[lo:hi]
                        or seen_owner[lo:hi] != owner[lo:hi] or seen_shops[lo:hi] != shops[lo:hi]):
                    self._write_district(g, d)
            if self._derived:
                self._write_district_totals(g)
        if self._row_seen != g.row or self._box_seen != g.box:
            self._row_seen, self._box_seen = g.row[:], g.box[:]
            self._write_row(g)

    def _write_district(self, g, d) -> None:
        """District ``d``'s plots (shops, owners, heights), whether it is closed, and its derived views."""
        a = self._state
        lo, hi = d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT
        sh, ow, ht = _O["plot_shops"], _O["plot_owner"], _O["plot_height"]
        a[sh + lo * NUM_SHOP_TYPES:sh + hi * NUM_SHOP_TYPES] = _ZEROS_DISTRICT_SHOPS
        a[ow + lo * OWNERS:ow + hi * OWNERS] = _ZEROS_DISTRICT_OWNERS
        a[ht + lo:ht + hi] = _ZEROS_DISTRICT_PLOTS
        height, owner = g.plot_height, g.plot_owner
        for plot in range(lo, hi):
            for t in g.plot_shops[plot]:
                a[sh + plot * NUM_SHOP_TYPES + t] += 1
            if height[plot]:
                a[ow + plot * OWNERS + owner[plot]] = 1
                a[ht + plot] = height[plot]
        a[_O["district_closed"] + d] = 1 if g.closed[d] else 0
        if self._derived:
            self._write_district_derived(g, d)

    def _write_district_derived(self, g, d) -> None:
        """District ``d``'s derived views: plot values and points, skyscrapers, scores, leads, build values."""
        a = self._state
        n = g.n
        lo, hi = d * PLOTS_PER_DISTRICT, (d + 1) * PLOTS_PER_DISTRICT
        values = self._plot_values
        values[lo:hi] = scoring.district_plot_values(g, d)
        for plot in self._no_skyscraper_plots[d]:
            values[plot] = 0  # the colorless shop plot takes no skyscraper
        pv, pp, sk = _O["plot_value"], _O["plot_points"], _O["district_skyscrapers"] + d * OWNERS
        a[pv + lo:pv + hi] = array.array("f", [value / MAX_PLOT_VALUE for value in values[lo:hi]])
        a[pp + lo:pp + hi] = _ZEROS_DISTRICT_PLOTS
        a[sk:sk + OWNERS] = _ZEROS_DISTRICT_OWNERS[:OWNERS]
        height, owner = g.plot_height, g.plot_owner
        for plot in range(lo, hi):
            if height[plot]:
                a[pp + plot] = values[plot] * height[plot] / 50
                a[sk + owner[plot]] += height[plot]
        ds, bv = _O["district_score"] + d * MAX_SEATS, _O["build_value"] + d * MAX_SEATS
        a[ds:ds + MAX_SEATS] = a[bv:bv + MAX_SEATS] = _ZEROS_DISTRICT_OWNERS[:MAX_SEATS]
        scores = self._district_scores[d] = scoring.district_scores(g, d, values)
        top = max(scores)
        ranked = sorted(scores, reverse=True)
        for q in range(n):
            mine = scores[q]
            best_other = ranked[1] if mine == top else top
            a[ds + q] = mine / 50
            a[_LEAD + q * NUM_DISTRICTS + d] = (mine - best_other) / 50 if mine > best_other else 0
            a[_DEFICIT + q * NUM_DISTRICTS + d] = (best_other - mine) / 50 if best_other > mine else 0
        if g.closed[d]:
            return
        owned = g.owned
        newcomer_best = None  # a seat without a plot here may build where any other such seat may (R22)
        for q in range(n):
            own = owned[q][d]
            if own >= 0:
                best = values[own]
            else:
                if newcomer_best is None:
                    colors = auction.allowed_colors(g, q, d)
                    plots = g.color_plot[d]
                    newcomer_best = max([values[plots[c]] for c in range(NUM_COLORS) if colors >> c & 1],
                                        default=0)
                best = newcomer_best
            a[bv + q] = best / MAX_PLOT_VALUE

    def _write_district_totals(self, g) -> None:
        """What sums over districts: the districts each seat owns a plot in, its projected score."""
        a, do = self._state, _O["districts_owned"]
        owned = g.owned
        for q in range(g.n):
            a[do + q] = (NUM_DISTRICTS - owned[q].count(-1)) / NUM_DISTRICTS
        self._write_projected(g)

    def _write_row(self, g) -> None:
        a = self._state
        lo, hi = _ROW
        a[lo:hi] = _ZEROS_ROW
        row = _O["row"]
        for s, t in enumerate(g.row):
            if t >= 0:
                a[row + s * NUM_SHOP_TYPES + t] = 1
        grp = g._active_group()
        if grp >= 0:
            for s in range(g.group_start[grp], g.group_start[grp + 1]):
                a[_O["row_active"] + s] = 1
        box = _O["box"]
        for t in g.box:
            a[box + t] += 1
        if self._derived:
            self._cp_value = expected_central_park_value(g.box)
            a[_O["central_park_value"]] = self._cp_value / MAX_PLOT_VALUE
            self._write_projected(g)

    def _write_projected(self, g) -> None:
        a, ps = self._state, _O["projected_score"]
        for q, district_total in enumerate(map(sum, zip(*self._district_scores))):  # per seat, over districts
            a[ps + q] = min((g.scores[q] + district_total + self._cp_value * g.cp_skyscrapers[q]) / 50, OBS_HIGH)

    def _write_cards(self, g) -> None:
        """Colored piles and the black pile (called when the game's ``cards_token`` changed).

        A draw changes one pile: only the colored piles that changed are rewritten."""
        self._cards_token = g.cards_token
        a = self._state
        size, top, below = _O["pile_size"], _O["pile_top"], _O["pile_known_below"]
        seen = self._piles_seen
        for c in range(NUM_COLORS):
            pile, known = g.piles[c], g.pile_known[c]
            if seen[c] is not None and seen[c][1] == known and seen[c][0] == pile:
                continue
            seen[c] = (pile[:], known)
            a[size + c] = len(pile) / 12
            a[top + c * 3:top + c * 3 + 3] = a[below + c * 3:below + c * 3 + 3] = _ZEROS_PILE_ROW
            if pile:
                a[top + c * 3 + pile[-1]] = 1
                for value in pile[: min(known, len(pile) - 1)]:
                    a[below + c * 3 + value] += 1
        bp, bs = _O["black_pile"], _O["black_seen"]
        a[bp] = len(g.black) / 50
        a[bp + 1] = g.black_faceup / 50
        a[bs], a[bs + 1], a[bs + 2] = g.black_seen

    def _write_players(self, g, seat) -> None:
        """Scores, skyscraper stocks and hands, each seat's rows when they changed."""
        a = self._state
        n = g.n
        seen = self._scalars_seen
        if (seen is None or seen[0] != g.scores or seen[1] != g.reserve or seen[2] != g.supply
                or seen[3] != g.cp_skyscrapers):
            self._scalars_seen = (g.scores[:], g.reserve[:], g.supply[:], g.cp_skyscrapers[:])
            sc, rs, su, cp = _O["score"], _O["reserve"], _O["supply"], _O["central_park"]
            for q in range(n):
                a[sc + q] = min(g.scores[q] / 50, OBS_HIGH)  # inside the declared Box however long a game stalls
                a[rs + q] = g.reserve[q] / 18
                a[su + q] = g.supply[q] / 18
                a[cp + q] = g.cp_skyscrapers[q]
            if self._derived:
                self._write_projected(g)
        self._write_hands(g, seat)

    def _write_hands(self, g, seat) -> None:
        """Hands (the seat's own, their colors and sizes), known cards, and the bid rows they determine."""
        a = self._state
        n = g.n
        hands_seen, known_seen = self._hands_seen, self._known_seen
        hands, knowns = g.hands, g.known
        # most decisions change no card, a bid step one hand: comparisons of all hands (in C) skip the loops
        if hands != hands_seen:
            for q in range(n):
                hand = hands[q]
                if hand != hands_seen[q]:
                    hands_seen[q] = hand[:]
                    _PACK_KINDS(a, (_HANDS + q * NUM_KINDS) * _FLOAT, *hand)
                    c0, c1, c2 = hand[0] + hand[1] + hand[2], hand[3] + hand[4] + hand[5], hand[6] + hand[7] + hand[8]
                    c3, c4 = hand[9] + hand[10] + hand[11], hand[12] + hand[13] + hand[14]
                    c5 = hand[15] + hand[16] + hand[17]
                    _PACK_HAND_COLORS(a, (_O["hand_colors"] + q * (BLACK + 1)) * _FLOAT, c0, c1, c2, c3, c4, c5)
                    a[_O["hand_size"] + q] = c0 + c1 + c2 + c3 + c4 + c5
                    self._own_bids_stale[q] = self._public_bids_stale[q] = True
        if knowns != known_seen:
            for q in range(n):
                known = knowns[q]
                if known != known_seen[q]:
                    known_seen[q] = known[:]
                    _PACK_KINDS(a, (_O["known_cards"] + q * NUM_KINDS) * _FLOAT, *known)
                    self._public_bids_stale[q] = True
        if self._derived:  # each seat's own bid rows only it sees, the public ones only the others: when asked
            if self._own_bids_stale[seat]:
                self._write_own_bids(seat, hands[seat])
            stale = self._public_bids_stale
            if True in stale:
                for q in range(n):
                    if stale[q] and q != seat:
                        self._write_public_bids(q, hands[q], knowns[q])

    def _write_own_bids(self, q, hand) -> None:
        """bid_power and max_bid (exact) of seat ``q``, from its hand."""
        self._own_bids_stale[q] = False
        a = self._state
        power = bid_power(hand, 50)
        _PACK_BID_POWER(a, (_BID_POWER + q * NUM_COLORS * 3) * _FLOAT, *power)
        _PACK_COLORS(a, (_EXACT_MAX_BID + q * NUM_COLORS) * _FLOAT, *power[::3])

    def _write_public_bids(self, q, hand, known) -> None:
        """max_bid of seat ``q`` as the others see it: known cards, 6 for each unknown card (R31 counts)."""
        self._public_bids_stale[q] = False
        a = self._state
        # known cards count at their value, unknown ones at 6: 6 x count - 2 x known 4s - known 5s
        k = BLACK * 3
        black = 6 * (hand[k] + hand[k + 1] + hand[k + 2]) - 2 * known[k] - known[k + 1]
        values = []
        for k in range(0, BLACK * 3, 3):
            count = hand[k] + hand[k + 1] + hand[k + 2]  # public: the color count (R31)
            values.append((6 * count - 2 * known[k] - known[k + 1] + black) / 50 if count else 0)
        _PACK_COLORS(a, (_O["max_bid"] + q * NUM_COLORS) * _FLOAT, *values)

    def _write_auction(self, g) -> None:
        """The auction on the table (all zero when there is none); of a running one, what changed."""
        a = self._state
        if g.auc_loc < 0:
            lo, hi = _AUCTION
            a[lo:hi] = _ZEROS_AUCTION
            a[_ALLOWED:_ALLOWED + MAX_SEATS * NUM_COLORS] = _ZEROS_ALLOWED
            self._auction_seen = None
            return
        n = g.n
        seen = self._auction_seen
        cp = g.auc_cp_color
        if (not seen or seen[0] != g.auc_loc or seen[1] != g.auc_queue or seen[2] != g.auc_allowed
                or seen[3] != cp or seen[4] != g.auc_full):
            # a new auction (or the Central Park color fixed): everything is rewritten
            # the seat rows as zeroed: passed, color, cards (the loop below writes what differs)
            seen = self._auction_seen = [g.auc_loc, g.auc_queue[:], g.auc_allowed[:], cp, g.auc_full,
                                         [False] * n, [-1] * n, [_NO_CARDS] * n, None]
            lo, hi = _AUCTION
            a[lo:hi] = _ZEROS_AUCTION
            a[_ALLOWED:_ALLOWED + MAX_SEATS * NUM_COLORS] = _ZEROS_ALLOWED
            a[_O["auction_location"] + g.auc_loc] = 1
            for loc in g.auc_queue:
                a[_O["auction_queue"] + loc] = 1
            if g.auc_full:
                a[_O["auction_full"]] = 1
            for q in range(n):
                allowed = g.auc_allowed[q] if cp < 0 else 1 << cp
                a[_ALLOWED + q * NUM_COLORS:_ALLOWED + (q + 1) * NUM_COLORS] = _COLOR_ROWS[allowed]
            if cp >= 0:
                a[_O["central_park_color"] + cp] = 1
        passed, colors, cards, tail = seen[5:]
        ap, ac, at, acol = _O["auction_passed"], _O["auction_cards"], _O["auction_total"], _O["auction_color"]
        now_passed, now_cards, now_colors = g.auc_passed, g.auc_cards, g.auc_color
        for q in range(n):
            if now_passed[q] != passed[q]:
                passed[q] = now_passed[q]
                a[ap + q] = 1 if passed[q] else 0
            if now_cards[q] != cards[q]:  # the total is the cards' sum: it changes with them
                cards[q] = now_cards[q][:]
                a[at + q] = g.auc_total[q] / 50
                _PACK_KINDS(a, (ac + q * NUM_KINDS) * _FLOAT, *cards[q])  # all zero when the seat passed
            if now_colors[q] != colors[q]:
                if colors[q] >= 0:
                    a[acol + q * NUM_COLORS + colors[q]] = 0
                colors[q] = now_colors[q]
                if colors[q] >= 0:
                    a[acol + q * NUM_COLORS + colors[q]] = 1
        if (tail is None or tail[0] != g.auc_high or tail[1] != g.auc_high_bidder or tail[2] != g.auc_alea_state
                or tail[3] != g.auc_winner or tail[4] != g.auc_alea_cards or tail[5] != g.auc_last_bid):
            seen[8] = (g.auc_high, g.auc_high_bidder, g.auc_alea_state, g.auc_winner, g.auc_alea_cards[:],
                       g.auc_last_bid[:])
            self._write_auction_tail(g)

    def _write_auction_tail(self, g) -> None:
        """The high bid and its holder, Alea's bid, the winner's cards."""
        a = self._state
        lo, hi = _AUCTION_TAIL
        a[lo:hi] = _ZEROS_AUCTION_TAIL
        a[_O["high_bid"]] = g.auc_high / 50
        if g.auc_high_bidder >= 0:
            a[_O["high_bidder"] + g.auc_high_bidder] = 1
        if g.has_alea:
            a[_O["alea_bid"] + g.auc_alea_state] = 1
            a[_O["alea_bid"] + 3] = sum(4 + x for x in g.auc_alea_cards) / 50
            for x in g.auc_alea_cards:
                a[_O["alea_cards"] + x] += 1
        b = _O["winning_bid"]
        a[b:b + NUM_KINDS] = array.array("f", g.auc_last_bid) if g.auc_winner >= 0 else _ZEROS_AUCTION[:NUM_KINDS]


def bid_power(hand: Sequence[int], scale: float = 1) -> list[float]:
    """Per color, then per build count 1/2/3: the largest bid total ``hand`` allows (R1, R21), / ``scale``.

    A bid of color c is cards of color c and black cards, opened with a card of color c;
    building b skyscrapers needs every card's building limit to be at least b (a "4"
    builds 3, a "5" 2, a "6" 1). 0 where no opening card of that limit exists. A flat
    list, color-major (color * 3 + b - 1).
    """
    k = BLACK * 3
    black3 = 4 * hand[k]
    black2 = black3 + 5 * hand[k + 1]
    black1 = black2 + 6 * hand[k + 2]
    power: list[float] = []
    for k in range(0, BLACK * 3, 3):
        fours, fives, sixes = hand[k], hand[k + 1], hand[k + 2]
        limit3 = 4 * fours
        limit2 = limit3 + 5 * fives
        power += ((limit2 + 6 * sixes + black1) / scale if fours or fives or sixes else 0,
                  (limit2 + black2) / scale if fours or fives else 0,
                  (limit3 + black3) / scale if fours else 0)
    return power


_CP_VALUES: dict[Any, Any] = {}


def expected_central_park_value(box: Iterable[int]) -> float:
    """Expected VP of one Central Park skyscraper with ``box`` drawn from at the end (R27: up to 3 tiles)."""
    key = tuple(sorted(box))
    value = _CP_VALUES.get(key)
    if value is None:
        draws = list(combinations(key, min(3, len(key))))
        value = _CP_VALUES[key] = sum(scoring.central_park_value(d) for d in draws) / len(draws)
    return value
