"""HeuristicAgent: plays the way the rulebook's tips describe, with pluggable bidding.

Per decision (all from what its seat may know: a seat view, :mod:`fifthave_env.seat_view`; ``act``
reads it from the observation, ``act_view`` is handed it by a runner that holds the game):

- starting skyscrapers: next to the starting shops (the rulebook's tip), with
  room for more shops beside them, and the second one in a district next to the
  first along the commissioners' routes ("near its neighbours"), so that one
  commissioner trip serves both;
- actions: D when scoring a district there gains it at least ``score_margin`` VP
  more than the best other player (the rulebook's tip); B when a shop beside its
  own skyscrapers gains enough, a threshold that falls as the game goes on
  (shops late rather than early, when the others can no longer build beside
  them), or, leading by ``hurry_lead`` VP (projected), to hurry the end of the
  game (12 tiles), or when placing the 12th tile ends a game it leads; A when its reserve
  runs low; C otherwise (a black card and an extra commissioner move);
- colored cards: the colors of its own plots and of the empty plots it wants,
  weighted by what those plots are worth and by how few such cards it holds;
- commissioners: toward districts where it is stronger than the others (an
  auction there favours it) and home to City Hall when the auctions it triggers
  favour it and its hand is strong;
- auctions: it values a win as the expected VP of the skyscrapers it could build
  (their plot's shops now, the shops likely to come, the chance the district is
  scored again) or of the building stop, converted to card points with
  ``points_per_vp``; the bidding strategy (see :mod:`fifthave.agents.bidding`) decides
  how much of that value to bid and how;
- building: as many skyscrapers as it may, unless a building stop is worth more
  (also when the stop ends a game it leads).
"""

from collections.abc import Callable

import numpy as np

from fifthave_env.engine.actions import (
    BID_ADD,
    BID_CONFIRM,
    BID_PASS,
    BUILD,
    CHOOSE_ACTION,
    DECLARE_STOP,
    DRAW_COLOR,
    MOVE,
    PLACE_START,
    SCORE_DISTRICT,
    SHOP_PLOT,
    SHOP_TILE,
)
from fifthave_env.engine.board import (
    CENTRAL_PARK,
    CITY_HALL,
    NUM_DISTRICTS,
    NUM_LOCATIONS,
    PLOTS_PER_DISTRICT,
    POPCOUNT4,
    VP_BY_SHOP_TYPES,
)
from fifthave_env.engine.cards import NUM_COLORS
from fifthave_env.engine import game as G
from fifthave_env.engine.game import GameConfig
from fifthave_env.engine.scoring import SPECIAL_SCORING

from .bidding import (
    AggressiveBidding,
    AuctionSituation,
    BiddingStrategy,
    ConservativeBidding,
    ValueBidding,
    make_bidding,
)
from .valuation import (
    auction_interests,
    best_shop_gains,
    central_park_value,
    district_margin,
    expected_plot_value,
    expected_scorings,
    plot_value_table,
    projected_margin,
    relative,
    route_neighbours,
    scorings_table,
    shop_gain_bound,
    shop_gains,
    stop_value,
)
from .view import SeatView, View

ACTION_A, ACTION_B, ACTION_C, ACTION_D = (CHOOSE_ACTION + i for i in range(4))
TIE_NOISE = 1e-3  # random tie-breaking between equally good choices
# strategies whose plan depends only on the view's board, seat, auction, reserve, hand and table (and no setting)
SHAREABLE_PLANS = frozenset((ValueBidding, ConservativeBidding, AggressiveBidding))
_SHARED_PLANS: dict[tuple, tuple[int, ...] | None] = {}  # their plans by all they depend on (share_plans)
_MAX_SHARED_PLANS = 20_000  # ~200 bytes each; a labelled game adds ~5,000
_BUILD_OPTIONS = ((), (1,), (1, 2), (1, 2, 3))  # the builds worth bidding for, by skyscrapers in reserve (at most 3)
_NEW_DISTRICT_BONUS: dict[tuple[int, int], float] = {}  # _new_district_bonus by (districts owned, tiles placed)


