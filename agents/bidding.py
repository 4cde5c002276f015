"""Bidding strategies: the pluggable auction part of :class:`fifthave.agents.heuristic.HeuristicAgent`.

An auction decision reaches a strategy as an :class:`AuctionSituation`: the
seat's view, and ``worth(b)``, what winning and building ``b`` skyscrapers is
worth to the player in card points (the agent's valuation; ``b = 0`` is the
value of a building stop where one is possible). The strategy answers with the
cards to add this bidding turn (a list of card kinds) or ``None`` to pass.
The agent then lays those cards one by one and confirms.

Every strategy spends the cheapest set of cards that beats the high bid under
its limit (:func:`cheapest_raise`); colored cards go before black ones, since
black cards serve in every auction. Among the builds it can afford (a bid with a
"5" builds at most 2, with a "6" only 1, R1) it picks the one whose worth
exceeds the cards' total the most. A new strategy subclasses
:class:`BiddingStrategy` and sets ``name`` and ``limit`` (optionally
``opening_target``, or all of ``plan``); pass an instance as
``HeuristicAgent(bidding=...)``. The named strategies (``BIDDING_STRATEGIES``):

``value``
    Bids up to the full worth of the best build, raising by the least possible.
``conservative``
    Bids up to 60% of the worth and never more than half the card points in
    hand; it lets expensive auctions go and keeps a hand for later.
``aggressive``
    Bids up to 140% of the worth and opens with a jump to 70% of its limit,
    so that cheap bids by the others are shut out early.
``hoarder``
    Hoards black cards: bids with colored cards only (up to the worth) until it
    holds at least ``strike_black`` black cards (8), then strikes in the next
    auction worth at least ``strike_worth`` points (20), with everything up to
    twice the worth (smaller auctions then get up to 80% of their worth).
``reach``
    Reads the opponents' hands (their cards per color are public and some
    cards are known exactly, R31; an unknown card counts as a 5): an
    opponent's *reach* is what it has laid plus the most it could add in one
    color with black. When the worth exceeds the highest reach of the seats
    still in, it opens straight at that reach + 1 and never bids more (no
    one can follow); otherwise it bids like ``value``.
``majority``
    Values a district build by the majority it buys: to the worth it adds
    ``majority_weight`` (0.5) times the card points of the district lead it
    gains, ``max(0, margin after) - max(0, margin before)``, where the margin
    is its district score minus the best other seat's (what a scoring of the
    district, which it can trigger with action D, would give it over the
    strongest rival). Central Park and stops get the plain worth.
"""

from dataclasses import dataclass
from itertools import compress
from operator import mul
from typing import Any, Callable, Sequence

from fifthave_env.engine.board import CENTRAL_PARK
from fifthave_env.engine.cards import BLACK, KIND_LIMIT, KIND_VALUE, NUM_COLORS

from .view import View


@dataclass
class AuctionSituation:
    view: View
    worth: Callable[[int], float]
    """Card points that winning is worth when building ``b`` skyscrapers (0: a stop, if possible)."""
    build_options: tuple
    """The build counts worth considering (e.g. (1, 2, 3) with 3 in reserve; (0,) for a forced stop)."""
    colors: tuple
    """The colors worth opening with (a subset of the allowed ones; ignored once a color is laid)."""


_USABLE = {m: tuple(KIND_LIMIT[v] >= m for v in range(3)) for m in range(4)}  # per min_limit: 4s, 5s, 6s usable
# _cheapest_counts' answers by its arguments (small counts: they recur across hands and games)
_COUNTS: dict[tuple, Any] = {}
_MAX_COUNTS = 100_000
# and by what they depend on (see _cheapest_counts): a 40-game tournament asks ~2,600 distinct arguments,
# which a search costs ~3.3 us each, but only a few hundred of these
_COUNTS_THAT_MATTER: dict[tuple, Any] = {}
_COLORED_KINDS = BLACK * 3  # kinds below are colored
_BLACK_FOUR = BLACK * 3  # the black 4 (then 5, 6)


