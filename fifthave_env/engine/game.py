"""The game coordinator: setup, the turn's decisions, and moving between them.

:class:`Game` holds the whole state in plain lists and ints (JSON-native), asks
one seat at a time for one action id (``legal_actions()`` / ``apply()``), and
leaves the details to the role modules: :mod:`cards`, :mod:`board`,
:mod:`auction`, :mod:`scoring`. It imports no RL library; its only randomness
is the ``numpy.random.Generator`` it is given.
"""

import copy
from itertools import compress
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from . import auction, checks, savefile, scoring
from .actions import (
    BID_ADD,
    BID_CONFIRM,
    BID_PASS,
    BUILD,
    CHOOSE_ACTION,
    DECLARE_STOP,
    DRAW_COLOR,
    MOVE,
    NUM_ACTIONS,
    PLACE_START,
    SCORE_DISTRICT,
    SHOP_PLOT,
    SHOP_TILE,
    ActionLike,
    IllegalActionError,
    action_name,
    action_names,
    as_action_id,
)
from .auction import ALEA
from .board import (
    CENTRAL_PARK,
    CITY_HALL,
    NO_PLOT,
    NUM_DISTRICTS,
    NUM_LOCATIONS,
    NUM_PLOTS,
    NUM_SHOP_TYPES,
    PLOTS_PER_DISTRICT,
    POPCOUNT4,
    ROW_SLOTS,
    SHOP_PLOT as SHOP_PLOT_COLOR,
    SHOPS_PER_TYPE,
    VP_BY_SHOP_TYPES,
    default_layout,
    destinations,
    parse_layout,
    ring_neighbors,
)
from .cards import BLACK, FACE_UP, NUM_COLORS, NUM_KINDS, SEEN_FACE_DOWN, new_black_pile, new_colored_piles
from .decisions import (  # noqa: F401  (re-exported: game.BID_DECISION etc.)
    BID_DECISION,
    BUILD_DECISION,
    CHOOSE_ACTION_DECISION,
    DECISION_NAMES,
    DRAW_COLOR_DECISION,
    GAME_OVER,
    MOVE_DECISION,
    NUM_DECISIONS,
    PLACE_START_DECISION,
    SCORE_DISTRICT_DECISION,
    SHOP_PLOT_DECISION,
    SHOP_TILE_DECISION,
    starting_order,
)

ACTION_A, ACTION_B, ACTION_C, ACTION_D = 0, 1, 2, 3
MAX_SKYSCRAPERS_PER_COLOR = 100
# A game ends in about a hundred turns; the cap keeps every count a game can reach (scores grow
# with the turns) a finite float in observations.
MAX_TURNS = 1_000_000
# Decisions that may change the board, the commissioners, the markers, the row or the box
# (what observers cache per board_token); an auction's end also renews the token. A token is
# a fresh object() compared by identity, never a counter: a counter restarts in every
# process, so a game unpickled elsewhere could carry the token of another board there.
# ``cards_token`` likewise changes wherever a card enters or leaves a pile (the piles, what
# is known of them, the black pile). ``plots_token`` changes with the board_token except at
# commissioner moves: it marks the plots, the shops, the stops, the row and the box, what the
# scripted agents' valuations read (agents cache them per plots_token, fifthave_env.seat_view).
_BOARD_DECISIONS = frozenset((PLACE_START_DECISION, SHOP_TILE_DECISION, SHOP_PLOT_DECISION, MOVE_DECISION,
                              BUILD_DECISION))

_NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)

