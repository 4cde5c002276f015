"""A readable seat view for scripted agents, built only from what the seat is given.

:class:`SeatView` reads an observation vector through
``fifthave_env.observation.views`` and adds the public tables that follow from
the :class:`GameConfig` (plot colors, ring neighbours). It never touches a
``Game``, so an agent that decides from a ``SeatView`` sees exactly what its
seat may see. Seats are relative, as in the observation: 0 is the viewer, then
clockwise; owner id 4 is Alea. Fields are computed on first use and cached,
because most decisions need only a few of them.
"""

from functools import cached_property

import numpy as np

from fifthave_env.engine.board import (
    NO_PLOT,
    NUM_DISTRICTS,
    NUM_PLOTS,
    PLOTS_PER_DISTRICT,
    POPCOUNT4,
    VP_BY_SHOP_TYPES,
    parse_layout,
    ring_neighbors,
)
from fifthave_env.engine.cards import KIND_VALUE, NUM_COLORS, NUM_KINDS
from fifthave_env.engine.game import GAME_OVER
from fifthave_env.observation import views

NO_OWNER = -1



def _one_hot_index(onehot):
    """The index set in a one-hot view, -1 when none is."""
    return int(onehot.argmax()) if onehot.any() else -1

class BoardTables:
    """What a configuration fixes about the board (public knowledge)."""

    def __init__(self, config):
        self.plot_color = parse_layout(config.layout, config.board)
        self.neighbors = ring_neighbors(config.board)
        self.district_plots = [[] for _ in range(NUM_DISTRICTS)]  # plots that exist, ring order
        for plot, c in enumerate(self.plot_color):
            d = plot // PLOTS_PER_DISTRICT
            if c != NO_PLOT:
                self.district_plots[d].append(plot)


_TABLES = {}


def board_tables(config):
    tables = _TABLES.get(config)
    if tables is None:
        tables = _TABLES[config] = BoardTables(config)
    return tables


def _rounded(array, scale=1.0):
    return [int(round(x * scale)) for x in array.tolist()]


