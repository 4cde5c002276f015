"""The board: districts, plot rings, shop types and commissioner routes (R5-R9, R18).

Plots are numbered ``district * 6 + position``. On the 5-plot board position 5
does not exist; on the 6-plot board it is the colorless shop plot (R8) unless a
custom layout puts that plot elsewhere in the ring.
"""

from collections.abc import Sequence
from typing import Any

from . import checks
from .cards import COLOR_NAMES, NUM_COLORS

NUM_DISTRICTS = 7
PLOTS_PER_DISTRICT = 6  # storage width; the 5-plot board leaves position 5 unused
NUM_PLOTS = NUM_DISTRICTS * PLOTS_PER_DISTRICT
DISTRICT_NAMES = (
    "34th St West",
    "34th St East",
    "42nd St West",
    "Times Square",
    "42nd St East",
    "52nd St West",
    "52nd St East",
)
CENTRAL_PARK = 7
CITY_HALL = 8
NUM_LOCATIONS = 9
LOCATION_NAMES = DISTRICT_NAMES + ("Central Park", "City Hall")

SHOP_NAMES = ("boutique", "jeweler", "gallery", "perfume")
NUM_SHOP_TYPES = 4
SHOPS_PER_TYPE = 9  # R2
ROW_SLOTS = 20  # tiles in the shop row (R9)
TOTAL_SHOPS = NUM_SHOP_TYPES * SHOPS_PER_TYPE

COMMISSIONER_NAMES = ("white", "beige")

# Plot colors; NO_PLOT marks the unused sixth slot of the 5-plot board.
SHOP_PLOT = -1
NO_PLOT = -2

# R19: victory points of a skyscraper by the number of different adjacent shop types.
VP_BY_SHOP_TYPES = (1, 2, 3, 5, 8)
POPCOUNT4 = tuple(bin(m).count("1") for m in range(16))

# R6: commissioner moves, left to right.
SUCCESSORS = {
    CITY_HALL: (0, 1),
    0: (2, 3),
    1: (3, 4),
    2: (5,),
    3: (5, 6),
    4: (6,),
    5: (CENTRAL_PARK,),
    6: (CENTRAL_PARK,),
    CENTRAL_PARK: (CITY_HALL,),
}

# R7: the default ring orders. No rulebook text gives the printed order; this is
# the placeholder of RULINGS.md R7 (every color pair adjacent 3 or 4 times).
DEFAULT_LAYOUT_SOURCE = "RULINGS.md R7 placeholder (not the printed board)"
DEFAULT_LAYOUT_5 = (
    ("gray", "brown", "violet", "orange", "green"),
    ("violet", "green", "brown", "orange", "gray"),
    ("orange", "green", "gray", "brown", "violet"),
    ("brown", "orange", "gray", "violet", "green"),
    ("green", "gray", "brown", "violet", "orange"),
    ("gray", "violet", "green", "brown", "orange"),
    ("brown", "violet", "orange", "green", "gray"),
)
# R8: the sixth, colorless shop plot sits at position 5, between 4 and 0 (unverified).
DEFAULT_LAYOUT_6 = tuple(ring + (None,) for ring in DEFAULT_LAYOUT_5)


def default_layout(plots_per_district: int) -> tuple:
    return DEFAULT_LAYOUT_5 if plots_per_district == 5 else DEFAULT_LAYOUT_6


def parse_layout(layout: Any, plots_per_district: int) -> list[int]:
    """Validate a ring layout and return plot colors as a flat list of 42 ints.

    ``layout`` holds 7 rings; each ring lists its plots in ring order by color
    name (or color id). The 6-plot board has one ``None`` per ring for the
    colorless shop plot. Every ring must use every color exactly once, because
    a bid color names one plot of the district (R22).
    """
    layout = checks.sequence("layout", layout, NUM_DISTRICTS)  # one ring per district
    colors = [NO_PLOT] * NUM_PLOTS
    for d, ring in enumerate(layout):
        ring = checks.sequence(f"layout[{d}] (the ring of {DISTRICT_NAMES[d]})", ring)
        if len(ring) != plots_per_district:
            raise checks.InvalidValueError(
                f"layout[{d}] ({DISTRICT_NAMES[d]}): a ring on the {plots_per_district}-plot board "
                f"has {plots_per_district} plots, got {len(ring)}"
            )
        ids = []
        for entry in ring:
            if entry is None:
                ids.append(SHOP_PLOT)
            elif isinstance(entry, str) and entry in COLOR_NAMES:
                ids.append(COLOR_NAMES.index(entry))
            elif checks.is_int(entry) and 0 <= entry < NUM_COLORS:
                ids.append(int(entry))
            else:
                raise checks.InvalidValueError(
                    f"layout[{d}]: unknown plot color {checks.shown(entry)}; allowed: {', '.join(COLOR_NAMES)} "
                    f"(or color ids 0-{NUM_COLORS - 1})"
                    + (" or None for the shop plot" if plots_per_district == 6 else "")
                )
        if sorted(c for c in ids if c >= 0) != list(range(NUM_COLORS)) or ids.count(SHOP_PLOT) != plots_per_district - 5:
            raise checks.InvalidValueError(
                f"layout[{d}] ({DISTRICT_NAMES[d]}): each ring must hold every color exactly once"
                + (" and one None (shop plot)" if plots_per_district == 6 else "")
                + f", got {ring}"
            )
        for p, c in enumerate(ids):
            colors[d * PLOTS_PER_DISTRICT + p] = c
    return colors


def ring_neighbors(plots_per_district: int) -> list[tuple[int, ...]]:
    """For every plot index, the two plots beside it in its ring (R7); () for unused slots."""
    neighbors: list[tuple[int, ...]] = []
    for d in range(NUM_DISTRICTS):
        for p in range(PLOTS_PER_DISTRICT):
            if p >= plots_per_district:
                neighbors.append(())
            else:
                base = d * PLOTS_PER_DISTRICT
                k = plots_per_district
                neighbors.append((base + (p - 1) % k, base + (p + 1) % k))
    return neighbors


_DESTINATION_CACHE: dict[tuple[int, int], tuple[int, ...]] = {}


def destinations(position: int, closed_mask: int) -> tuple[int, ...]:
    """Where a commissioner at ``position`` may move, jumping closed districts (R6)."""
    key = (position, closed_mask)
    found = _DESTINATION_CACHE.get(key)
    if found is None:
        result = []
        stack = list(SUCCESSORS[position])
        while stack:
            loc = stack.pop(0)
            if loc < NUM_DISTRICTS and closed_mask >> loc & 1:
                stack[0:0] = SUCCESSORS[loc]
            elif loc not in result:
                result.append(loc)
        found = _DESTINATION_CACHE[key] = tuple(sorted(result))
    return found


def plot_name(plot: int, plot_colors: Sequence[int] | None = None) -> str:
    d, p = divmod(plot, PLOTS_PER_DISTRICT)
    if plot_colors is None:
        return f"{DISTRICT_NAMES[d]} #{p}"
    c = plot_colors[plot]
    label = COLOR_NAMES[c] if c >= 0 else ("shop plot" if c == SHOP_PLOT else "no plot")
    return f"{DISTRICT_NAMES[d]} {label}"