# What ``Game.clone`` does with each field (together: the config tables, the tokens and
# ``savefile.STATE_FIELDS``): the immutable ones are shared, the lists copied, the lists of
# lists copied one level deeper (their items are ints and bools).
_SHARED_FIELDS = (
    "config", "n", "has_alea", "plot_color", "_action_names", "neighbors", "color_plot", "shop_plot_of",
    "group_start", "board_token", "plots_token", "cards_token",
    "closed_mask", "removed_shops", "shops_placed", "pending_tile", "black_faceup", "alea_supply", "stops",
    "first_player", "turn", "active", "turn_action", "first_draw", "final_move", "auc_comm", "auc_loc", "auc_full",
    "auc_high", "auc_high_bidder", "auc_turns", "auc_alea_state", "auc_cp_color", "auc_winner", "auc_bid_color",
    "terminated", "truncated", "decision", "actor",
)
_LIST_FIELDS = (
    "plot_shop_mask", "plot_beside_mask", "plot_shop_room", "plot_beside_room", "plot_empty", "district_empty",
    "plot_owner", "plot_height", "closed", "comm_pos", "row", "unused_tiles", "box", "pile_known", "black",
    "black_seen", "scores", "reserve", "supply", "cp_skyscrapers", "removed_skyscrapers", "setup_order", "auc_queue",
    "auc_allowed", "auc_passed", "auc_color", "auc_total", "auc_alea_cards", "auc_last_bid", "central_park_draw",
    "winners",
)
_NESTED_LIST_FIELDS = ("plot_shops", "markers", "piles", "hands", "known", "owned", "auc_cards", "district_vp")
# The derived board state (public, R30): what scoring, the legal actions and the scripted agents' valuations
# read per plot, kept up to date by the engine where a plot changes (a few list writes: _board_built,
# _board_shop; a building stop redoes its district) instead of being rebuilt by every reader of a new
# board (issue 36). Never saved: ``touch`` rebuilds it from the saved fields (so does ``from_dict``);
# tests/engine/test_board_state.py compares it with a recomputation after every step of random games.
BOARD_STATE_FIELDS = ("plot_shop_mask", "plot_beside_mask", "plot_shop_room", "plot_beside_room", "plot_empty",
                      "district_empty", "district_vp")


# seeds a clone's new generator before it takes the original's state: not the OS's entropy (twice the
# cost), and hashed once, not at every clone
_SCRATCH_SEED = np.random.SeedSequence(0)


@dataclass(frozen=True)
class GameConfig:
    """Everything that fixes a game besides the seed."""

    num_players: int = 4
    """2, 3 or 4 seats; with 2, Alea joins every auction (R25)."""
    board: int = 5
    """Plots per district: 5, or 6 for the board's back side (R8)."""
    layout: tuple | None = None
    """Ring order of plot colors per district (R7); None takes the default for ``board``."""
    row_groups: tuple = (3, 2, 3, 2, 3, 2, 3, 2)
    """Sizes of the shop row's groups, left to right (R9)."""
    skyscrapers_per_color: int = 18
    """Skyscrapers of one color in the box (R3); Alea's supply too. At most 100, so that every
    observation stays inside the declared ``Box(0, 1000)``."""
    random_start: bool = False
    """Draw the starting seat at random instead of seat 0 (R11)."""
    max_turns: int = 300
    """Truncate after this many turns (R29), at most 1,000,000; a turn is one player's A/B/C/D."""

    def __post_init__(self) -> None:
        # The one check of a config (engine.checks): exact types, each error names the field.
        num_players = checks.choice("num_players", self.num_players, (2, 3, 4))
        board = checks.choice("board", self.board, (5, 6))
        groups = [checks.integer(f"row_groups[{i}]", size, 1, ROW_SLOTS)
                  for i, size in enumerate(checks.sequence("row_groups", self.row_groups))]
        if sum(groups) != ROW_SLOTS:
            raise checks.InvalidValueError(f"row_groups must be positive sizes adding up to {ROW_SLOTS} tiles, "
                                           f"got {self.row_groups!r}")
        skyscrapers = checks.integer("skyscrapers_per_color", self.skyscrapers_per_color, 6,
                                     MAX_SKYSCRAPERS_PER_COLOR)
        random_start = checks.boolean("random_start", self.random_start)
        max_turns = checks.integer("max_turns", self.max_turns, 1, MAX_TURNS)
        layout = self.layout if self.layout is not None else default_layout(board)
        parse_layout(layout, board)  # raises a clear error for a bad layout
        # plain values (a numpy color id becomes an int), so that to_dict is JSON data
        layout = tuple(tuple(int(c) if checks.is_int(c) else c for c in ring) for ring in layout)
        for name, value in (("num_players", num_players), ("board", board), ("row_groups", tuple(groups)),
                            ("skyscrapers_per_color", skyscrapers), ("random_start", random_start),
                            ("max_turns", max_turns), ("layout", layout)):
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["layout"] = [list(r) for r in d["layout"]]
        d["row_groups"] = list(self.row_groups)
        return d