class HeuristicAgent:
    """A rule-of-thumb player; ``bidding`` is a name from ``fifthave.agents.bidding.BIDDING_STRATEGIES`` or a strategy."""

    reads_view = True  # runners that hold the game call act_view (agent_protocol.reads_view)

    def __init__(self, bidding: "str | BiddingStrategy" = "value", points_per_vp: float = 2.0, score_margin: float = 2,
                 hurry_lead: float = 15, name: str | None = None, share_plans: bool = False) -> None:
        self.bidding = make_bidding(bidding)
        self.share_plans = share_plans
        """Reuse bid plans across agents and games, by all a plan depends on (what each build is worth, the
        hand, the table, the high bid): the search's rollouts meet the same auction, hand and table again
        and again across samples and candidates (two plans in three in labelling); a tournament hardly
        ever, where the lookup would only cost. Only for the built-in strategies whose plan depends on
        nothing else (``SHAREABLE_PLANS``)."""
        self.points_per_vp = points_per_vp
        self.score_margin = score_margin
        self.hurry_lead = hurry_lead
        self.name = name or ("heuristic" if self.bidding.name == "value" else f"heuristic-{self.bidding.name}")
        self.config: GameConfig | None = None
        self.rng: np.random.Generator | None = None
        self._pending: list[int] | None = None  # cards still to lay in the current bidding turn
        # the methods per decision, as functions of the class (bound methods here would make each agent a
        # reference cycle, freed only by the garbage collector: ~20 objects per agent and game, issue 36)
        cls = type(self)
        self._handlers: dict[int, Callable[..., int]] = {
            G.PLACE_START_DECISION: cls._place_start,
            G.CHOOSE_ACTION_DECISION: cls._choose_action,
            G.SHOP_TILE_DECISION: cls._shop_tile,
            G.SHOP_PLOT_DECISION: cls._shop_plot,
            G.DRAW_COLOR_DECISION: cls._draw_color,
            G.MOVE_DECISION: cls._move,
            G.SCORE_DISTRICT_DECISION: cls._score_district,
            G.BID_DECISION: cls._bid,
            G.BUILD_DECISION: cls._build,
        }

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        self.config = config
        self.rng = rng
        self._pending = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        config = self.config  # reset() set it
        return self.act_view(SeatView(observation, action_mask, config))  # type: ignore[arg-type]

    def act_view(self, view: View) -> int:
        """The action for a seat view (a ``StateView`` from a runner, or the ``SeatView`` ``act`` builds)."""
        legal, decision = view.legal, view.decision
        if not legal:
            raise ValueError(f"{self.name} was asked to act with no legal action (all-zero action mask)")
        if len(legal) == 1 and decision != G.BID_DECISION:
            return legal[0]
        return self._handlers[decision](self, view)

    def drop_plan(self) -> None:
        """Forget the bid plan in progress: the seat this agent advises played something else, so the
        next bidding decision plans again from the cards on the table."""
        self._pending = None

    def _best(self, scored: list[tuple[float, int]]) -> int:
        """The choice with the highest score; ties broken at random. ``scored``: (score, action) pairs."""
        draws = self.rng.random(len(scored)).tolist()  # type: ignore[union-attr]  # reset() set rng
        totals = [score + z * TIE_NOISE for (score, _), z in zip(scored, draws)]  # (the same products as numpy's)
        return scored[totals.index(max(totals))][1]  # the first of equal totals, as max() picks

    # ---- setup and turn choices ---------------------------------------------------------

    def _place_start(self, view):
        mine = {d for d in range(NUM_DISTRICTS) if view.my_plot(d) >= 0}
        near = set().union(*(route_neighbours(d) for d in mine)) if mine else set()
        table, beside_mask, beside_room = plot_value_table(view), view.beside_mask, view.beside_room
        scored = []
        for a in view.legal:
            plot = a - PLACE_START
            d = plot // PLOTS_PER_DISTRICT
            mask = beside_mask[plot]  # view.plot_value(plot) and expected_plot_value(view, plot), inlined
            score = (2 * VP_BY_SHOP_TYPES[POPCOUNT4[mask]] + table[mask][beside_room[plot]]
                     + (1.0 if d in near else 0.0))
            scored.append((score, a))
        return self._best(scored)

    def _choose_action(self, view):
        legal = view.legal
        if ACTION_D in legal:
            margin = None  # the best district margin (a loop: a generator is a call in Python 3.11)
            for d in self._scorable(view):
                m = district_margin(view, d)
                if margin is None or m > margin:
                    margin = m
            if margin >= self.score_margin:  # type: ignore[operator]  # D legal: a district is scorable
                return ACTION_D
        if ACTION_B in legal:
            lead = projected_margin(view)
            if round(view.progress_shops * 12) == 11 and lead > 0:
                return ACTION_B  # the 12th tile ends a game it leads (R27)
            tiles, enough = view.active_tiles, 1.0 + 4.0 * (1.0 - view.progress)
            hurry = lead >= self.hurry_lead  # then any gain >= 0 will do
            # the best gain is computed only when its bound (what my own skyscrapers beside a shop plot could
            # gain) reaches the threshold: the same answer, the best gain skipped in ~60% of the turn choices
            if hurry or shop_gain_bound(view, tiles) + self._special_gain(view) >= enough:
                gain = self._best_shop(view, tiles)
                if gain >= enough or (hurry and gain >= 0):
                    return ACTION_B  # or hurry the end (12 tiles) while ahead
        if view.reserve[0] <= 1 and view.supply[0] > 0:
            return ACTION_A
        return ACTION_C

    def _scorable(self, view):
        closed, scorable = view.closed, []  # the open districts with a commissioner, ascending
        for loc in view.commissioner_at:
            if loc < NUM_DISTRICTS and not closed[loc] and loc not in scorable:
                scorable.append(loc)
        scorable.sort()
        return scorable

    def _score_district(self, view):
        return self._best([(district_margin(view, a - SCORE_DISTRICT), a) for a in view.legal])

    # ---- shops ---------------------------------------------------------------------------

    def _special_gain(self, view):
        """Relative VP of the special scoring the next tile would trigger (R17)."""
        rule = SPECIAL_SCORING.get(round(view.progress_shops * 12) + 1)
        if rule is None:
            return 0.0
        needed, vp = rule
        return relative(view, [vp if owned >= needed else 0 for owned in view.districts_owned])

    def _best_shop(self, view, tiles):
        """The relative VP gain of the best shop placement of one of ``tiles`` (special scoring included)."""
        memo = view.seat_memo
        key = ("best_shop", tuple(tiles))
        gain = memo.get(key)
        if gain is None:
            # each tile's best kept too: a turn choice's tiles are those its shop tile decision weighs next
            special = self._special_gain(view)
            gains = best_shop_gains(view, tiles)
            for t, best in zip(tiles, gains):
                memo["best_shop", (t,)] = best + special
            gain = memo[key] = max(gains, default=float("-inf")) + special
        return gain

    def _shop_tile(self, view):
        tiles = [a - SHOP_TILE for a in view.legal]
        scored = [(self._best_shop(view, [t]), SHOP_TILE + t) for t in tiles]
        return self._best(scored)

    def _shop_plot(self, view):
        legal = view.legal
        return self._best(list(zip(shop_gains(view, [a - SHOP_PLOT for a in legal], view.pending_tile), legal)))

    # ---- cards ---------------------------------------------------------------------------

    def _draw_color(self, view):
        demand = self._color_demand(view)
        hand, pile_top = view.hand, view.pile_top
        scored = []
        for a in view.legal:
            c = a - DRAW_COLOR
            k = 3 * c
            held = hand[k] + hand[k + 1] + hand[k + 2]  # my cards of color c (hand_colors[0][c])
            scored.append((demand[c] / (1 + held) + 0.1 * pile_top[c], a))
        return self._best(scored)

    def _color_demand(self, view):
        """Per color: what the plots I have or want of that color are worth (the board's, so shared)."""
        memo = view.seat_memo
        demand = memo.get("demand")
        if demand is not None:
            return demand
        demand = [0.0] * NUM_COLORS
        colors, closed, empty = view.tables.plot_color, view.closed, view.empty
        # expected_plot_value and expected_scorings, inlined
        table, beside_mask, beside_room = plot_value_table(view), view.beside_mask, view.beside_room
        scorings, crowded = scorings_table(view)
        district_empty, my_plots = view.district_empty, view.plots_owned[0]
        for d, plots in enumerate(view.tables.district_plots):
            if closed[d]:
                continue
            mine = my_plots[d]  # view.my_plot(d)
            if mine >= 0:
                demand[colors[mine]] += (table[beside_mask[mine]][beside_room[mine]]
                                         * (crowded if district_empty[d] <= 1 else scorings))
            else:
                for plot in plots:
                    if empty[plot]:
                        demand[colors[plot]] += 0.3 * table[beside_mask[plot]][beside_room[plot]]
        memo["demand"] = demand
        return demand

    # ---- commissioners -------------------------------------------------------------------

    def _move(self, view):
        interest = auction_interests(view)
        strength = view.hand_points[0] - max(view.hand_points[1:])
        closed, markers_of, at = view.closed, view.markers, view.commissioner_at
        # Per commissioner, computed once for all its moves (the same floats, added in the same order):
        # what leaving its district scores, and a return to City Hall (its marked districts' interests).
        leaving, returning = [], []
        for c in (0, 1):
            marked = markers_of[c]
            pos = at[c]
            score = 0.0
            unmarked = pos < NUM_DISTRICTS and not closed[pos] and not marked[pos]
            if unmarked:
                score += interest[pos]
            leaving.append(score)
            # the marked open districts' interests, then its own district's if unmarked, added in that order
            # (loops, not a comprehension and a generator: each is a call in Python 3.11)
            total = 0.0
            for d in range(NUM_DISTRICTS):
                if marked[d] and not closed[d]:
                    total += interest[d]
            if unmarked:
                total += interest[pos]
            returning.append(total + 0.2 * strength)
        towards: dict[int, float] = {}  # district -> what moving there adds (the same for both commissioners)
        scored = []
        for a in view.legal:
            c, dest = divmod(a - MOVE, NUM_LOCATIONS)
            score = leaving[c]
            if dest == CITY_HALL:
                score += returning[c]
            elif dest < NUM_DISTRICTS:
                term = towards.get(dest)
                if term is None:
                    term = towards[dest] = 0.5 * interest[dest] + 0.3 * district_margin(view, dest)
                score += term
            scored.append((score, a))
        return self._best(scored)

    # ---- auctions ------------------------------------------------------------------------

    def _bid(self, view):
        pending = self._pending
        if pending is None:
            pending = self._pending = self._plan_bid(view)
        if pending is None:
            return self._finish_bid(BID_PASS)
        legal = view.legal  # (both views have it: `in` here instead of a call to is_legal)
        while pending:
            action = BID_ADD + pending.pop(0)
            if action in legal:
                return action
        if BID_CONFIRM in legal:
            return self._finish_bid(BID_CONFIRM)
        return self._finish_bid(BID_PASS)  # the plan fell short (cannot happen with a correct plan)

    def _finish_bid(self, action):
        self._pending = None
        return action

    def _plan_bid(self, view):
        """The cards to lay this bidding turn (a new list), or None to pass."""
        ppv, bidding = self.points_per_vp, self.bidding
        reserve = view.reserve[0]
        builds = _BUILD_OPTIONS[reserve if reserve < 3 else 3]
        per, colors, stop, has_plot = self._auction_values(view)
        options = builds if stop is None else (0,) + (builds if has_plot else ())
        key = None
        if self.share_plans and type(bidding) in SHAREABLE_PLANS:
            # all that such a plan depends on: what the options are worth, the hand and the table
            key = (type(bidding), ppv, per, stop, options, colors, tuple(view.hand), tuple(view.my_table_cards),
                   view.my_bid_color, view.high_bid)
            if key in _SHARED_PLANS:
                shared = _SHARED_PLANS[key]
                return None if shared is None else list(shared)
        if stop is None:
            plan = bidding.plan(AuctionSituation(view, lambda b: ppv * b * per, options, colors))
        else:
            def worth(b: int) -> float:
                return ppv * (b * per if b else stop)

            plan = bidding.plan(AuctionSituation(view, worth, options, colors))
        if key is not None:
            if len(_SHARED_PLANS) >= _MAX_SHARED_PLANS:
                _SHARED_PLANS.clear()
            _SHARED_PLANS[key] = None if plan is None else tuple(plan)
        return plan

    def _auction_values(self, view):
        """(VP per skyscraper built, colors worth opening with, VP of a stop or None where none is
        possible, whether I have a plot there) of the auction at hand. They depend on the board, the
        progress and my seat only, so the state views of one board share them (``seat_memo``):
        an auction's bidding turns and a search's rollouts through it compute them once."""
        loc = view.auction_location
        allowed = tuple(view.allowed_colors)
        key = ("auction", loc, view.auction_full, allowed)
        memo = view.seat_memo
        values = memo.get(key)
        if values is not None:
            return values
        if loc == CENTRAL_PARK:
            values = memo[key] = (central_park_value(view), allowed, None, False)
            return values
        plot = view.my_plot(loc)
        future = expected_scorings(view, loc)
        colors = allowed
        table, beside_mask, beside_room = plot_value_table(view), view.beside_mask, view.beside_room
        if plot >= 0:
            per = table[beside_mask[plot]][beside_room[plot]] * future  # expected_plot_value, inlined
        else:
            plot_color, empty = view.tables.plot_color, view.empty
            values = []  # (value, color) of the empty plots of an allowed color (loops: no comprehension calls)
            best = None
            for p in view.tables.district_plots[loc]:
                if empty[p] and plot_color[p] in allowed:
                    value = table[beside_mask[p]][beside_room[p]]
                    values.append((value, plot_color[p]))
                    if best is None or value > best:
                        best = value
            if best is None:
                best = 0.0
            colors = allowed
            if values:
                threshold = 0.8 * best
                wanted = [color for value, color in values if value >= threshold]
                if wanted:
                    colors = tuple(wanted)
            per = best * future + self._new_district_bonus(view)
        stop = stop_value(view, loc) if view.auction_full else None
        values = memo[key] = (per, colors, stop, plot >= 0)
        return values

    def _new_district_bonus(self, view):
        """A first plot in a new district counts toward the special scorings still to come (R17)."""
        # (districts then owned, tiles placed); districts_owned[0], from my plots alone
        key = (NUM_DISTRICTS + 1 - view.plots_owned[0].count(-1), round(view.progress_shops * 12))
        bonus = _NEW_DISTRICT_BONUS.get(key)
        if bonus is None:
            owned, placed = key
            bonus = _NEW_DISTRICT_BONUS[key] = sum(0.5 * vp for tiles, (needed, vp) in SPECIAL_SCORING.items()
                                                   if placed < tiles and owned == needed)
        return bonus

    def _build(self, view):
        builds = [a - BUILD for a in view.legal if a != DECLARE_STOP]
        if DECLARE_STOP not in view.legal:
            return BUILD + max(builds)
        if not builds:
            return DECLARE_STOP
        d = view.auction_location
        if view.stops == 1:  # this stop would end the game (R27)
            return DECLARE_STOP if projected_margin(view) + stop_value(view, d) > 0 else BUILD + max(builds)
        build = max(builds) * expected_plot_value(view, view.my_plot(d)) * expected_scorings(view, d)
        return DECLARE_STOP if stop_value(view, d) > build else BUILD + max(builds)
