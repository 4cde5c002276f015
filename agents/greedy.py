"""GreedyAgent: takes the action with the best immediate VP gain, otherwise a simple default.

"Immediate" means VP scored by this very decision or by what it fixes now,
counted as if the board were scored right away:

- action D and the district to score: the most VP for itself (D whenever that is above 0);
- action B when the next tile triggers a special scoring it qualifies for (R17);
- shop tile and plot: the most added value to its own skyscrapers if scored now;
- building: a building stop whenever it may declare one (it scores 1 VP per
  skyscraper there at once), otherwise as many skyscrapers as it may;
- starting skyscrapers: the plot worth the most now.

Defaults where no VP is at stake: action A when its reserve is below 2 (and its
supply is not empty), else C; a random colored pile and commissioner move; in
auctions the ``value`` bidding strategy with a win valued at what the
skyscrapers would score now (1 card point per VP).
"""

from fifthave_env.engine.actions import (
    BUILD,
    CHOOSE_ACTION,
    DECLARE_STOP,
    PLACE_START,
    SCORE_DISTRICT,
    SHOP_PLOT,
    SHOP_TILE,
)
from fifthave_env.engine.board import CENTRAL_PARK
from fifthave_env.engine import game as G
from fifthave_env.engine.scoring import SPECIAL_SCORING

from .bidding import AuctionSituation, ValueBidding
from .heuristic import HeuristicAgent
from .valuation import shop_gain, shop_plots
from .view import SeatView

ACTION_A, ACTION_B, ACTION_C, ACTION_D = (CHOOSE_ACTION + i for i in range(4))


class GreedyAgent(HeuristicAgent):
    """Immediate VP first (see the module docstring); reuses HeuristicAgent's card laying and tie-breaking."""

    def __init__(self, name: str = "greedy") -> None:
        super().__init__(bidding=ValueBidding(), points_per_vp=1.0, name=name)
        # the other decisions use the methods overridden below
        cls = type(self)
        self._handlers.update({G.DRAW_COLOR_DECISION: cls._random, G.MOVE_DECISION: cls._random})

    def _random(self, view: SeatView):
        return view.legal[self.rng.integers(len(view.legal))]  # type: ignore[union-attr]  # reset() set rng

    def _place_start(self, view):
        return self._best([(view.plot_value(a - PLACE_START), a) for a in view.legal])

    def _own_score(self, view, d):
        return view.district_scores(d)[0]

    def _choose_action(self, view):
        legal = view.legal
        gains = []
        if ACTION_D in legal:
            gains.append((max(self._own_score(view, d) for d in self._scorable(view)), ACTION_D))
        if ACTION_B in legal:
            rule = SPECIAL_SCORING.get(round(view.progress_shops * 12) + 1)
            if rule is not None and view.districts_owned[0] >= rule[0]:
                gains.append((rule[1], ACTION_B))
        if gains:
            gain, action = max(gains)
            if gain > 0:
                return action
        if view.reserve[0] < 2 and view.supply[0] > 0:
            return ACTION_A
        return ACTION_C

    def _score_district(self, view):
        return self._best([(self._own_score(view, a - SCORE_DISTRICT), a) for a in view.legal])

    def _own_shop_gain(self, view, plot, tile):
        return shop_gain(view, plot, tile, own_weight=1.0, other_weight=0.0, horizon=False)

    def _shop_tile(self, view):
        plots = shop_plots(view)
        scored = [(max(self._own_shop_gain(view, p, a - SHOP_TILE) for p in plots), a) for a in view.legal]
        return self._best(scored)

    def _shop_plot(self, view):
        tile = view.pending_tile
        return self._best([(self._own_shop_gain(view, a - SHOP_PLOT, tile), a) for a in view.legal])

    def _plan_bid(self, view):
        loc = view.auction_location
        allowed = tuple(view.allowed_colors)
        builds = tuple(range(1, min(3, view.reserve[0]) + 1))
        if loc == CENTRAL_PARK:
            per = 1  # nothing is scored there before the end
        elif view.auction_full:  # it would declare a stop: 1 VP per skyscraper there
            return self.bidding.plan(AuctionSituation(view, lambda b: view.skyscrapers_in(loc), (0,), allowed))
        else:
            plot = view.my_plot(loc)
            colors = view.tables.plot_color
            candidates = [plot] if plot >= 0 else [
                p for p in view.tables.district_plots[loc] if view.is_empty(p) and colors[p] in allowed]
            per = max((view.plot_value(p) for p in candidates), default=0)
            allowed = tuple(colors[p] for p in candidates if view.plot_value(p) == per) or allowed
        return self.bidding.plan(AuctionSituation(view, lambda b: b * per, builds, allowed))

    def _build(self, view):
        if DECLARE_STOP in view.legal:
            return DECLARE_STOP
        return BUILD + max(a - BUILD for a in view.legal)