class Game:
    """One game of Fifth Avenue. Build with ``Game(config, seed)`` or ``Game.from_dict``."""

    # The auction's state, set by auction.clear_auction and open_auction (declared here for the type checker)
    auc_loc: int
    auc_full: bool
    auc_allowed: list[int]
    auc_passed: list[bool]
    auc_cards: list[list[int]]
    auc_color: list[int]
    auc_total: list[int]
    auc_high: int
    auc_high_bidder: int
    auc_turns: int
    auc_alea_cards: list[int]
    auc_alea_state: int
    auc_cp_color: int
    auc_winner: int
    auc_last_bid: list[int]
    auc_bid_color: int

    def __init__(self, config: GameConfig | None = None, seed: int | None = None,
                 rng: np.random.Generator | None = None) -> None:
        if config is not None and not isinstance(config, GameConfig):
            raise checks.InvalidTypeError(f"config must be a GameConfig or None, got {checks.shown(config)}")
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise checks.InvalidTypeError(f"rng must be a numpy.random.Generator or None, got {checks.shown(rng)}")
        seed = checks.seed("seed", seed)
        self.config = config if config is not None else GameConfig()
        self._derive()
        self.rng = rng if rng is not None else np.random.default_rng(seed)
        self._setup()
        self.touch()

    # ---- construction -------------------------------------------------------------------

    def _derive(self) -> None:
        """Tables that follow from the config alone (never part of the saved state)."""
        cfg = self.config
        self.n = cfg.num_players
        self.has_alea = self.n == 2
        self.plot_color = parse_layout(cfg.layout, cfg.board)
        self._action_names = action_names(self.plot_color)
        self.neighbors = ring_neighbors(cfg.board)
        self.color_plot = [[-1] * NUM_COLORS for _ in range(NUM_DISTRICTS)]
        self.shop_plot_of = [-1] * NUM_DISTRICTS
        for plot, c in enumerate(self.plot_color):
            d = plot // PLOTS_PER_DISTRICT
            if c >= 0:
                self.color_plot[d][c] = plot
            elif c == SHOP_PLOT_COLOR:
                self.shop_plot_of[d] = plot
        self.group_start = []
        start = 0
        for size in cfg.row_groups:
            self.group_start.append(start)
            start += size
        self.group_start.append(start)
        self._legal = None

    def touch(self) -> None:
        """Mark the state as changed; call it after editing the state by hand.

        Observers cache the board per ``board_token`` and the piles per ``cards_token`` (new
        objects, unique even across processes), the game caches its legal actions and keeps the
        derived board state (``BOARD_STATE_FIELDS``): all are refreshed.
        """
        self.board_token = self.plots_token = self.cards_token = object()
        self._legal = None
        self._rebuild_board_state()

    # ---- the derived board state (BOARD_STATE_FIELDS) ------------------------------------

    def _rebuild_board_state(self) -> None:
        """The derived board state from the plots, shops and closed districts."""
        self.plot_shop_mask = [0] * NUM_PLOTS
        """Per plot: the bitmask of the shop types on it."""
        self.plot_beside_mask = [0] * NUM_PLOTS
        """Per plot: the shop types on its two ring neighbours (R19: what a skyscraper there scores by)."""
        self.plot_shop_room = [0] * NUM_PLOTS
        """Per plot: shops it may still take now (R17: 2 minus its shops, on an open plot with no skyscraper)."""
        self.plot_beside_room = [0] * NUM_PLOTS
        """Per plot: ``plot_shop_room`` of its two neighbours added (shops that may still come beside it)."""
        self.plot_empty = [False] * NUM_PLOTS
        """Per plot: a colored plot with neither skyscraper nor shop (where a new skyscraper may go)."""
        self.district_empty = [0] * NUM_DISTRICTS
        """Per district: its empty plots (``plot_empty``)."""
        self.district_vp = [[0] * self.n for _ in range(NUM_DISTRICTS)]
        """Per district and seat: the VP scoring the district now gives the seat (R19; Alea scores nothing)."""
        for d in range(NUM_DISTRICTS):
            self._rebuild_district_state(d)

    def _rebuild_district_state(self, d: int) -> None:
        """The derived board state of district ``d`` from its plots (a plot's ring neighbours are in its district)."""
        base = d * PLOTS_PER_DISTRICT
        plots = range(base, base + PLOTS_PER_DISTRICT)
        mask, room, empty, beside_mask, beside_room = (self.plot_shop_mask, self.plot_shop_room, self.plot_empty,
                                                       self.plot_beside_mask, self.plot_beside_room)
        closed = self.closed[d]
        for plot in plots:
            shops, height, color = self.plot_shops[plot], self.plot_height[plot], self.plot_color[plot]
            bits = 0
            for t in shops:
                bits |= 1 << t
            mask[plot] = bits
            room[plot] = 2 - len(shops) if color != NO_PLOT and not closed and not height and len(shops) < 2 else 0
            empty[plot] = color >= 0 and not height and not shops
        for plot in plots:
            pair = self.neighbors[plot]
            if pair:
                a, b = pair
                beside_mask[plot] = mask[a] | mask[b]
                beside_room[plot] = room[a] + room[b]
        self.district_empty[d] = sum(empty[base:base + PLOTS_PER_DISTRICT])
        vp = self.district_vp[d] = [0] * self.n
        for plot in plots:
            owner = self.plot_owner[plot]
            if 0 <= owner < self.n:
                vp[owner] += VP_BY_SHOP_TYPES[POPCOUNT4[beside_mask[plot]]] * self.plot_height[plot]

    def _board_built(self, plot: int, added: int) -> None:
        """``added`` skyscrapers of ``plot``'s owner now stand there too: no shop may come there, it is not
        empty, and they score in its district."""
        owner = self.plot_owner[plot]
        if owner < self.n:  # not Alea
            self.district_vp[plot // PLOTS_PER_DISTRICT][owner] += (
                VP_BY_SHOP_TYPES[POPCOUNT4[self.plot_beside_mask[plot]]] * added)
        room = self.plot_shop_room[plot]
        if room:
            self.plot_shop_room[plot] = 0
            beside = self.plot_beside_room
            a, b = self.neighbors[plot]
            beside[a] -= room
            beside[b] -= room
        if self.plot_empty[plot]:
            self.plot_empty[plot] = False
            self.district_empty[plot // PLOTS_PER_DISTRICT] -= 1

    def _board_shop(self, plot: int, shop_type: int) -> None:
        """A shop of ``shop_type`` was placed on ``plot`` (where there was room: a legal placement)."""
        bit = 1 << shop_type
        self.plot_shop_mask[plot] |= bit
        a, b = self.neighbors[plot]
        beside = self.plot_beside_mask
        for q in (a, b):
            before = beside[q]
            if not before & bit:  # a new shop type beside q: its skyscrapers score more
                beside[q] = before | bit
                owner = self.plot_owner[q]
                if 0 <= owner < self.n:
                    self.district_vp[q // PLOTS_PER_DISTRICT][owner] += self.plot_height[q] * (
                        VP_BY_SHOP_TYPES[POPCOUNT4[before | bit]] - VP_BY_SHOP_TYPES[POPCOUNT4[before]])
        self.plot_shop_room[plot] -= 1
        beside = self.plot_beside_room
        beside[a] -= 1
        beside[b] -= 1
        if self.plot_empty[plot]:
            self.plot_empty[plot] = False
            self.district_empty[plot // PLOTS_PER_DISTRICT] -= 1

    def _setup(self) -> None:
        cfg, rng, n = self.config, self.rng, self.n
        self.plot_shops: list[list[int]] = [[] for _ in range(NUM_PLOTS)]
        self.plot_owner = [-1] * NUM_PLOTS
        self.plot_height = [0] * NUM_PLOTS
        self.closed = [False] * NUM_DISTRICTS
        self.closed_mask = 0
        self.markers = [[False] * NUM_DISTRICTS, [False] * NUM_DISTRICTS]
        self.comm_pos = [CITY_HALL, CITY_HALL]
        tiles = [t for t in range(NUM_SHOP_TYPES) for _ in range(SHOPS_PER_TYPE)]
        rng.shuffle(tiles)
        # R10: starting shops (R8: on the shop plot of the 6-plot board).
        if cfg.board == 6:
            start_plots = list(self.shop_plot_of)
        else:
            while True:
                positions = rng.integers(0, 5, size=NUM_DISTRICTS).tolist()
                start_plots = [d * PLOTS_PER_DISTRICT + p for d, p in enumerate(positions)]
                uses = [0] * NUM_COLORS
                for plot in start_plots:
                    uses[self.plot_color[plot]] += 1
                if min(uses) >= 1 and max(uses) <= 2:
                    break
        for d, plot in enumerate(start_plots):
            self.plot_shops[plot].append(tiles[d])
        self.row = tiles[7:27]
        self.unused_tiles = tiles[27:]
        self.box: list[int] = []
        self.removed_shops = 0
        self.shops_placed = 0
        self.pending_tile = -1
        # R1, R12: cards.
        self.piles = new_colored_piles(rng)
        self.pile_known = [0] * NUM_COLORS
        self.black = new_black_pile(rng)
        self.black_seen = [0, 0, 0]
        self.black_faceup = 0
        self.hands = [[0] * NUM_KINDS for _ in range(n)]
        self.known = [[0] * NUM_KINDS for _ in range(n)]
        for p in range(n):
            for c in range(NUM_COLORS):
                self.hands[p][c * 3 + self.piles[c].pop()] += 1
            for _ in range(4):
                self.hands[p][BLACK * 3 + self.draw_black()] += 1  # type: ignore[operator]  # full pile at setup
        # R12: skyscrapers.
        self.scores = [0] * n
        self.reserve = [3] * n
        self.supply = [cfg.skyscrapers_per_color - 6] * n
        self.alea_supply = cfg.skyscrapers_per_color if self.has_alea else 0
        self.cp_skyscrapers = [0] * n
        self.removed_skyscrapers = [0] * (ALEA + 1)
        self.owned = [[-1] * NUM_DISTRICTS for _ in range(n)]
        self.stops = 0
        # R11: seats, starting placements.
        self.first_player = int(rng.integers(n)) if cfg.random_start else 0
        self.setup_order = starting_order(self.first_player, n)
        self.turn = 0
        self.active = self.first_player
        self.turn_action = -1
        self.first_draw = -1
        self.final_move = False
        self.auc_queue: list[int] = []
        self.auc_comm = -1
        self.auc_loc = -1
        auction.clear_auction(self)
        self.central_park_draw: list[int] = []
        self.terminated = False
        self.truncated = False
        self.winners: list[int] = []
        self.decision = PLACE_START_DECISION
        self.actor = self.setup_order[0]

    # ---- piles (R14, R16) ---------------------------------------------------------------

    def draw_black(self) -> int | None:
        """Top card of the black pile as a value index, or None when it is empty (R16)."""
        pile = self.black
        if not pile:
            return None
        if pile[-1] >= 3 * FACE_UP:
            values = [e % 3 for e in pile]
            self.rng.shuffle(values)
            pile[:] = values
            self.black_seen = [0, 0, 0]
            self.black_faceup = 0
        entry = pile.pop()
        self.cards_token = object()
        v = entry % 3
        if entry >= 3 * SEEN_FACE_DOWN:
            self.black_seen[v] -= 1
        return v

    def put_under_black(self, value_index: int, visibility: int) -> None:
        self.cards_token = object()
        self.black.insert(0, value_index + 3 * visibility)
        self.black_seen[value_index] += 1
        if visibility == FACE_UP:
            self.black_faceup += 1

    def _draw_color(self, p, c) -> None:
        pile = self.piles[c]
        v = pile.pop()
        self.cards_token = object()
        if self.pile_known[c] > len(pile):
            self.pile_known[c] = len(pile)
        k = c * 3 + v
        self.hands[p][k] += 1
        self.known[p][k] += 1  # taken face up (R31)

    # ---- queries ------------------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.decision == GAME_OVER

    def legal_actions(self) -> list[int]:
        """The legal action ids of the seat ``actor`` for the current decision, ascending."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _shop_plots(self):
        """Plots that can take a shop, ascending (a generator): open district, fewer than 2 shops,
        no skyscraper (R17, R8)."""
        return compress(range(NUM_PLOTS), self.plot_shop_room)

    def _active_group(self):
        """The leftmost row group with a tile left, -1 when the row is empty (R9)."""
        gs = self.group_start
        for i in range(len(gs) - 1):
            for s in range(gs[i], gs[i + 1]):
                if self.row[s] >= 0:
                    return i
        return -1

    def _scorable_districts(self):
        """Open districts holding a commissioner; markers do not count (R13)."""
        return sorted({pos for pos in self.comm_pos if pos < NUM_DISTRICTS and not self.closed[pos]})

    def _compute_legal(self):
        dec = self.decision
        if dec == BID_DECISION:
            return auction.legal_bids(self)
        if dec == MOVE_DECISION:  # R6: either commissioner, closed districts jumped
            legal = []
            for c in (0, 1):
                pos = self.comm_pos[c]
                base = MOVE + c * NUM_LOCATIONS
                for dest in destinations(pos, self.closed_mask):
                    legal.append(base + dest)
            return legal
        if dec == DRAW_COLOR_DECISION:  # R14: a non-empty pile, not the color just taken
            return [DRAW_COLOR + c for c in range(NUM_COLORS) if self.piles[c] and c != self.first_draw]
        if dec == CHOOSE_ACTION_DECISION:  # R13: A always; B needs a (tile, plot) pair; D a district
            legal = [CHOOSE_ACTION + ACTION_A]
            if self._active_group() >= 0 and any(self.plot_shop_room):
                legal.append(CHOOSE_ACTION + ACTION_B)
            legal.append(CHOOSE_ACTION + ACTION_C)
            if self._scorable_districts():
                legal.append(CHOOSE_ACTION + ACTION_D)
            return legal
        if dec == BUILD_DECISION:
            return auction.legal_builds(self)
        if dec == SHOP_TILE_DECISION:
            g = self._active_group()
            types = {self.row[s] for s in range(self.group_start[g], self.group_start[g + 1])} - {-1}
            return [SHOP_TILE + t for t in sorted(types)]
        if dec == SHOP_PLOT_DECISION:
            return [SHOP_PLOT + plot for plot in self._shop_plots()]
        if dec == SCORE_DISTRICT_DECISION:
            return [SCORE_DISTRICT + d for d in self._scorable_districts()]
        if dec == PLACE_START_DECISION:  # R11: an empty colored plot in a district new to the seat
            owned = self.owned[self.actor]
            return [PLACE_START + plot for plot in compress(range(NUM_PLOTS), self.plot_empty)
                    if owned[plot // PLOTS_PER_DISTRICT] < 0]
        return []

    def action_mask(self, out: np.ndarray | None = None) -> np.ndarray:
        """The legal actions as an int8 array of 0/1 (written into ``out`` when given)."""
        if out is not None:
            out.fill(0)
            out[self.legal_actions()] = 1
            return out
        mask = _NO_ACTIONS.copy()
        ones = mask.data  # a loop over the few legal ids through a memoryview beats numpy's fancy indexing
        for action in self.legal_actions():
            ones[action] = 1
        return mask

    def describe(self, action: int) -> str:
        """The readable name of an action id on this board (``engine.action_name``)."""
        if action.__class__ is int and 0 <= action < NUM_ACTIONS:
            return self._action_names[action]
        return action_name(action, self.plot_color)

    # ---- transitions --------------------------------------------------------------------

    def apply(self, action: ActionLike) -> None:
        """Play ``action`` for ``actor``; raises IllegalActionError (state untouched) if not legal."""
        if action.__class__ is not int:
            action = as_action_id(action)
        legal = self.legal_actions()
        if action not in legal:
            self._reject(action, legal)
        self._legal = None
        dec = self.decision
        if dec in _BOARD_DECISIONS:
            self.board_token = object()
            if dec != MOVE_DECISION:
                self.plots_token = self.board_token
        if dec == BID_DECISION:
            if action == BID_PASS:
                auction.pass_turn(self)
                self._after_bid_turn()
            elif action == BID_CONFIRM:
                auction.confirm(self)
                self._after_bid_turn()
            else:
                auction.add_card(self, action - BID_ADD)
        elif dec == MOVE_DECISION:
            self._move(*divmod(action - MOVE, NUM_LOCATIONS))
        elif dec == DRAW_COLOR_DECISION:
            c = action - DRAW_COLOR
            self._draw_color(self.active, c)
            if self.first_draw < 0 and any(self.piles[o] for o in range(NUM_COLORS) if o != c):
                self.first_draw = c
            else:
                self._start_final_move()
        elif dec == CHOOSE_ACTION_DECISION:
            self._choose(action - CHOOSE_ACTION)
        elif dec == BUILD_DECISION:
            self._build(action)
        elif dec == SHOP_TILE_DECISION:
            self._take_tile(action - SHOP_TILE)
        elif dec == SHOP_PLOT_DECISION:
            self._place_shop(action - SHOP_PLOT)
        elif dec == SCORE_DISTRICT_DECISION:
            self._score_district(action - SCORE_DISTRICT)
        elif dec == PLACE_START_DECISION:
            self._place_start(action - PLACE_START)

    def _reject(self, action, legal):
        as_action_id(action)  # raises for an id out of range
        if self.decision == GAME_OVER:
            raise IllegalActionError(f"the game is over; action {action} ({self.describe(action)}) not taken")
        names = ", ".join(f"{a} ({self.describe(a)})" for a in legal)
        raise IllegalActionError(
            f"action {action} ({self.describe(action)}) is not legal for seat {self.actor} "
            f"in decision '{DECISION_NAMES[self.decision]}'; legal: {names}"
        )

    def _place_start(self, plot) -> None:
        p = self.actor
        self.plot_owner[plot] = p
        self.plot_height[plot] = 1
        self.owned[p][plot // PLOTS_PER_DISTRICT] = plot
        self._board_built(plot, 1)
        self.setup_order.pop(0)
        if self.setup_order:
            self.actor = self.setup_order[0]
        else:
            self._begin_turn()

    def _begin_turn(self) -> None:
        self.turn_action = -1
        self.first_draw = -1
        self.final_move = False
        self.decision = CHOOSE_ACTION_DECISION
        self.actor = self.active

    def _choose(self, a) -> None:
        self.turn_action = a
        p = self.active
        if a == ACTION_A:
            take = min(3, self.supply[p])  # R13
            self.supply[p] -= take
            self.reserve[p] += take
            self._start_draw_phase()
        elif a == ACTION_B:
            self.decision = SHOP_TILE_DECISION
        elif a == ACTION_C:  # one black card (R16: none from an empty pile), then the move
            v = self.draw_black()
            if v is not None:
                self.hands[p][BLACK * 3 + v] += 1
            self.decision = MOVE_DECISION
        else:
            self.decision = SCORE_DISTRICT_DECISION

    def _take_tile(self, t) -> None:
        g = self._active_group()
        lo, hi = self.group_start[g], self.group_start[g + 1]
        for s in range(lo, hi):
            if self.row[s] == t:
                self.row[s] = -1
                break
        left = [s for s in range(lo, hi) if self.row[s] >= 0]
        if len(left) == 1:  # R9: the group's last tile goes to the Central Park box
            self.box.append(self.row[left[0]])
            self.row[left[0]] = -1
        self.pending_tile = t
        self.decision = SHOP_PLOT_DECISION

    def _place_shop(self, plot) -> None:
        self.plot_shops[plot].append(self.pending_tile)
        self._board_shop(plot, self.pending_tile)
        self.pending_tile = -1
        self.shops_placed += 1
        scoring.special_scoring(self)  # R17: after the 3rd, 6th and 9th tile
        # R27: the tile that empties the row (the 12th with the default groups) ends the
        # game at once; the rest of the turn is skipped. "Row empty" is the rulebook's own
        # wording and also holds for custom row_groups.
        if self._active_group() < 0:
            self._end_game()
        else:
            self._start_draw_phase()

    def _score_district(self, d) -> None:
        """Action D: score (R19), 2 black cards, then 1 to each seat with no skyscraper there (R15, R32)."""
        for p, vp in enumerate(scoring.district_scores(self, d)):
            self.scores[p] += vp
        active = self.active
        for _ in range(2):
            self._give_black(active)
        for i in range(self.n):  # R15: in turn order from the active player
            p = (active + i) % self.n
            if self.owned[p][d] < 0:
                self._give_black(p)
        self._start_final_move()

    def _give_black(self, p) -> None:
        v = self.draw_black()
        if v is not None:
            self.hands[p][BLACK * 3 + v] += 1

    def _start_draw_phase(self) -> None:
        self.actor = self.active
        if any(self.piles):
            self.first_draw = -1
            self.decision = DRAW_COLOR_DECISION
        else:  # R38
            self._start_final_move()

    def _start_final_move(self) -> None:
        self.final_move = True
        self.actor = self.active
        self.decision = MOVE_DECISION

    def _move(self, c, dest) -> None:
        """Move commissioner ``c``; Central Park -> City Hall runs that commissioner's auctions (R20)."""
        pos = self.comm_pos[c]
        if pos < NUM_DISTRICTS and not self.closed[pos]:
            self.markers[c][pos] = True  # R18
        self.comm_pos[c] = dest
        if dest == CITY_HALL:
            self.auc_comm = c
            # R20: a trip leaves at most one marker per column, so id order is column (visit) order
            self.auc_queue = [d for d in range(NUM_DISTRICTS) if self.markers[c][d] and not self.closed[d]]
            self.auc_queue.append(CENTRAL_PARK)
            self._next_auction()
        else:
            self._after_move()

    def _after_move(self) -> None:
        if self.final_move:
            self._end_turn()
        else:  # the move of action C's phase 1: phases 2 and 3 follow (R20)
            self._start_draw_phase()

    def _end_turn(self) -> None:
        self.turn += 1
        if self.turn >= self.config.max_turns:  # R29, R38: no final scoring
            self.truncated = True
            self.winners = scoring.leaders(self)
            self.decision = GAME_OVER
            self.actor = -1
            return
        self.active = (self.active + 1) % self.n
        self._begin_turn()

    # ---- auctions (R20-R26) -------------------------------------------------------------

    def _next_auction(self) -> None:
        if not self.auc_queue:
            auction.clear_auction(self)
            self._after_move()
            return
        auction.open_auction(self, self.auc_queue.pop(0))
        self.decision = BID_DECISION

    def _after_bid_turn(self) -> None:
        """After a confirm or pass: go on, or pay (R16) and build / stop (R23, R24, R26)."""
        result = auction.after_turn(self)
        if result is None:
            return
        self.board_token = self.plots_token = object()
        self.auc_winner = result
        if 0 <= result < self.n:
            self.auc_last_bid = list(self.auc_cards[result])
            self.auc_bid_color = self.auc_color[result]
        auction.pay(self, result)
        if 0 <= result < self.n:
            self.actor = result
            self.decision = BUILD_DECISION
            return
        if result == ALEA and self.auc_loc != CENTRAL_PARK:
            if self.auc_full:
                auction.building_stop(self, self.auc_loc, ALEA)
            else:
                auction.alea_builds(self, self.auc_loc)
        self._end_auction()

    def _build(self, action) -> None:
        p = self.auc_winner
        if action == DECLARE_STOP:
            auction.building_stop(self, self.auc_loc, p)
        else:
            auction.build(self, p, action - BUILD)
        self._end_auction()

    def _end_auction(self) -> None:
        loc = self.auc_loc
        if loc < NUM_DISTRICTS:  # R20: the district's marker returns to City Hall
            self.markers[self.auc_comm][loc] = False
        if self.stops >= 2:  # R24, R27: the second stop ends the game once scored
            self._end_game()
            return
        self._next_auction()

    # ---- the end (R27, R28) -------------------------------------------------------------

    def _end_game(self) -> None:
        self.auc_queue = []
        auction.clear_auction(self)
        scoring.final_scoring(self)
        self.winners = scoring.leaders(self)
        self.terminated = True
        self.decision = GAME_OVER
        self.actor = -1

    # ---- saving, restoring, cloning ---------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The whole game, hidden parts and the generator included, as JSON-compatible data."""
        state = {k: copy.deepcopy(self.__dict__[k]) for k in savefile.STATE_FIELDS}
        return {
            "format": savefile.STATE_FORMAT,
            "config": self.config.to_dict(),
            "rng": {"bit_generator": type(self.rng.bit_generator).__name__,
                    "state": self.rng.bit_generator.state},
            "state": state,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Game":
        """The game ``to_dict`` saved. A saved game is untrusted input: ``engine.savefile`` checks
        it against the documented format (docs/guide.md) and its consistency, and raises
        ``savefile.SavedGameError`` naming the field; ``data`` is never modified."""
        config, rng, state = savefile.read(data, GameConfig)
        game = cls.__new__(cls)
        game.config = config
        game._derive()
        game.rng = rng
        game.__dict__.update(state)  # only the documented fields, checked and copied
        game.touch()  # the tokens and the derived board state (the consistency check asks for the legal actions)
        savefile.check_consistency(game)
        return game

    def clone(self, rng: np.random.Generator | None = None) -> "Game":
        """An independent copy (generator included) sharing only the immutable config tables.

        It keeps ``board_token`` and ``cards_token``: the copy's board and piles are the
        original's until one of them changes, which renews its own token, so an observer
        that last saw either need not rebuild them (search clones a game at every step).

        ``rng``: the generator the copy takes, set to the original's state; by default a new one.
        Making a generator is half the cost of a clone, so a caller that copies one position many
        times, one copy after another, passes the previous copy's (which then must not be used)."""
        game = self._copy_state()
        if rng is None:
            rng = np.random.Generator(type(self.rng.bit_generator)(_SCRATCH_SEED))
        rng.bit_generator.state = self.rng.bit_generator.state
        game.rng = rng
        return game

    def _copy_state(self) -> "Game":
        """``clone`` but for the generator, which the copy lacks (``determinize`` gives it its own).

        The state's lists are copied by hand, one level deeper for the lists of lists: a pickle
        round trip of the state cost ~65 us, a third of a determinization (tests/engine/test_clone.py
        checks the field groups below cover ``savefile.STATE_FIELDS`` and that no list is shared)."""
        game = Game.__new__(Game)
        mine = self.__dict__
        fields = game.__dict__
        for name in _SHARED_FIELDS:
            fields[name] = mine[name]
        for name in _LIST_FIELDS:
            fields[name] = mine[name][:]
        for name in _NESTED_LIST_FIELDS:
            fields[name] = [inner[:] for inner in mine[name]]
        fields["_legal"] = None
        return game

    def __deepcopy__(self, memo: dict) -> "Game":
        return self.clone()  # the config tables are immutable: shared, not copied
