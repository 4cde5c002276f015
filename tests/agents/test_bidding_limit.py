"""A bidding strategy's limit is the most card points it lets lie on the table (BiddingStrategy.limit): no plan
lays more, whatever the limit, the hand and the auction (scripts/mutate.py #56 survived without this test)."""

import numpy as np

from fifthave.agents.bidding import AuctionSituation, BiddingStrategy, table_total
from fifthave.agents.view import SeatView
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.cards import KIND_VALUE
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.observation import Observer


class FixedLimit(BiddingStrategy):
    def __init__(self, limit):
        self.fixed = limit

    def limit(self, situation, worth):
        return self.fixed


def bid_views(count=12):
    """The first bidding position of ``count`` random 3-player games, as the bidder's seat view."""
    views = []
    for seed in range(count):
        game = Game(GameConfig(num_players=3), seed=seed)
        rng = np.random.default_rng(seed)
        while game.decision != BID_DECISION:
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
        views.append(SeatView(Observer(game.config).observe(game, game.actor), game.action_mask(), game.config))
    return views


def test_no_plan_lays_more_card_points_than_the_strategys_limit():
    reached = set()
    for view in bid_views():
        before = table_total(view.my_table_cards)
        for limit in np.arange(0, 40, 0.5):
            cards = FixedLimit(float(limit)).plan(
                AuctionSituation(view, lambda b: 50.0, (1, 2, 3), tuple(view.allowed_colors)))
            if cards:  # the card kinds to add
                total = before + sum(KIND_VALUE[kind] for kind in cards)
                assert total <= limit, (limit, total)
                reached.add(float(total - limit))
    assert reached and max(reached) == 0  # some plans meet their limit exactly: one point more would show
