"""Auctions: allowed colors, card-by-card bids, Alea, paying and building (R20-R26, R34-R37).

The auction in progress lives in the game's ``auc_*`` fields; the coordinator
(:mod:`game`) decides what happens before and after one.
"""

from typing import TYPE_CHECKING

from .actions import BID_ADD, BID_CONFIRM, BID_PASS, BUILD, DECLARE_STOP
from .board import CENTRAL_PARK, PLOTS_PER_DISTRICT
from .cards import BLACK, FACE_UP, KIND_COLOR, KIND_VALUE, NUM_COLORS, NUM_KINDS, SEEN_FACE_DOWN, bid_limit
from .scoring import district_scores, plot_value, skyscrapers_in

if TYPE_CHECKING:  # game imports this module
    from .game import Game

ALEA = 4  # owner id of Alea's skyscrapers (R25)
ALL_COLORS = (1 << NUM_COLORS) - 1

ALEA_NOT_YET, ALEA_IN, ALEA_OUT = 0, 1, 2
# Card kinds a bid may add, ascending: the first card, per bitmask of allowed colors (R22);
# later cards, per the bid's color: that color or black (R21).
_OPENING_KINDS = [tuple(k for k in range(NUM_COLORS * 3) if allowed >> KIND_COLOR[k] & 1)
                  for allowed in range(ALL_COLORS + 1)]
_FOLLOWING_KINDS = [(c * 3, c * 3 + 1, c * 3 + 2, BLACK * 3, BLACK * 3 + 1, BLACK * 3 + 2) for c in range(NUM_COLORS)]


def allowed_colors(g: "Game", p: int, d: int) -> int:
    """Bitmask of the colors seat ``p`` may open with in district ``d`` (R22, R37)."""
    own = g.owned[p][d]
    if own >= 0:
        return 1 << g.plot_color[own]
    base = d * PLOTS_PER_DISTRICT
    empty = 0
    shops_only = 0
    for plot in range(base, base + PLOTS_PER_DISTRICT):
        c = g.plot_color[plot]
        if c < 0 or g.plot_height[plot]:
            continue
        if g.plot_shops[plot]:
            shops_only |= 1 << c
        else:
            empty |= 1 << c
    return empty if empty else shops_only


def district_is_full(g: "Game", d: int) -> bool:
    """No empty colored plot (R37); the colorless shop plot never counts."""
    return not g.district_empty[d]


def clear_auction(g: "Game") -> None:
    """No auction on the table: the ``auc_*`` fields at rest."""
    n = g.n
    g.auc_loc = -1
    g.auc_full = False
    g.auc_allowed = [0] * n
    g.auc_passed = [False] * n
    g.auc_cards = [[0] * NUM_KINDS for _ in range(n)]
    g.auc_color = [-1] * n
    g.auc_total = [0] * n
    g.auc_high = 0
    g.auc_high_bidder = -1
    g.auc_turns = 0
    g.auc_alea_cards = []
    g.auc_alea_state = ALEA_OUT
    g.auc_cp_color = -1
    g.auc_winner = -1
    g.auc_last_bid = [0] * NUM_KINDS
    g.auc_bid_color = -1


def open_auction(g: "Game", loc: int) -> None:
    """The auction at ``loc`` begins; the mover bids first (R21); allowed colors are fixed now (R22)."""
    clear_auction(g)
    g.auc_loc = loc
    if g.has_alea:
        g.auc_alea_state = ALEA_NOT_YET
    if loc == CENTRAL_PARK:
        g.auc_allowed = [ALL_COLORS] * g.n
    else:
        g.auc_full = district_is_full(g, loc)
        g.auc_allowed = [allowed_colors(g, p, loc) for p in range(g.n)]
    g.actor = g.active


def legal_bids(g: "Game") -> list[int]:
    """Cards the bidder may add, confirm, pass (R21, R34-R36): the first card is colored and of an
    allowed color (R22; in Central Park the confirmed color, R36), later ones that color or black;
    confirm only strictly above the high bid; pass at any moment."""
    p = g.actor
    hand = g.hands[p]
    color = g.auc_color[p]
    if color < 0:
        allowed = g.auc_allowed[p] if g.auc_cp_color < 0 else 1 << g.auc_cp_color
        legal = [BID_ADD + k for k in _OPENING_KINDS[allowed] if hand[k]]
    else:
        legal = [BID_ADD + k for k in _FOLLOWING_KINDS[color] if hand[k]]
    if g.auc_total[p] > g.auc_high:
        legal.append(BID_CONFIRM)
    legal.append(BID_PASS)
    return legal


def add_card(g: "Game", k: int) -> None:
    p = g.actor
    g.hands[p][k] -= 1
    if g.known[p][k]:
        g.known[p][k] -= 1
    g.auc_cards[p][k] += 1
    g.auc_total[p] += KIND_VALUE[k]
    if g.auc_color[p] < 0:
        g.auc_color[p] = KIND_COLOR[k]


def confirm(g: "Game") -> None:
    p = g.actor
    g.auc_high = g.auc_total[p]
    g.auc_high_bidder = p
    if g.auc_loc == CENTRAL_PARK and g.auc_cp_color < 0:
        g.auc_cp_color = g.auc_color[p]  # R36: fixed by the first confirmed bid
    if g.auc_alea_state == ALEA_IN:
        g.auc_alea_state = ALEA_OUT


def pass_turn(g: "Game") -> None:
    """Leave the auction; the cards laid go back to the hand, now known to all (R21, R31)."""
    p = g.actor
    cards = g.auc_cards[p]
    hand = g.hands[p]
    known = g.known[p]
    for k in range(NUM_KINDS):
        if cards[k]:
            hand[k] += cards[k]
            known[k] += cards[k]
            cards[k] = 0
    g.auc_total[p] = 0
    g.auc_color[p] = -1
    g.auc_passed[p] = True