def cheapest_raise(hand: Sequence[int], table: Sequence[int], colors: Sequence[int], need: int, min_limit: int = 1,
                   use_black: bool = True) -> list[int] | None:
    """The cheapest cards to add (kinds) so the added value is at least ``need``.

    ``table`` holds the cards already laid in this auction (they fix the color
    and count toward nothing here: ``need`` is what must still be added).
    ``colors`` are the colors the first card may have if nothing is laid yet.
    Only cards whose building limit is at least ``min_limit`` are used. The
    cheapest is the least total value, then the fewest cards; None if no set works.
    """
    found = _cheapest_raise(hand, table, colors, need, min_limit, use_black)
    return None if found is None else _raise_kinds(found)


def _cheapest_raise(hand: Sequence[int], table: Sequence[int], colors: Sequence[int], need: int, min_limit: int,
                    use_black: bool) -> tuple[int, int, tuple[int, int, int], tuple[int, int, int]] | None:
    """``cheapest_raise`` as (the added value, color, counts per value, the color's usable counts), the
    kinds left to ``_raise_kinds`` (a plan weighing several builds lists only the one it picks)."""
    colored_laid = table[:_COLORED_KINDS]
    if any(colored_laid):
        opening = False
        for k, n in enumerate(colored_laid):  # the color laid (a loop: a generator is a call in Python 3.11)
            if n:
                options = (k // 3,)
                break
    else:
        opening, options = True, colors
    four, five, six = _USABLE.get(min_limit) or tuple(KIND_LIMIT[v] >= min_limit for v in range(3))
    if use_black:
        black = (hand[_BLACK_FOUR] if four else 0, hand[_BLACK_FOUR + 1] if five else 0,
                 hand[_BLACK_FOUR + 2] if six else 0)
    else:
        black = (0, 0, 0)
    best = None
    for color in options:
        k = color * 3
        colored = (hand[k] if four else 0, hand[k + 1] if five else 0, hand[k + 2] if six else 0)
        if opening and not (colored[0] or colored[1] or colored[2]):  # any(colored), without the call
            continue
        found = _COUNTS.get((colored, black, need, opening), False)
        if found is False:
            found = _cheapest_counts(colored, black, need, opening)
        if found is not None and (best is None or found[0] < best[0]):  # the first color wins ties
            best = (found[0], color, found[1], colored)
    if best is None:
        return None
    return best[0][0], best[1], best[2], best[3]


def _raise_kinds(found: tuple[int, int, tuple[int, int, int], tuple[int, int, int]]) -> list[int]:
    """The kinds of a ``_cheapest_raise`` answer: the color's cards first, then black."""
    _, color, counts, colored = found
    kinds = []
    for v in range(3):
        count = counts[v]
        if count:
            from_colored = min(count, colored[v])
            kinds += [color * 3 + v] * from_colored + [_BLACK_FOUR + v] * (count - from_colored)
    return kinds


def _cheapest_counts(colored: tuple[int, int, int], black: tuple[int, int, int], need: int,
                     opening: bool) -> tuple[tuple[int, int], tuple[int, int, int]] | None:
    """((total, cards), (fours, fives, sixes)) of the cheapest set from one color's ``colored``
    counts and the ``black`` ones (per value: 4, 5, 6) adding at least ``need``, the first found on
    ties (fewer sixes, then fewer fives); None if none. ``opening``: nothing is laid yet, so a colored
    card must be among them."""
    key = (colored, black, need, opening)
    found = _COUNTS.get(key, False)
    if found is not False:
        return found
    c4, c5, c6 = colored
    a4, a5, a6 = c4 + black[0], c5 + black[1], c6 + black[2]
    if need > 0:
        # What the answer depends on: more cards of a value than the fewest that add ``need`` on their own
        # are never in the cheapest set (one fewer would still add enough, for less), so the counts matter
        # only up to there, and the colored ones only by whether there is one (the opening card).
        general = (min(a4, (need + 3) // 4), min(a5, (need + 4) // 5), min(a6, (need + 5) // 6), need,
                   opening and (c4 > 0, c5 > 0, c6 > 0))
        found = _COUNTS_THAT_MATTER.get(general, False)
        if found is False:
            found = _COUNTS_THAT_MATTER[general] = _search_counts(colored, general[0], general[1], general[2], need,
                                                                  opening)
    else:
        found = _search_counts(colored, a4, a5, a6, need, opening)
    if len(_COUNTS) >= _MAX_COUNTS:
        _COUNTS.clear()
        _COUNTS_THAT_MATTER.clear()
    _COUNTS[key] = found
    return found


def _search_counts(colored: tuple[int, int, int], a4: int, a5: int, a6: int, need: int,
                   opening: bool) -> tuple[tuple[int, int], tuple[int, int, int]] | None:
    """``_cheapest_counts`` with ``a4``, ``a5``, ``a6`` fours, fives and sixes in all (colored and black)."""
    c4, c5, c6 = colored
    best = None
    best_total = best_cards = 0
    for n6 in range(a6 + 1):
        above_sixes = need - 6 * n6
        # fewer fives than this leave more than all the fours can cover (those sets are skipped)
        for n5 in range(max(0, -(-(above_sixes - 4 * a4) // 5)), a5 + 1):
            rest = above_sixes - 5 * n5
            n4 = (rest + 3) // 4 if rest > 0 else 0
            if opening and not ((n4 and c4) or (n5 and c5) or (n6 and c6)):
                continue  # the opening card must be colored
            cards = n4 + n5 + n6
            if need > 0 and cards == 0:
                continue
            total = 4 * n4 + 5 * n5 + 6 * n6
            if best is None or total < best_total or (total == best_total and cards < best_cards):
                best, best_total, best_cards = (n4, n5, n6), total, cards
            if rest <= 0:
                break  # more fives only cost more
    if best is not None:
        best = ((best_total, best_cards), best)
    return best


def table_total(cards: Sequence[int]) -> int:
    return sum(map(mul, KIND_VALUE, cards))


def table_limit(cards: Sequence[int]) -> int:
    return min(compress(KIND_LIMIT, cards), default=3)


class BiddingStrategy:
    """Base: bid for the build with the best worth whose cheapest raise fits the limit."""

    name = "base"
    use_black = True

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        """The most card points this strategy lets lie on the table for ``worth``."""
        raise NotImplementedError

    def opening_target(self, situation: AuctionSituation, limit: float) -> float:
        """The total to reach on the first bid of an auction (default: just above the high bid)."""
        return situation.view.high_bid + 1

    def plan(self, situation: AuctionSituation) -> list[int] | None:
        """The cards to add this turn, or None to pass."""
        view = situation.view
        table = view.my_table_cards
        if any(table):
            laid, laid_limit = table_total(table), table_limit(table)
        else:
            laid, laid_limit = 0, 3
        hand = view.hand
        bid_color = view.my_bid_color
        colors = [bid_color] if bid_color >= 0 else situation.colors
        above = view.high_bid + 1
        worth_of, limit_of, use_black = situation.worth, self.limit, self.use_black
        best = None
        for b in situation.build_options:
            worth = worth_of(b)
            if worth <= 0:
                continue
            limit = limit_of(situation, worth)
            min_limit = b if b > 1 else 1
            if laid_limit < min_limit:
                continue
            target = above
            if laid == 0:  # max(target, min(opening, int(limit))), without the calls
                opening = int(self.opening_target(situation, limit))
                capped = int(limit)
                if opening < capped:
                    capped = opening
                if capped > target:
                    target = capped
            if target > limit:
                continue  # every raise reaches the target, so it would pass the limit
            found = _cheapest_raise(hand, table, colors, target - laid, min_limit, use_black)
            if found is None:
                continue
            total = laid + found[0]  # the cards' values added
            if total > limit:
                continue
            key = (worth - total, -total)
            if best is None or key > best[0]:
                best = (key, found)
        return None if best is None else _raise_kinds(best[1])


class ValueBidding(BiddingStrategy):
    name = "value"

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        return worth


class ConservativeBidding(BiddingStrategy):
    name = "conservative"

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        in_hand = table_total(situation.view.hand) + table_total(situation.view.my_table_cards)
        return min(0.6 * worth, 0.5 * in_hand)


class AggressiveBidding(BiddingStrategy):
    name = "aggressive"

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        return 1.4 * worth

    def opening_target(self, situation: AuctionSituation, limit: float) -> float:
        return 0.7 * limit


class HoarderBidding(BiddingStrategy):
    name = "hoarder"

    def __init__(self, strike_black: int = 8, strike_worth: float = 20) -> None:
        self.strike_black = strike_black
        self.strike_worth = strike_worth

    def striking(self, situation: AuctionSituation) -> bool:
        hand = situation.view.hand
        return sum(hand[BLACK * 3:]) >= self.strike_black

    def plan(self, situation: AuctionSituation) -> list[int] | None:
        self.use_black = self.striking(situation)
        return super().plan(situation)

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        if self.use_black:
            return 2 * worth if worth >= self.strike_worth else 0.8 * worth
        return worth


UNKNOWN_CARD_POINTS = 5  # an opponent's card of unknown value (as SeatView.hand_points counts it)


def opponent_reach(view: View, slot: int) -> int:
    """The most relative seat ``slot`` could have on the table in this auction (0 if it passed)."""
    if view.auction_passed[slot]:
        return 0
    counts = view.hand_colors[slot]
    known = view.known_cards[slot]
    laid = view.table_cards[slot]
    bid_color = view.bid_color[slot]
    colors = [bid_color] if bid_color >= 0 else range(NUM_COLORS)

    def points(color: int) -> int:
        kinds = range(color * 3, color * 3 + 3)
        exact = sum(KIND_VALUE[k] * known[k] for k in kinds)
        return exact + UNKNOWN_CARD_POINTS * max(0, counts[color] - sum(known[k] for k in kinds))

    colored = max((points(c) for c in colors if counts[c] or bid_color >= 0), default=0)
    return table_total(laid) + colored + points(BLACK)


class ReachBidding(BiddingStrategy):
    name = "reach"

    def _cap(self, situation: AuctionSituation) -> int:
        view = situation.view
        return max(opponent_reach(view, slot) for slot in range(1, view.n)) + 1

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        cap = self._cap(situation)
        return cap if cap <= worth else worth

    def opening_target(self, situation: AuctionSituation, limit: float) -> float:
        cap = self._cap(situation)
        return cap if cap <= limit else situation.view.high_bid + 1


class MajorityBidding(BiddingStrategy):
    name = "majority"

    def __init__(self, majority_weight: float = 0.5, points_per_vp: float = 2.0) -> None:
        self.majority_weight = majority_weight
        self.points_per_vp = points_per_vp

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        return worth

    def plan(self, situation: AuctionSituation) -> list[int] | None:
        view = situation.view
        d = view.auction_location
        if d == CENTRAL_PARK or d < 0:
            return super().plan(situation)
        scores = view.district_scores(d)
        rival = max(scores[1:])
        mine = view.my_plot(d)
        if mine >= 0:
            per = view.plot_value(mine)
        else:
            allowed = set(view.allowed_colors)
            per = max((view.plot_value(p) for p in view.tables.district_plots[d]
                       if view.is_empty(p) and view.tables.plot_color[p] in allowed), default=0)
        before = max(0, scores[0] - rival)
        base = situation.worth
        bonus = self.majority_weight * self.points_per_vp

        def worth(b: int) -> float:
            if b == 0:
                return base(0)
            return base(b) + bonus * (max(0, scores[0] + b * per - rival) - before)

        return super().plan(AuctionSituation(view, worth, situation.build_options, situation.colors))


BIDDING_STRATEGIES = {
    cls.name: cls for cls in (ValueBidding, ConservativeBidding, AggressiveBidding, HoarderBidding, ReachBidding,
                              MajorityBidding)
}


def make_bidding(strategy: "str | BiddingStrategy") -> "BiddingStrategy":
    """A strategy instance from a name in ``BIDDING_STRATEGIES`` or an instance (returned as is)."""
    if isinstance(strategy, BiddingStrategy):
        return strategy
    try:
        return BIDDING_STRATEGIES[strategy]()
    except (KeyError, TypeError):
        raise ValueError(f"unknown bidding strategy {strategy!r}; "
                         f"choose one of {', '.join(BIDDING_STRATEGIES)} or pass a BiddingStrategy") from None
