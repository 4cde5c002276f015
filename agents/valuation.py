"""Estimates the scripted agents share: what plots, shops, stops and auctions are worth.

All functions read a seat view only (:mod:`fifthave.agents.view`). Values are in VP and,
where they say *relative*, count the viewer's gain minus the mean gain of the
other seats (so a move that helps everyone equally is worth nothing).
"""

from collections.abc import Callable, Sequence
from itertools import compress

from fifthave_env.engine.board import (
    CENTRAL_PARK,
    NUM_DISTRICTS,
    NUM_PLOTS,
    PLOTS_PER_DISTRICT,
    POPCOUNT4,
    SUCCESSORS,
    VP_BY_SHOP_TYPES,
)

from .view import View

# Tuning constants (chosen by hand and checked in tournaments, results/tournament/README.md).
EXTRA_SCORINGS_EARLY = 0.8  # district scorings expected besides the final one, at the start of the game
CROWDED_DISCOUNT = 0.8  # a district with at most one empty plot may soon see a building stop
SHOP_GROWTH = 0.35  # chance per free neighbouring shop slot that a new shop type arrives


# expected_plot_value and expected_scorings per game progress (at most ~15 values a game): the first by the
# plot's shop types beside (a mask) and the shop room beside it, both kept by the engine (issue 36); the
# second (open districts) by whether the district has at most one empty plot. The same floats as computed
# one by one, so decisions do not change.
_PLOT_VALUES: dict[float, list[list[float]]] = {}
_SCORINGS: dict[float, tuple[float, float]] = {}


def plot_value_table(view: View) -> list[list[float]]:
    """``expected_plot_value`` at the view's progress by [beside_mask][beside_room] (room: 0..4)."""
    progress = view.progress
    table = _PLOT_VALUES.get(progress)
    if table is None:
        table = _PLOT_VALUES[progress] = [[_expected_plot_value(mask, room, progress) for room in range(5)]
                                          for mask in range(16)]
    return table


def _expected_plot_value(mask: int, free: int, progress: float) -> float:
    types = POPCOUNT4[mask]
    value = VP_BY_SHOP_TYPES[types]
    if types < 4 and free:
        value += (VP_BY_SHOP_TYPES[types + 1] - value) * min(1.0, SHOP_GROWTH * free) * (1.0 - progress)
    return value


def scorings_table(view: View) -> tuple[float, float]:
    """``expected_scorings`` of an open district at the view's progress: (not crowded, crowded)."""
    progress = view.progress
    pair = _SCORINGS.get(progress)
    if pair is None:
        e = 1.0 + EXTRA_SCORINGS_EARLY * (1.0 - progress)
        pair = _SCORINGS[progress] = (e, e * CROWDED_DISCOUNT)
    return pair


def expected_scorings(view: View, d: int) -> float:
    """How many more times district ``d`` is likely to be scored (the final scoring counts as one)."""
    if view.closed[d]:
        return 0.0
    return scorings_table(view)[view.district_empty[d] <= 1]  # at most one empty plot: crowded


def can_take_shop(view: View, plot: int) -> bool:
    return view.shop_room[plot] > 0


def expected_plot_value(view: View, plot: int) -> float:
    """VP one skyscraper on ``plot`` is likely to score: its value now plus the shops that may still come."""
    return plot_value_table(view)[view.beside_mask[plot]][view.beside_room[plot]]


def central_park_value(view: View) -> float:
    """Expected VP of one Central Park skyscraper: by the box now, drifting to 5 as the box fills (R27)."""
    now = VP_BY_SHOP_TYPES[min(view.box_types, 3)] if view.box_size else 1
    return now * view.progress + 4.5 * (1.0 - view.progress)


def relative(view: View, gains: Sequence[float]) -> float:
    """``gains`` per relative seat -> the viewer's gain minus the mean of the others'."""
    others = gains[1:]
    return gains[0] - sum(others) / len(others)


