"""Scoring: districts (R19), building stops (R24), special scoring (R17), the end (R27, R28)."""

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .board import (
    NUM_DISTRICTS,
    PLOTS_PER_DISTRICT,
    POPCOUNT4,
    VP_BY_SHOP_TYPES,
)

if TYPE_CHECKING:  # game imports this module
    from .game import Game

SPECIAL_SCORING = {3: (3, 4), 6: (4, 6), 9: (5, 8)}  # tiles placed -> (districts needed, VP), R17


def shop_mask(shops: Iterable[int]) -> int:
    mask = 0
    for t in shops:
        mask |= 1 << t
    return mask


def plot_value(g: "Game", plot: int) -> int:
    """VP one skyscraper on ``plot`` scores: by the different shop types on its two neighbours (R19)."""
    return VP_BY_SHOP_TYPES[POPCOUNT4[g.plot_beside_mask[plot]]]


def district_plot_values(g: "Game", d: int) -> list[int]:
    """``plot_value`` of district ``d``'s plots at once (each plot's shops read once; a plot's
    neighbours lie in its district); 0 for unused slots."""
    base = d * PLOTS_PER_DISTRICT
    return [VP_BY_SHOP_TYPES[POPCOUNT4[mask]] if pair else 0
            for mask, pair in zip(g.plot_beside_mask[base:base + PLOTS_PER_DISTRICT],
                                  g.neighbors[base:base + PLOTS_PER_DISTRICT])]


def district_scores(g: "Game", d: int, values: Sequence[int] | None = None) -> list[int]:
    """What scoring district ``d`` gives each real player (Alea never scores, R19).

    ``values``: every plot's ``plot_value`` (indexed by plot), when the caller has them already;
    without them, the scores the game keeps up to date (``Game.district_vp``)."""
    if values is None:
        return g.district_vp[d][:]
    scores = [0] * g.n
    base = d * PLOTS_PER_DISTRICT
    for plot in range(base, base + PLOTS_PER_DISTRICT):
        owner = g.plot_owner[plot]
        if 0 <= owner < g.n:
            scores[owner] += values[plot] * g.plot_height[plot]
    return scores


def skyscrapers_in(g: "Game", d: int) -> int:
    base = d * PLOTS_PER_DISTRICT
    return sum(g.plot_height[base:base + PLOTS_PER_DISTRICT])


def special_scoring(g: "Game") -> None:
    """Right after the 3rd, 6th and 9th tile placed from the row (R17)."""
    rule = SPECIAL_SCORING.get(g.shops_placed)
    if rule is None:
        return
    needed, vp = rule
    for p in range(g.n):
        if sum(1 for plot in g.owned[p] if plot >= 0) >= needed:
            g.scores[p] += vp


def central_park_value(drawn_types: Iterable[int]) -> int:
    """VP of one Central Park skyscraper given the tiles drawn from the box (R27)."""
    return VP_BY_SHOP_TYPES[len(set(drawn_types))]


def final_scoring(g: "Game") -> None:
    """Score every open district, then Central Park with a random draw from the box (R27)."""
    for d in range(NUM_DISTRICTS):
        if not g.closed[d]:
            for p, vp in enumerate(district_scores(g, d)):
                g.scores[p] += vp
    k = min(3, len(g.box))
    drawn = [g.box[i] for i in sorted(g.rng.choice(len(g.box), size=k, replace=False).tolist())] if k else []
    g.central_park_draw = drawn
    value = central_park_value(drawn)
    for p in range(g.n):
        g.scores[p] += value * g.cp_skyscrapers[p]


def leaders(g: "Game") -> list[int]:
    """Seats with the most VP, the tie broken by most cards in hand; several on a full tie (R28)."""
    best = max(g.scores)
    tied = [p for p in range(g.n) if g.scores[p] == best]
    if len(tied) == 1:
        return tied
    sizes = {p: sum(g.hands[p]) for p in tied}
    most = max(sizes.values())
    return [p for p in tied if sizes[p] == most]

