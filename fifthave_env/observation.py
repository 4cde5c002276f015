"""The one place that builds observations: a flat float32 vector with named views.

``Observer(config).observe(game, seat)`` writes what ``seat`` may know (R30,
R31) into a preallocated buffer, relative to that seat: seat slot 0 is the
observer, slot 1 the next seat clockwise, and so on; slot 4 of an owner axis is
Alea. Seats a configuration does not have are zero-padded, so the shape is the
same for every configuration. ``Observer.views(vector)`` gives named views
into any observation vector (like OpenSpiel's observers).

Scaling: counts are raw except where ``SCALES`` says otherwise (scores and bids
/50, pile sizes /12, the black pile /50, skyscraper stocks /18, turns /max_turns).
The layout table (name, shape, meaning) is ``VIEWS``; ``docs/observation.md`` renders it.
"""

import array

import numpy as np

from .engine.board import NUM_DISTRICTS, NUM_LOCATIONS, NUM_PLOTS, NUM_SHOP_TYPES
from .engine.cards import BLACK, NUM_COLORS, NUM_KINDS
from .engine.game import NUM_DECISIONS

MAX_SEATS = 4
OWNERS = MAX_SEATS + 1  # relative seats 0..3, then Alea
NUM_AUCTION_LOCATIONS = NUM_DISTRICTS + 1  # districts, Central Park