def stop_value(view: View, d: int) -> float:
    """Relative VP of me declaring a building stop in ``d`` now (R24), future scorings lost included."""
    scores = view.district_scores(d)
    future = expected_scorings(view, d)
    gains = [s // 2 - s * future for s in scores]
    gains[0] = view.skyscrapers_in(d) - scores[0] * future
    return relative(view, gains)


def shop_gain(view: View, plot: int, shop_type: int, own_weight: float = 1.0, other_weight: float | None = None,
              horizon: bool = True) -> float:
    """VP a shop of ``shop_type`` on ``plot`` adds to the skyscrapers beside it.

    Weighted per owner: ``own_weight`` for mine, ``other_weight`` (default
    -1/(n-1), i.e. relative) for each other seat, 0 for Alea; multiplied by the
    expected scorings of the district when ``horizon`` is true.
    """
    return shop_gains(view, (plot,), shop_type, own_weight, other_weight, horizon)[0]


def shop_gains(view: View, plots: Sequence[int], shop_type: int, own_weight: float = 1.0,
               other_weight: float | None = None, horizon: bool = True) -> list[float]:
    """``shop_gain`` of a shop of ``shop_type`` on each of ``plots``, the view's fields read once."""
    n = view.n
    if other_weight is None:
        other_weight = -1.0 / (n - 1)
    neighbors, height, owner, beside_mask = view.tables.neighbors, view.height, view.owner, view.beside_mask
    scorings, crowded = scorings_table(view)
    closed, district_empty = view.closed, view.district_empty
    gains = []
    for plot in plots:
        total = 0.0
        for q in neighbors[plot]:  # view.plot_value(q) with and without the shop, inlined (the hot path)
            h = height[q]
            if not h:
                continue
            slot = owner[q]
            weight = own_weight if slot == 0 else (other_weight if slot < n else 0.0)
            if weight:  # (q is beside plot, ring neighbours, so the shop reaches it)
                total += weight * h * _TYPE_GAIN[beside_mask[q]][shop_type]
        if horizon and total:
            d = plot // PLOTS_PER_DISTRICT  # expected_scorings(view, d), inlined
            total *= 0.0 if closed[d] else (crowded if district_empty[d] <= 1 else scorings)
        gains.append(total)
    return gains


def best_shop_gain(view: View, tiles: Sequence[int]) -> float:
    """The most ``shop_gain(view, plot, t)`` (relative, with the horizon) over ``tiles`` and the plots
    where a shop may go now, ``-inf`` if none."""
    return max(best_shop_gains(view, tiles), default=float("-inf"))


# [shop types beside a skyscraper (mask)][shop type]: the VP a shop of that type adds to it (R19)
_TYPE_GAIN = [[VP_BY_SHOP_TYPES[POPCOUNT4[mask | 1 << t]] - VP_BY_SHOP_TYPES[POPCOUNT4[mask]] for t in range(4)]
              for mask in range(16)]


def best_shop_gains(view: View, tiles: Sequence[int]) -> list[float]:
    """Per tile of ``tiles``: ``best_shop_gain(view, [tile])``, all in one pass (each plot's neighbours
    read once for all tiles)."""
    n = view.n
    other_weight = -1.0 / (n - 1)
    neighbors, height, owner, beside_mask = view.tables.neighbors, view.height, view.owner, view.beside_mask
    best = [float("-inf")] * len(tiles)
    if not tiles:
        return best
    types = tuple(enumerate(tiles))
    scorings, crowded = scorings_table(view)  # expected_scorings of an open district (a shop plot's is)
    district_empty = view.district_empty
    for plot in compress(range(NUM_PLOTS), view.shop_room):  # shop_plots(view)
        beside = []  # per neighbour with skyscrapers that count: (weight * height, what each shop type adds to it)
        for side in neighbors[plot]:
            h = height[side]
            if h:
                slot = owner[side]
                weight = 1.0 if slot == 0 else (other_weight if slot < n else 0.0)
                if weight:
                    beside.append((weight * h, _TYPE_GAIN[beside_mask[side]]))
        if not beside:  # no skyscraper beside that counts: the shop adds nothing
            for i, value in enumerate(best):
                if value < 0.0:
                    best[i] = 0.0
            continue
        future = None
        for i, t in types:
            total = 0.0
            for weighted, adds in beside:
                total += weighted * adds[t]
            if total:
                if future is None:  # expected_scorings(view, d), inlined
                    future = crowded if district_empty[plot // PLOTS_PER_DISTRICT] <= 1 else scorings
                total *= future
            if total > best[i]:
                best[i] = total
    return best


def shop_gain_bound(view: View, tiles: Sequence[int]) -> float:
    """At least ``best_shop_gain(view, tiles)`` (for a view with a shop plot), cheaply: only my own skyscrapers
    gain from a shop (the others' count negative, Alea's nothing), and a shop plot has at most one of mine
    beside it (a seat has one plot per district, R22), so the best is at most my best plot beside a free shop
    plot, its height times the most a tile adds to it times the district's expected scorings (the very
    product ``best_shop_gain`` forms for that shop alone), or 0."""
    bound = 0.0
    neighbors, room, height, beside_mask = view.tables.neighbors, view.shop_room, view.height, view.beside_mask
    district_empty = view.district_empty
    scorings, crowded = scorings_table(view)
    for d, plot in enumerate(view.plots_owned[0]):
        if plot < 0:  # (a closed district has no plot left)
            continue
        left, right = neighbors[plot]
        if room[left] or room[right]:
            adds = _TYPE_GAIN[beside_mask[plot]]
            most = 0  # max(adds[t] for t in tiles): the gains are >= 0 (a loop costs less than a generator here)
            for t in tiles:
                if adds[t] > most:
                    most = adds[t]
            if most:
                value = height[plot] * most * (crowded if district_empty[d] <= 1 else scorings)
                if value > bound:
                    bound = value
    return bound


def shop_plots(view: View) -> list[int]:
    """Plots where a shop may go now (R17), ascending (shared by the views of one board)."""
    return list(compress(range(NUM_PLOTS), view.shop_room))


def district_margin(view: View, d: int) -> int:
    """What scoring ``d`` now gives me minus the best other seat."""
    memo = view.seat_memo
    key = ("margin", d)
    margin = memo.get(key)
    if margin is None:
        scores = view.district_scores(d)
        margin = memo[key] = scores[0] - max(scores[1:])
    return margin


def projected_margin(view: View) -> float:
    """My VP minus the best other seat's if the game ended now (open districts and Central Park scored)."""
    memo = view.seat_memo
    board = memo.get("projected")
    if board is None:  # what the board adds per seat: the open districts' VP (ints), Central Park's
        cp = central_park_value(view)
        park = []  # (loops: a comprehension is a call in Python 3.11)
        for k in view.central_park:
            park.append(cp * k)
        board = memo["projected"] = (view.open_district_scores, park)
    districts, park = board
    totals = []
    for score, vp, cp in zip(view.scores, districts, park):
        totals.append(score + vp + cp)
    return totals[0] - max(totals[1:])


def route_neighbours(d: int) -> set[int]:
    """Districts one commissioner step before or after ``d`` (R6)."""
    return set(_ROUTE_NEIGHBOURS[d])


_ROUTE_NEIGHBOURS = [frozenset({x for x in SUCCESSORS[d] if x < NUM_DISTRICTS}
                               | {x for x, succ in SUCCESSORS.items() if d in succ and x < NUM_DISTRICTS})
                     for d in range(NUM_DISTRICTS)]


def seat_interest(view: View, slot: int, d: int) -> float:
    """What an auction in district ``d`` is roughly worth to relative seat ``slot`` (VP)."""
    return _interests(view, d)(slot)


def _interests(view: View, d: int) -> Callable[[int], float]:
    """``seat_interest(view, slot, d)`` as a function of ``slot``, the district read once."""
    if view.closed[d]:
        return lambda slot: 0.0
    first_plot, best_empty = _holdings(view, d)
    reserve = view.reserve

    def interest(slot: int) -> float:
        return _interest(view, first_plot.get(slot), best_empty, reserve[slot])

    return interest


def _holdings(view: View, d: int) -> tuple[dict[int, int], float | None]:
    """(relative seat -> its first plot in open district ``d``, the best expected value of an empty plot
    there or None)."""
    owner, empty = view.owner, view.empty
    table, beside_mask, beside_room = plot_value_table(view), view.beside_mask, view.beside_room
    first_plot: dict[int, int] = {}
    best_empty = None
    for plot in view.tables.district_plots[d]:
        slot = owner[plot]
        if slot >= 0 and slot not in first_plot:
            first_plot[slot] = plot
        elif empty[plot]:
            value = table[beside_mask[plot]][beside_room[plot]]  # expected_plot_value(view, plot)
            if best_empty is None or value > best_empty:
                best_empty = value
    return first_plot, best_empty


def _interest(view: View, plot: int | None, best_empty: float | None, reserve: int) -> float:
    """A seat's interest in a district where it has ``plot`` (None: where it would take the best empty one)."""
    if plot is not None:
        return expected_plot_value(view, plot) * min(3, max(reserve, 1))
    return 0.6 * best_empty * min(2, max(reserve, 1)) if best_empty is not None else 0.0


def auction_interest(view: View, loc: int) -> float:
    """My interest in an auction at ``loc`` beyond the others': positive where I am the strong one."""
    if loc == CENTRAL_PARK:
        return 0.0
    return auction_interests(view)[loc]


def auction_interests(view: View) -> list[float]:
    """``auction_interest`` of every district, computed together (a commissioner move weighs them all)."""
    memo = view.seat_memo
    key = ("interests", tuple(view.reserve))  # the reserves change without the board (action A)
    values = memo.get(key)
    if values is None:
        values = memo[key] = _auction_interests(view)
    return values


def _auction_interests(view: View) -> list[float]:
    """Per district: ``_interests`` of me minus 0.7 times the strongest other seat's (0 where closed)."""
    closed, n = view.closed, view.n
    # _interest's factors per seat: min(3, max(reserve, 1)) where it has a plot, min(2, ...) where not
    has_plot, no_plot = [], []  # (a loop: a comprehension is a call in Python 3.11)
    for r in view.reserve:
        has_plot.append(3 if r >= 3 else (r if r > 1 else 1))
        no_plot.append(2 if r >= 2 else 1)
    table, beside_mask, beside_room = plot_value_table(view), view.beside_mask, view.beside_room
    empty, district_empty, district_plots = view.empty, view.district_empty, view.tables.district_plots
    plots_owned = view.plots_owned
    seats = range(n)
    values = []
    for d in range(NUM_DISTRICTS):
        if closed[d]:
            values.append(0.0)
            continue
        best_empty = None  # _holdings and _interest per seat, inlined (a move's hot path)
        if district_empty[d]:
            for plot in district_plots[d]:
                if empty[plot]:
                    value = table[beside_mask[plot]][beside_room[plot]]  # expected_plot_value(view, plot)
                    if best_empty is None or value > best_empty:
                        best_empty = value
        mine = strongest = 0.0  # my interest and the strongest other seat's (max() of theirs, without the call)
        for slot in seats:
            plot = plots_owned[slot][d]
            if plot >= 0:
                interest = table[beside_mask[plot]][beside_room[plot]] * has_plot[slot]
            else:
                interest = 0.6 * best_empty * no_plot[slot] if best_empty is not None else 0.0
            if not slot:
                mine = interest
            elif slot == 1 or interest > strongest:
                strongest = interest
        values.append(mine - 0.7 * strongest)
    return values