def alea_bids(g: "Game") -> None:
    """Alea draws black cards until a value repeats; the sum is the bid (R25)."""
    seen = 0
    total = 0
    while True:
        v = g.draw_black()
        if v is None:
            break
        g.auc_alea_cards.append(v)
        total += KIND_VALUE[BLACK * 3 + v]
        if seen >> v & 1:
            break
        seen |= 1 << v
    if total > g.auc_high:
        g.auc_alea_state = ALEA_IN
        g.auc_high = total
        g.auc_high_bidder = ALEA
    else:
        g.auc_alea_state = ALEA_OUT


def after_turn(g: "Game") -> int | None:
    """Advance the auction after a confirm or pass: the winner's id, -1 for no winner, None to go on.

    R21, R23: it ends when every bidder but one has passed and that one holds the high
    bid, or when all have passed. R25: with Alea it never ends before Alea's draw, made
    once both real players have had a first turn.
    """
    g.auc_turns += 1
    if g.auc_alea_state == ALEA_NOT_YET:
        if g.auc_turns < 2:
            g.actor = next_bidder(g)
            return None
        alea_bids(g)
    still_in = [p for p in range(g.n) if not g.auc_passed[p]]
    alea_in = g.auc_alea_state == ALEA_IN
    if not still_in:
        return ALEA if alea_in else -1
    if len(still_in) == 1 and not alea_in and g.auc_high_bidder == still_in[0]:
        return still_in[0]
    g.actor = next_bidder(g)
    return None


def next_bidder(g: "Game") -> int:
    n = g.n
    p = g.actor
    for _ in range(n):
        p = (p + 1) % n
        if not g.auc_passed[p]:
            return p
    raise AssertionError("next_bidder called with every bidder passed")


def pay(g: "Game", winner: int) -> None:
    """Winner's cards go face up under their piles, then Alea's face down under the black pile (R16, R25).

    R39: they go one by one in kind order (4s, 5s, 6s of a color, then black 4s, 5s, 6s), each
    under the previous ones, so the 6s end up lowest; Alea's go in drawing order (R25).
    """
    if winner >= 0 and winner != ALEA:
        cards = g.auc_cards[winner]
        for k in range(NUM_KINDS):  # R39: kind order, whatever order the cards were laid in
            for _ in range(cards[k]):
                c, v = divmod(k, 3)
                if c == BLACK:
                    g.put_under_black(v, FACE_UP)
                else:
                    g.cards_token = object()
                    g.piles[c].insert(0, v)
                    g.pile_known[c] += 1
            cards[k] = 0
        g.auc_total[winner] = 0
    for v in g.auc_alea_cards:
        g.put_under_black(v, SEEN_FACE_DOWN)
    g.auc_alea_cards = []


def legal_builds(g: "Game") -> list[int]:
    """0..min(card limit, reserve) skyscrapers (R23); in a district full at the start a stop
    too, and only a stop for a winner without a plot there (R24, R33, R37)."""
    p = g.auc_winner
    most = min(bid_limit(g.auc_last_bid), g.reserve[p])
    if g.auc_loc != CENTRAL_PARK and g.auc_full:
        if g.owned[p][g.auc_loc] < 0:
            return [DECLARE_STOP]
        return [BUILD + i for i in range(most + 1)] + [DECLARE_STOP]
    return [BUILD + i for i in range(most + 1)]


def build(g: "Game", p: int, count: int) -> None:
    """Seat ``p`` builds ``count`` skyscrapers where it won (R23)."""
    if count == 0:
        return
    g.reserve[p] -= count
    if g.auc_loc == CENTRAL_PARK:
        g.cp_skyscrapers[p] += count
        return
    plot = g.color_plot[g.auc_loc][g.auc_bid_color]
    g.plot_owner[plot] = p
    g.plot_height[plot] += count
    g.owned[p][g.auc_loc] = plot
    g._board_built(plot, count)


def alea_builds(g: "Game", d: int) -> None:
    """One skyscraper on each most valuable empty plot, ring order if short (R26)."""
    base = d * PLOTS_PER_DISTRICT
    empty = [plot for plot in range(base, base + PLOTS_PER_DISTRICT) if g.plot_empty[plot]]
    values = [plot_value(g, plot) for plot in empty]
    best = max(values)
    for plot, value in zip(empty, values):
        if value == best and g.alea_supply:
            g.alea_supply -= 1
            g.plot_owner[plot] = ALEA
            g.plot_height[plot] = 1
            g._board_built(plot, 1)


def building_stop(g: "Game", d: int, declarer: int) -> None:
    """Score and clear district ``d`` (R24); ``declarer`` is a seat or ALEA."""
    halves = district_scores(g, d)
    for p in range(g.n):
        if p != declarer:
            g.scores[p] += halves[p] // 2
    if declarer != ALEA:
        g.scores[declarer] += skyscrapers_in(g, d)
    base = d * PLOTS_PER_DISTRICT
    for plot in range(base, base + PLOTS_PER_DISTRICT):
        owner = g.plot_owner[plot]
        if owner >= 0:
            g.removed_skyscrapers[owner] += g.plot_height[plot]
            g.plot_owner[plot] = -1
            g.plot_height[plot] = 0
        g.removed_shops += len(g.plot_shops[plot])
        g.plot_shops[plot] = []
    for p in range(g.n):
        g.owned[p][d] = -1
    g.closed[d] = True
    g.closed_mask |= 1 << d
    g._rebuild_district_state(d)
    g.markers[0][d] = g.markers[1][d] = False
    g.stops += 1
