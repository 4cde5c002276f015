"""A text picture of a game for ``render_mode="ansi"``: board, scores, auction, one seat's hand."""

from collections.abc import Sequence

from .engine.auction import ALEA, ALEA_IN, ALEA_NOT_YET
from .engine.board import (
    CENTRAL_PARK,
    COMMISSIONER_NAMES,
    DISTRICT_NAMES,
    LOCATION_NAMES,
    NUM_DISTRICTS,
    PLOTS_PER_DISTRICT,
    SHOP_NAMES,
)
from .engine.cards import CARD_COLOR_NAMES, COLOR_NAMES, KIND_VALUE, NUM_KINDS, kind_name
from .engine.game import DECISION_NAMES, Game

SHOP_LETTERS = "BJGP"  # boutique, jeweler, gallery, perfume
OWNER_LETTERS = "0123A"  # seats 0-3, Alea


def _cards(counts: Sequence[int]):
    parts = [f"{counts[k]}x{kind_name(k)}" for k in range(NUM_KINDS) if counts[k]]
    return ", ".join(parts) if parts else "-"


def _plot(g, plot):
    c = g.plot_color[plot]
    label = COLOR_NAMES[c][:3] if c >= 0 else "sp"
    shops = "".join(SHOP_LETTERS[t] for t in g.plot_shops[plot])
    sky = f"{OWNER_LETTERS[g.plot_owner[plot]]}x{g.plot_height[plot]}" if g.plot_height[plot] else ""
    return f"{label}[{shops}{sky}]".ljust(11)


def render_text(g: Game, seat: int | None = None) -> str:
    """The game as text; ``seat`` (default: the seat asked now) is the only hand shown."""
    lines = []
    status = "over" if g.is_over else f"seat {g.actor}: {DECISION_NAMES[g.decision]}"
    lines.append(f"Fifth Avenue  {g.n} players, {g.config.board}-plot board  turn {g.turn}  ({status})")
    for d in range(NUM_DISTRICTS):
        here = [COMMISSIONER_NAMES[c] for c in (0, 1) if g.comm_pos[c] == d]
        marks = [COMMISSIONER_NAMES[c][0] for c in (0, 1) if g.markers[c][d]]
        name = DISTRICT_NAMES[d].ljust(13)
        if g.closed[d]:
            lines.append(f"  {d} {name} CLOSED (building stop)" + (f"  commissioner: {','.join(here)}" if here else ""))
            continue
        plots = "".join(_plot(g, d * PLOTS_PER_DISTRICT + p) for p in range(g.config.board))
        extra = (f"  <{','.join(here)}>" if here else "") + (f"  markers:{''.join(marks)}" if marks else "")
        lines.append(f"  {d} {name} {plots}{extra}")
    for c in (0, 1):
        if g.comm_pos[c] >= NUM_DISTRICTS:
            lines.append(f"  {COMMISSIONER_NAMES[c]} commissioner in {LOCATION_NAMES[g.comm_pos[c]]}")
    row = []
    for i in range(len(g.group_start) - 1):
        row.append("".join(SHOP_LETTERS[t] if t >= 0 else "." for t in g.row[g.group_start[i]:g.group_start[i + 1]]))
    lines.append(f"  row: {' '.join(row)}   box: {''.join(SHOP_LETTERS[t] for t in g.box) or '-'}"
                 f"   shops placed {g.shops_placed}/12, stops {g.stops}/2   "
                 f"({', '.join(f'{L}={n}' for L, n in zip(SHOP_LETTERS, SHOP_NAMES))})")
    tops = "  ".join(f"{COLOR_NAMES[c]}:{KIND_VALUE[c * 3 + g.piles[c][-1]] if g.piles[c] else '-'}({len(g.piles[c])})"
                     for c in range(5))
    lines.append(f"  piles: {tops}  black:({len(g.black)})")
    for p in range(g.n):
        flag = "*" if p == g.actor else " "
        lines.append(f" {flag}seat {p}: {g.scores[p]:3d} VP  reserve {g.reserve[p]}  supply {g.supply[p]}  "
                     f"central park {g.cp_skyscrapers[p]}  cards {sum(g.hands[p])}")
    if g.has_alea:
        lines.append(f"  Alea: {g.alea_supply} skyscrapers left")
    if g.auc_loc >= 0:
        where = LOCATION_NAMES[g.auc_loc] if g.auc_loc != CENTRAL_PARK else "Central Park"
        lines.append(f"  AUCTION in {where}" + (" (full: building stop possible)" if g.auc_full else "")
                     + f"  high bid {g.auc_high}"
                     + (f" by {'Alea' if g.auc_high_bidder == ALEA else 'seat ' + str(g.auc_high_bidder)}"
                        if g.auc_high_bidder >= 0 else ""))
        for p in range(g.n):
            state = "passed" if g.auc_passed[p] else (
                f"{CARD_COLOR_NAMES[g.auc_color[p]]} {g.auc_total[p]}: {_cards(g.auc_cards[p])}"
                if g.auc_color[p] >= 0 else "no cards")
            lines.append(f"    seat {p}: {state}")
        if g.has_alea and g.auc_alea_state != ALEA_NOT_YET:
            total = sum(4 + v for v in g.auc_alea_cards)
            lines.append(f"    Alea: {'in' if g.auc_alea_state == ALEA_IN else 'out'} "
                         f"({total} from {[4 + v for v in g.auc_alea_cards]})")
        if g.auc_winner >= 0:
            lines.append(f"    won by seat {g.auc_winner} with {_cards(g.auc_last_bid)}")
    if g.is_over:
        end = "truncated" if g.truncated else "finished"
        lines.append(f"  game {end}; winner(s): {', '.join(f'seat {p}' for p in g.winners)}"
                     + (f"; Central Park draw: {[SHOP_NAMES[t] for t in g.central_park_draw]}" if g.terminated else ""))
    shown = g.actor if seat is None else seat
    if 0 <= shown < g.n:
        lines.append(f"  hand of seat {shown}: {_cards(g.hands[shown])}")
    return "\n".join(lines)