class SeatView:
    """One seat's observation, as plain Python lists and ints."""

    def __init__(self, observation, action_mask, config):
        self.config = config
        self.n = config.num_players
        self.tables = board_tables(config)
        self.v = views(np.asarray(observation))
        self.mask = action_mask

    # ---- the decision ------------------------------------------------------------------

    @cached_property
    def legal(self):
        return np.flatnonzero(self.mask).tolist()

    @cached_property
    def decision(self):
        onehot = self.v["decision"]
        return int(onehot.argmax()) if onehot.any() else GAME_OVER

    @cached_property
    def progress(self):
        """How far the game is towards its end, 0..1: the larger of shops placed / 12 and stops / 2."""
        _, stops, shops = self.v["progress"].tolist()
        return max(stops, shops)

    @cached_property
    def progress_shops(self):
        """Shops placed from the row / 12."""
        return float(self.v["progress"][2])

    @cached_property
    def stops(self):
        return int(round(float(self.v["progress"][1]) * 2))

    @cached_property
    def pending_tile(self):
        return _one_hot_index(self.v["pending_tile"])

    # ---- the board -----------------------------------------------------------------------

    @cached_property
    def owner(self):
        """Per plot: the relative seat (0 = me) owning its skyscrapers, 4 for Alea, -1 for none."""
        owners = self.v["plot_owner"]
        result = [NO_OWNER] * NUM_PLOTS
        for plot, slot in zip(*np.nonzero(owners)):
            result[int(plot)] = int(slot)
        return result

    @cached_property
    def height(self):
        return _rounded(self.v["plot_height"])

    @cached_property
    def shop_mask(self):
        """Per plot: bitmask of the shop types on it."""
        shops = self.v["plot_shops"]
        result = [0] * NUM_PLOTS
        for plot, t in zip(*np.nonzero(shops)):
            result[int(plot)] |= 1 << int(t)
        return result

    @cached_property
    def shop_count(self):
        return _rounded(self.v["plot_shops"].sum(axis=1))

    @cached_property
    def closed(self):
        return [bool(x) for x in self.v["district_closed"].tolist()]

    @cached_property
    def commissioner_at(self):
        return [int(self.v["commissioner_at"][c].argmax()) for c in (0, 1)]

    @cached_property
    def markers(self):
        return [[bool(x) for x in self.v["markers"][c].tolist()] for c in (0, 1)]

    @cached_property
    def box_types(self):
        """Distinct shop types in the Central Park box."""
        return int((self.v["box"] > 0).sum())

    @cached_property
    def box_size(self):
        return int(round(float(self.v["box"].sum())))

    @cached_property
    def active_tiles(self):
        """Shop types available in the active group of the row."""
        row = self.v["row"][self.v["row_active"] > 0]
        return sorted({int(t) for t in np.nonzero(row)[1]})

    def is_empty(self, plot):
        """A colored plot with no skyscraper and no shop (where a new skyscraper may go)."""
        return self.tables.plot_color[plot] >= 0 and not self.height[plot] and not self.shop_count[plot]

    def plot_value(self, plot, extra_shops=None):
        """VP one skyscraper on ``plot`` scores now (R19); ``extra_shops`` = (plot, type) added first."""
        a, b = self.tables.neighbors[plot]
        mask = self.shop_mask[a] | self.shop_mask[b]
        if extra_shops is not None and extra_shops[0] in (a, b):
            mask |= 1 << extra_shops[1]
        return VP_BY_SHOP_TYPES[POPCOUNT4[mask]]

    def district_scores(self, d):
        """VP scoring district ``d`` gives each relative seat now."""
        scores = [0] * self.n
        for plot in self.tables.district_plots[d]:
            slot = self.owner[plot]
            if 0 <= slot < self.n:
                scores[slot] += self.plot_value(plot) * self.height[plot]
        return scores

    def skyscrapers_in(self, d):
        return sum(self.height[plot] for plot in self.tables.district_plots[d])

    def my_plot(self, d):
        """My plot in district ``d``, or -1."""
        for plot in self.tables.district_plots[d]:
            if self.owner[plot] == 0:
                return plot
        return -1

    def owners_in(self, d):
        return {self.owner[p] for p in self.tables.district_plots[d] if self.owner[p] != NO_OWNER}

    # ---- players -------------------------------------------------------------------------

    @cached_property
    def scores(self):
        return _rounded(self.v["score"][: self.n], 50)

    @cached_property
    def reserve(self):
        return _rounded(self.v["reserve"][: self.n], 18)

    @cached_property
    def supply(self):
        return _rounded(self.v["supply"][: self.n], 18)

    @cached_property
    def central_park(self):
        return _rounded(self.v["central_park"][: self.n])

    @cached_property
    def hand(self):
        """My hand as 18 counts (kind = color * 3 + value index)."""
        return _rounded(self.v["known_cards"][0])

    @cached_property
    def hand_colors(self):
        """Cards in hand per color (black last) for every relative seat."""
        return [_rounded(row) for row in self.v["hand_colors"][: self.n]]

    @cached_property
    def hand_points(self):
        """Total card value in each seat's hand, counting unknown cards as 5."""
        points = []
        for slot in range(self.n):
            known = _rounded(self.v["known_cards"][slot])
            count = sum(self.hand_colors[slot])
            points.append(sum(KIND_VALUE[k] * known[k] for k in range(NUM_KINDS)) + 5 * (count - sum(known)))
        return points

    @cached_property
    def districts_owned(self):
        """Per relative seat: districts where it has a plot."""
        counts = [0] * self.n
        for d in range(NUM_DISTRICTS):
            for slot in self.owners_in(d):
                if slot < self.n:
                    counts[slot] += 1
        return counts

    # ---- piles -------------------------------------------------------------------------

    @cached_property
    def pile_top(self):
        """Per color: the value index of the top card, or -1 for an empty pile."""
        tops = self.v["pile_top"]
        return [_one_hot_index(tops[c]) for c in range(NUM_COLORS)]

    # ---- the auction ---------------------------------------------------------------------

    @cached_property
    def auction_location(self):
        return _one_hot_index(self.v["auction_location"])

    @cached_property
    def auction_full(self):
        return bool(self.v["auction_full"][0])

    @cached_property
    def high_bid(self):
        return int(round(float(self.v["high_bid"][0]) * 50))

    @cached_property
    def high_bidder(self):
        return _one_hot_index(self.v["high_bidder"])

    @cached_property
    def my_table_cards(self):
        """Cards I have laid in this auction."""
        return _rounded(self.v["auction_cards"][0])

    @cached_property
    def my_bid_color(self):
        return _one_hot_index(self.v["auction_color"][0])

    @cached_property
    def allowed_colors(self):
        return [c for c in range(NUM_COLORS) if self.v["allowed_colors"][c] > 0]

    @cached_property
    def auction_passed(self):
        return [bool(x) for x in self.v["auction_passed"][: self.n].tolist()]