# (name, shape, meaning)
VIEWS = (
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
    ("score", (MAX_SEATS,), "victory points (/50)"),
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

_SHAPES = {name: shape for name, shape, _ in VIEWS}
_OFFSETS = {}
_size = 0
for _name, _shape, _ in VIEWS:
    _n = int(np.prod(_shape))
    _OFFSETS[_name] = (_size, _size + _n)
    _size += _n
OBS_SIZE = _size
OBS_HIGH = 1000.0


def views(vector):
    """Named views (reshaped, no copy) into an observation vector."""
    return {name: vector[lo:hi].reshape(_SHAPES[name]) for name, (lo, hi) in _OFFSETS.items()}


_BOARD = slice(_OFFSETS["plot_shops"][0], _OFFSETS["box"][1])


_O = {name: lo for name, (lo, _) in _OFFSETS.items()}


class Observer:
    """Writes observations for one game configuration; reuse it across resets.

    Speed: values are written one by one into an ``array.array`` (far cheaper
    per element than numpy item assignment) that a numpy array views; the board
    part is cached until the game's ``board_token`` changes (the plot owners, relative to
    the seat, are written afresh each time).
    """

    def __init__(self, config):
        self.config = config
        self._array = array.array("f", bytes(4 * OBS_SIZE))
        self.buffer = np.frombuffer(self._array, dtype=np.float32)
        self._static = None
        self._board = None  # (board_token, board segment without owners, owned plots)
        self.builds = 0  # observations built so far (tests count them to prove laziness)

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["buffer"]  # a view of _array: rebuilt on unpickling, or it would be a detached copy
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.buffer = np.frombuffer(self._array, dtype=np.float32)

    def _static_part(self, game):
        """The parts fixed by the configuration."""
        static = np.zeros(OBS_SIZE, dtype=np.float32)
        v = views(static)
        v["num_players"][game.n - 2] = 1
        v["six_plot_board"][0] = self.config.board == 6
        for plot, c in enumerate(game.plot_color):
            v["plot_exists"][plot] = c != -2
            if c >= 0:
                v["plot_color"][plot, c] = 1
        v["player_present"][: game.n] = 1
        v["alea"][0] = game.has_alea
        return static

    def _write_board(self, a, g):
        """Plots, districts, commissioners, markers, row and box: they change rarely.

        Everything but the plot owners, which depend on the seat; returns ``(offset, owner id)``
        for each owned plot."""
        sh, ow, ht = _O["plot_shops"], _O["plot_owner"], _O["plot_height"]
        height, owner = g.plot_height, g.plot_owner
        owners = []
        for plot, shops in enumerate(g.plot_shops):
            for t in shops:
                a[sh + plot * 4 + t] += 1
            if height[plot]:
                owners.append((ow + plot * OWNERS, owner[plot]))
                a[ht + plot] = height[plot]
        closed, mk = _O["district_closed"], _O["markers"]
        for d in range(NUM_DISTRICTS):
            if g.closed[d]:
                a[closed + d] = 1
            if g.markers[0][d]:
                a[mk + d] = 1
            if g.markers[1][d]:
                a[mk + NUM_DISTRICTS + d] = 1
        ca = _O["commissioner_at"]
        a[ca + g.comm_pos[0]] = 1
        a[ca + NUM_LOCATIONS + g.comm_pos[1]] = 1
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
        return owners

    def observe(self, game, seat, out=None):
        """The observation of ``seat`` as a new array (or written into ``out``)."""
        g = game
        self.builds += 1
        if self._static is None:
            self._static = self._static_part(g)
        a = self._array
        buf = self.buffer
        buf[:] = self._static
        n = g.n
        rel = [(q - seat) % n for q in range(n)] + [0] * (MAX_SEATS - n) + [OWNERS - 1]  # by owner id; Alea = 4
        cached = self._board
        if cached is not None and cached[0] == g.board_token:
            buf[_BOARD] = cached[1]
            owners = cached[2]
        else:
            owners = self._write_board(a, g)
            self._board = (g.board_token, buf[_BOARD].copy(), owners)
        for offset, owner in owners:
            a[offset + rel[owner]] = 1
        O = _O

        if g.decision < NUM_DECISIONS:
            a[O["decision"] + g.decision] = 1
        if g.actor == seat:
            a[O["is_my_decision"]] = 1
        if g.turn_action >= 0:
            a[O["turn_action"] + g.turn_action] = 1
        if g.first_draw >= 0:
            a[O["first_draw"] + g.first_draw] = 1
        if g.pending_tile >= 0:
            a[O["pending_tile"] + g.pending_tile] = 1
        if g.final_move:
            a[O["final_move"]] = 1
        p = O["progress"]
        a[p] = g.turn / g.config.max_turns
        a[p + 1] = g.stops / 2
        a[p + 2] = g.shops_placed / 12

        size, top, below = O["pile_size"], O["pile_top"], O["pile_known_below"]
        for c in range(NUM_COLORS):
            pile = g.piles[c]
            if pile:
                a[size + c] = len(pile) / 12
                a[top + c * 3 + pile[-1]] = 1
                for value in pile[: min(g.pile_known[c], len(pile) - 1)]:
                    a[below + c * 3 + value] += 1
        bp, bs = O["black_pile"], O["black_seen"]
        a[bp] = len(g.black) / 50
        a[bp + 1] = g.black_faceup / 50
        a[bs], a[bs + 1], a[bs + 2] = g.black_seen

        sc, rs, su, cp = O["score"], O["reserve"], O["supply"], O["central_park"]
        hs, hc, kc = O["hand_size"], O["hand_colors"], O["known_cards"]
        for i in range(n):
            q = (seat + i) % n
            a[sc + i] = g.scores[q] / 50
            a[rs + i] = g.reserve[q] / 18
            a[su + i] = g.supply[q] / 18
            a[cp + i] = g.cp_skyscrapers[q]
            hand = g.hands[q]
            a[hs + i] = sum(hand)
            b = hc + i * 6
            a[b] = hand[0] + hand[1] + hand[2]
            a[b + 1] = hand[3] + hand[4] + hand[5]
            a[b + 2] = hand[6] + hand[7] + hand[8]
            a[b + 3] = hand[9] + hand[10] + hand[11]
            a[b + 4] = hand[12] + hand[13] + hand[14]
            a[b + 5] = hand[15] + hand[16] + hand[17]
            cards = hand if i == 0 else g.known[q]
            b = kc + i * NUM_KINDS
            for k in range(NUM_KINDS):
                if cards[k]:
                    a[b + k] = cards[k]
        a[O["is_first_player"] + rel[g.first_player]] = 1
        if g.actor >= 0:
            a[O["is_actor"] + rel[g.actor]] = 1
        a[O["alea"] + 1] = g.alea_supply / 18

        loc = g.auc_loc
        if loc >= 0:
            self._write_auction(a, g, seat, rel)
        if out is None:
            return buf.copy()
        out[:] = buf
        return out

    def _write_auction(self, a, g, seat, rel):
        O = _O
        a[O["auction_location"] + g.auc_loc] = 1
        for q in g.auc_queue:
            a[O["auction_queue"] + q] = 1
        if g.auc_full:
            a[O["auction_full"]] = 1
        ap, ac, at, acol = O["auction_passed"], O["auction_cards"], O["auction_total"], O["auction_color"]
        n = g.n
        for i in range(n):
            q = (seat + i) % n
            if g.auc_passed[q]:
                a[ap + i] = 1
            if g.auc_total[q]:
                a[at + i] = g.auc_total[q] / 50
                cards = g.auc_cards[q]
                b = ac + i * NUM_KINDS
                for k in range(NUM_KINDS):
                    if cards[k]:
                        a[b + k] = cards[k]
            if g.auc_color[q] >= 0:
                a[acol + i * NUM_COLORS + g.auc_color[q]] = 1
        a[O["high_bid"]] = g.auc_high / 50
        if g.auc_high_bidder >= 0:
            a[O["high_bidder"] + rel[g.auc_high_bidder]] = 1
        if g.has_alea:
            a[O["alea_bid"] + g.auc_alea_state] = 1
            a[O["alea_bid"] + 3] = sum(4 + x for x in g.auc_alea_cards) / 50
            for x in g.auc_alea_cards:
                a[O["alea_cards"] + x] += 1
        cp = g.auc_cp_color
        allowed = g.auc_allowed[seat] if cp < 0 else 1 << cp
        if cp >= 0:
            a[O["central_park_color"] + cp] = 1
        for c in range(NUM_COLORS):
            if allowed >> c & 1:
                a[O["allowed_colors"] + c] = 1
        if g.auc_winner >= 0:
            b = O["winning_bid"]
            for k in range(NUM_KINDS):
                a[b + k] = g.auc_last_bid[k]
