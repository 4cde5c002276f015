"""Scripted agents: legal actions everywhere, no hidden information, bidding and rule-of-thumb scenarios."""


import gc
import weakref

import numpy as np
import pytest

from fifthave.agents import BIDDING_STRATEGIES, GreedyAgent, HeuristicAgent, RandomAgent
from fifthave.agents.bidding import AuctionSituation, cheapest_raise, make_bidding
from fifthave.agents.tournament import run_tournament
from fifthave.agents.view import SeatView
from fifthave_env import fifth_avenue_v0
from fifthave_env.engine.actions import BID_CONFIRM, BID_PASS, DECLARE_STOP, action_name
from fifthave_env.engine.auction import ALEA
from fifthave_env.engine.cards import BLACK
from fifthave_env.engine.game import Game, GameConfig
from fifthave_env.engine.scoring import district_scores
from fifthave_env.observation import Observer
from fifthave_env.runner import play
from rules_helpers import (
    WHITE, auction_round, cards, plot_of, put_shops, put_skyscrapers, set_hand, start_turn, started_game)

CONFIGS = [(n, b) for n in (2, 3, 4) for b in (5, 6)]
AGENT_MAKERS = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    **{f"heuristic-{name}": (lambda name=name: HeuristicAgent(bidding=name)) for name in BIDDING_STRATEGIES},
}


def random_positions(num_players, board, seed, count):
    """``count`` positions of games played at random: (game copy, seat asked)."""
    rng = np.random.default_rng(seed)
    env = fifth_avenue_v0.env(num_players=num_players, board=board)
    env.reset(seed=seed)
    positions = []
    while len(positions) < count:
        game = env.unwrapped.game
        if game.is_over:
            env.reset(seed=int(rng.integers(2**31)))
            continue
        if rng.random() < 0.25:
            positions.append(game.clone())
        legal = game.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
    return positions


def ask(agent, game, seat, seed=0):
    agent.reset(game.config, seat, np.random.default_rng(seed))
    observation = Observer(game.config).observe(game, seat)
    return agent.act(observation, game.action_mask())


def action_for(agent, game):
    """The agent's action as the seat asked now, through a fresh observation."""
    return ask(agent, game, game.actor)


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_every_agent_returns_a_legal_action_in_random_positions(num_players, board):
    positions = random_positions(num_players, board, seed=100 + num_players * 10 + board, count=300)
    decisions = {game.decision for game in positions}
    assert len(decisions) >= 7  # the positions cover most kinds of decision
    for name, make in AGENT_MAKERS.items():
        for i, game in enumerate(positions):
            action = ask(make(), game, game.actor, seed=i)
            assert action in game.legal_actions(), (name, game.describe(action))


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_agents_play_whole_games_against_each_other(num_players, board):
    names = ["heuristic-value", "greedy", "heuristic-hoarder", "heuristic-aggressive"][:num_players]
    result = run_tournament([(n, AGENT_MAKERS[n]) for n in names], board=board, games=num_players, seed=7)
    assert sum(row["seat_games"] for row in result.table) == num_players * num_players
    for record in result.records:
        assert all(calls > 0 for calls in record["act_calls"])  # every agent made its own decisions
        assert record["turns"] > 0 and sum(record["scores"]) > 0


def hide_differently(game, seat, seed):
    """A copy of ``game`` that differs only in what ``seat`` cannot know (R30, R31)."""
    rng = np.random.default_rng(seed)
    other = game.clone()
    unseen = [i for i, entry in enumerate(other.black) if entry < 3]  # face down, never seen
    values = [other.black[i] for i in unseen]
    rng.shuffle(values)
    for i, v in zip(unseen, values):
        other.black[i] = v
    for c, pile in enumerate(other.piles):
        hidden = pile[other.pile_known[c]:-1]  # below the top, above the cards seen going under
        rng.shuffle(hidden)
        pile[other.pile_known[c]:-1] = hidden
    for q in range(other.n):
        if q == seat:
            continue
        for color in range(BLACK + 1):
            kinds = range(color * 3, color * 3 + 3)
            unknown = sum(other.hands[q][k] - other.known[q][k] for k in kinds)
            draw = rng.integers(3, size=unknown)
            for v, k in enumerate(kinds):
                other.hands[q][k] = other.known[q][k] + int((draw == v).sum())
    rng.shuffle(other.unused_tiles)
    other.rng = np.random.default_rng(seed + 1)
    other.touch()
    return other


@pytest.mark.parametrize("num_players", [2, 4])
def test_decisions_do_not_change_when_hidden_information_changes(num_players):
    positions = random_positions(num_players, 5, seed=31 + num_players, count=60)
    changed = 0
    for i, game in enumerate(positions):
        seat = game.actor
        other = hide_differently(game, seat, seed=i)
        if other.hands != game.hands or other.black != game.black or other.piles != game.piles:
            changed += 1
        observer = Observer(game.config)
        assert np.array_equal(observer.observe(game, seat), Observer(game.config).observe(other, seat))
        for name, make in AGENT_MAKERS.items():
            assert ask(make(), game, seat, seed=i) == ask(make(), other, seat, seed=i), name
    assert changed >= len(positions) // 2  # the hidden parts really were different


def test_smoke_heuristic_wins_most_games_against_random_players():
    result = run_tournament([HeuristicAgent, RandomAgent, RandomAgent, RandomAgent], games=8, seed=3)
    assert result.row("heuristic")["win_rate"] >= 0.75


def test_heuristic_beats_greedy_where_greedy_itself_only_breaks_even():
    # 2 players, 20 games (10 deals, both seats): HeuristicAgent wins all of them here (1.000 over 600 games in
    # results/tournament); in its place GreedyAgent wins 0.5 (a mirror match), far below the 0.9 asked.
    heuristic = run_tournament([("candidate", HeuristicAgent), ("greedy", GreedyAgent)], games=20, seed=1)
    assert heuristic.row("candidate")["win_rate"] >= 0.9
    mirror = run_tournament([("candidate", GreedyAgent), ("greedy", GreedyAgent)], games=20, seed=1)
    assert mirror.row("candidate")["win_rate"] < 0.9  # the bar separates the two agents


# ---- card planning -------------------------------------------------------------------------

def kinds_to_names(kinds):
    return sorted(action_name(122 + k)[4:] for k in kinds)


GRAY, BROWN = 0, 1


def test_cheapest_raise_spends_the_least_value_then_the_fewest_cards():
    hand = cards("gray 4", "gray 5", "black 4", "black 4", "black 6")
    empty = [0] * 18
    assert kinds_to_names(cheapest_raise(hand, empty, [GRAY], 9)) == ["gray 4", "gray 5"]
    # 10 cannot be made exactly: 4+6 = 10 uses the black 6
    assert kinds_to_names(cheapest_raise(hand, empty, [GRAY], 10)) == ["black 6", "gray 4"]
    # building 3 needs cards of value 4 only (R1): gray 4 first, then black 4s
    assert kinds_to_names(cheapest_raise(hand, empty, [GRAY], 9, min_limit=3)) == ["black 4", "black 4", "gray 4"]


def test_cheapest_raise_opens_with_an_allowed_color_and_follows_the_laid_one():
    hand = cards("gray 4", "brown 6", "black 4", "black 4")
    empty = [0] * 18
    assert cheapest_raise(hand, empty, [BROWN], 6) == [BROWN * 3 + 2]
    assert cheapest_raise(cards("black 6", "black 6"), empty, [GRAY, BROWN], 6) is None  # no colored card
    laid = cards("gray 5")
    assert kinds_to_names(cheapest_raise(hand, laid, [BROWN], 4)) == ["gray 4"]  # gray was laid: not brown
    assert cheapest_raise(hand, laid, [BROWN], 20) is None  # gray + black cannot add 20
    assert cheapest_raise(hand, empty, [GRAY], 5, use_black=False) is None


def test_the_cheapest_counts_are_the_minimum_over_every_count_of_sixes_and_fives(monkeypatch):
    """The card-count search the bid planner runs (pruned, and cached by its arguments and by the part of
    them the answer depends on) against every count of sixes and fives, each with the fewest fours that
    reach ``need``: least total, then fewest cards, then fewest sixes, then fewest fives. (Only the fewest
    fours are tried: a set that would need one more four just to open with a colored card is not found.
    The agents were tuned so.) From empty caches, so that the second cache answers arguments it was filled
    by others (red on its key without the opening card's values, with a count capped one short, or with
    ``need`` left out: issue 36's eighth pass)."""
    from fifthave.agents import bidding
    from fifthave.agents.bidding import _cheapest_counts

    monkeypatch.setattr(bidding, "_COUNTS", {})
    monkeypatch.setattr(bidding, "_COUNTS_THAT_MATTER", {})
    rng = np.random.default_rng(36)
    for _ in range(3000):
        colored = tuple(int(x) for x in rng.integers(0, 5, 3))
        black = tuple(int(x) for x in rng.integers(0, 4, 3))
        need, opening = int(rng.integers(-2, 70)), bool(rng.integers(2))
        sets = []
        for n5 in range(colored[1] + black[1] + 1):
            for n6 in range(colored[2] + black[2] + 1):
                n4 = max(0, -(-(need - 5 * n5 - 6 * n6) // 4))
                total, count = 4 * n4 + 5 * n5 + 6 * n6, n4 + n5 + n6
                if n4 > colored[0] + black[0] or (need > 0 and not count):
                    continue
                if opening and not any(n and c for n, c in zip((n4, n5, n6), colored)):
                    continue
                sets.append(((total, count), n6, n5, (n4, n5, n6)))
        expected = min(sets, default=None)
        assert _cheapest_counts(colored, black, need, opening) == (
            None if expected is None else (expected[0], expected[3])), (colored, black, need, opening)


class StubView:
    """The few fields a bidding strategy reads."""

    def __init__(self, hand, high_bid, table=None, color=-1):
        self.hand = hand
        self.high_bid = high_bid
        self.my_table_cards = table or [0] * 18
        self.my_bid_color = color


def plan(strategy, hand, high_bid, worth_per_skyscraper, builds=(1, 2, 3)):
    situation = AuctionSituation(StubView(hand, high_bid), lambda b: worth_per_skyscraper * b, builds, (GRAY,))
    return make_bidding(strategy).plan(situation)


def total(kinds):
    return sum(4 + k % 3 for k in kinds)


def test_value_bidding_bids_up_to_the_worth_and_no_further():
    hand = cards("gray 4", "gray 4", "gray 5", "black 4", "black 5", "black 6")
    assert total(plan("value", hand, 9, 6)) == 12  # 3 skyscrapers worth 18: 4+4+4 builds 3
    assert plan("value", hand, 20, 6) is None  # 21 or more is above the worth of any build
    assert total(plan("value", hand, 20, 12)) == 22  # 4+4+4+5+5 builds 2, worth 24


def test_value_bidding_may_pay_exactly_the_worth_and_not_one_point_more():
    hand = cards("gray 4", "gray 5", "black 5", "black 6")
    assert total(plan("value", hand, 9, 10, builds=(1,))) == 10
    assert plan("value", hand, 10, 10, builds=(1,)) is None  # 11 (5 + 6) is one above the worth


def test_conservative_bidding_lets_expensive_auctions_go():
    hand = cards("gray 4", "gray 4", "gray 5", "black 4", "black 5", "black 6")
    assert total(plan("value", hand, 8, 5)) == 12  # three 4s build 3, worth 15
    assert plan("conservative", hand, 8, 5) is None  # 60% of 15 is 9: too little for 9 or more


def test_conservative_bidding_never_lays_more_than_half_its_card_points():
    hand = cards("gray 4", "gray 4", "gray 5", "black 4", "black 5", "black 6")  # 28 points: the cap is 14
    assert total(plan("conservative", hand, 13, 20)) == 14  # 60% of the worth (36 for 3) is far above the cap
    assert plan("conservative", hand, 14, 20) is None  # 15 would pass half the hand
    assert total(plan("value", hand, 14, 20)) == 17


def test_aggressive_bidding_opens_with_a_jump():
    hand = cards("gray 4", "gray 4", "gray 4", "black 4", "black 4", "black 4")
    assert total(plan("value", hand, 0, 6)) == 4
    assert total(plan("aggressive", hand, 0, 6)) >= 11  # a jump to 70% of its limit (1.4 x worth)


@pytest.mark.parametrize("worth,opening", [(10, 9), (20, 19)])
def test_aggressive_opening_jumps_to_seventy_percent_of_its_limit(worth, opening):
    hand = cards("gray 4", "gray 5", "black 4", "black 5", "black 6")
    # one skyscraper worth `worth`: limit 1.4 x worth, opening at int(0.7 x limit), the cheapest cards reaching it
    assert total(plan("aggressive", hand, 0, worth, builds=(1,))) == opening


def test_hoarder_keeps_black_cards_until_it_strikes():
    few = cards("gray 4", "black 4", "black 4", "black 6")
    assert kinds_to_names(plan("hoarder", few, 3, 6)) == ["gray 4"]
    assert plan("hoarder", few, 4, 6) is None  # only gray 4 may be spent, and 4 does not beat 4
    many = cards("gray 4", *["black 6"] * 8)
    assert total(plan("hoarder", many, 30, 25)) == 34  # 8 black cards: strikes, up to twice the worth


def test_a_striking_hoarder_gives_small_auctions_only_eighty_percent_of_their_worth():
    striking = cards("gray 4", "gray 5", *["black 4"] * 4, *["black 5"] * 4)  # 8 black cards
    assert total(plan("hoarder", striking, 4, 10, builds=(1,))) == 5
    assert plan("hoarder", striking, 8, 10, builds=(1,)) is None  # 9 is above 80% of 10 (worth < strike_worth)
    assert total(plan("value", striking, 8, 10, builds=(1,))) == 9


def test_unknown_bidding_strategy_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown bidding strategy 'bluff'; choose one of value"):
        HeuristicAgent(bidding="bluff")


# ---- rule-of-thumb scenarios -----------------------------------------------------------------

def test_heuristic_scores_a_district_where_it_gains_more_than_the_others():
    game = started_game(3, seed=1)
    mine = plot_of(game, 3, "gray")
    put_skyscrapers(game, 0, mine, 3)
    put_shops(game, plot_of(game, 3, "orange"), "boutique", "jeweler")
    game.comm_pos[WHITE] = 3
    start_turn(game, 0)
    assert action_for(HeuristicAgent(), game) == 3  # action D
    # the same district is not worth scoring when an opponent gains as much
    put_skyscrapers(game, 1, plot_of(game, 3, "violet"), 3)
    put_shops(game, plot_of(game, 3, "green"), "boutique", "jeweler")
    assert action_for(HeuristicAgent(), game) != 3


def test_heuristic_puts_a_shop_beside_its_own_skyscraper_not_an_opponents():
    game = started_game(3, seed=2)
    put_skyscrapers(game, 0, plot_of(game, 0, "gray"), 2)  # ring: gray, brown, violet, orange, green
    put_skyscrapers(game, 1, plot_of(game, 0, "orange"), 2)
    game.decision, game.pending_tile, game.actor = 3, 0, 0  # place a boutique
    game.touch()
    # brown touches only my gray plot; green touches my gray and the opponent's orange
    assert action_for(HeuristicAgent(), game) - 50 == plot_of(game, 0, "brown")


def test_heuristic_declares_a_stop_when_the_arithmetic_favours_it():
    game = started_game(2, seed=3)
    d = 3
    # Times Square's ring: brown, orange, gray, violet, green
    put_skyscrapers(game, 0, plot_of(game, d, "brown"), 1)  # beside orange and green: 1 shop type, 2 VP
    put_skyscrapers(game, 1, plot_of(game, d, "gray"), 3)  # beside orange and violet: 3 types, 5 VP each
    put_shops(game, plot_of(game, d, "orange"), "boutique")
    put_shops(game, plot_of(game, d, "green"), "boutique")
    put_shops(game, plot_of(game, d, "violet"), "jeweler", "gallery")
    game.reserve[0] = 1
    set_hand(game, 0, "brown 4", "black 6")
    auction_round(game, 0, [d])
    assert game.auc_full
    game.auc_winner, game.auc_last_bid, game.auc_bid_color = 0, cards("brown 4"), 1
    game.decision, game.actor = 8, 0  # the build decision after winning
    game.touch()
    assert DECLARE_STOP in game.legal_actions()
    # building 1 more adds 2-3 VP per scoring; a stop gives me 4 VP and the opponent 7 instead of 15 per scoring
    assert action_for(HeuristicAgent(), game) == DECLARE_STOP


def test_heuristic_opens_cheaply_in_its_own_valuable_district():
    game = started_game(3, seed=4)
    d = 0
    put_skyscrapers(game, 0, plot_of(game, d, "gray"), 1)
    put_shops(game, plot_of(game, d, "brown"), "boutique", "jeweler")
    put_shops(game, plot_of(game, d, "green"), "gallery")
    set_hand(game, 0, "gray 4", "gray 4", "black 5")
    auction_round(game, 0, [d])
    agent = HeuristicAgent()
    agent.reset(game.config, 0, np.random.default_rng(0))
    observer = Observer(game.config)
    laid = []
    while game.actor == 0 and game.decision == 7:
        action = agent.act(observer.observe(game, 0), game.action_mask())
        laid.append(action)
        game.apply(action)
        if action in (BID_CONFIRM, BID_PASS):
            break
    assert laid == [122, BID_CONFIRM]  # the cheapest opening, gray 4 (it may build 3 with it), confirmed


def test_heuristic_starts_next_to_shops():
    game = started_game(4, seed=5)
    game.decision, game.actor = 0, 0  # starting placement
    put_shops(game, plot_of(game, 2, "gray"), "perfume")
    put_shops(game, plot_of(game, 5, "brown"), "jeweler")
    chosen = action_for(HeuristicAgent(), game) - 4
    neighbours_of_shops = {plot_of(game, 2, "green"), plot_of(game, 2, "brown"),
                           plot_of(game, 5, "green"), plot_of(game, 5, "orange")}
    assert chosen in neighbours_of_shops


# ---- the seat view -----------------------------------------------------------------------------

@pytest.mark.parametrize("num_players,board", [(2, 5), (4, 6)])
def test_seat_view_reads_back_the_game_as_the_seat_sees_it(num_players, board):
    auctions = 0
    for game in random_positions(num_players, board, seed=55, count=150):
        seat = game.actor
        view = SeatView(Observer(game.config).observe(game, seat), game.action_mask(), game.config)
        rel = {q: (q - seat) % num_players for q in range(num_players)}
        rel.update({-1: -1, ALEA: 4})
        assert view.decision == game.decision and view.legal == game.legal_actions()
        assert view.owner == [rel[o] for o in game.plot_owner]
        assert view.height == game.plot_height
        assert view.shop_count == [len(s) for s in game.plot_shops]
        assert view.closed == game.closed and view.commissioner_at == game.comm_pos
        assert view.markers == game.markers
        assert view.scores == [game.scores[(seat + i) % num_players] for i in range(num_players)]
        assert view.reserve == [game.reserve[(seat + i) % num_players] for i in range(num_players)]
        assert view.hand == game.hands[seat]
        assert view.stops == game.stops and view.progress_shops * 12 == pytest.approx(game.shops_placed)
        assert view.pending_tile == game.pending_tile
        for d in range(7):
            assert view.district_scores(d) == [district_scores(game, d)[(seat + i) % num_players]
                                               for i in range(num_players)]
        if game.decision == 7:
            auctions += 1
            assert view.auction_location == game.auc_loc and view.high_bid == game.auc_high
            assert view.my_table_cards == game.auc_cards[seat]
            assert view.high_bidder == rel[game.auc_high_bidder]
            assert view.auction_passed == [game.auc_passed[(seat + i) % num_players] for i in range(num_players)]
            allowed = game.auc_allowed[seat] if game.auc_cp_color < 0 else 1 << game.auc_cp_color
            assert view.allowed_colors == [c for c in range(5) if allowed >> c & 1]
    assert auctions > 10


def test_an_agent_asked_with_no_legal_action_says_so():
    agent = HeuristicAgent()
    game = started_game(3)
    agent.reset(game.config, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(Observer(game.config).observe(game, 0), np.zeros(147, dtype=np.int8))


@pytest.mark.parametrize("make", [GreedyAgent, HeuristicAgent, lambda: HeuristicAgent(bidding="majority")])
def test_an_agent_is_freed_as_soon_as_its_game_drops_it(make):
    """No reference cycle through an agent (such as its bound methods kept in its own dict): a tournament
    makes four agents a game, and cyclic garbage lives on until the garbage collector, whose traversals
    of it cost the tournament time (issue 36's seventh pass)."""
    config = GameConfig(num_players=4, board=5)
    agents = [make() for _ in range(4)]
    for seat, agent in enumerate(agents):
        agent.reset(config, seat, np.random.default_rng([7, seat]))
    play(Game(config, rng=np.random.default_rng(7)), agents)
    refs = [weakref.ref(agent) for agent in agents]
    gc.disable()  # only reference counting may free them
    try:
        del agents, agent
        assert [ref() for ref in refs] == [None] * 4
    finally:
        gc.enable()


def _hand(*kinds):
    hand = [0] * 18
    for k in kinds:
        hand[k] += 1
    return hand


SHARED_BASE = {"reserve": [3, 3, 3, 3], "hand": _hand(0, 1, 1, 2, 4, 5, 15, 16, 17), "my_table_cards": _hand(0),
               "my_bid_color": 0, "high_bid": 8}
SHARED_VALUES = (4.0, (0, 1), None, True)  # _auction_values: VP per build, colours, stop (None: none), a plot there
OPENING = {"my_table_cards": _hand(), "my_bid_color": -1}
STOP = (4.0, (0, 1), 6.0, True)
# (name, the base's changes, its auction values, the variant's changes, its values): each variant changes one
# thing a plan depends on and, checked below, the plan
SHARED_VARIANTS = [
    ("hand", {}, SHARED_VALUES, {"hand": _hand(0, 2, 17)}, SHARED_VALUES),
    ("table", {}, SHARED_VALUES, {"my_table_cards": _hand(2)}, SHARED_VALUES),
    ("high bid", {}, SHARED_VALUES, {"high_bid": 13}, SHARED_VALUES),
    ("reserve", {}, SHARED_VALUES, {"reserve": [1, 3, 3, 3]}, SHARED_VALUES),
    ("bid colour", OPENING, SHARED_VALUES, {**OPENING, "my_bid_color": 1}, SHARED_VALUES),
    ("worth", {}, SHARED_VALUES, {}, (0.5, (0, 1), None, True)),
    ("stop", {}, STOP, {}, (4.0, (0, 1), 20.0, True)),
    ("a plot there", {}, STOP, {}, (4.0, (0, 1), 6.0, False)),
    ("opening colours", OPENING, SHARED_VALUES, OPENING, (4.0, (1,), None, True)),
]


@pytest.mark.parametrize("bidding", ["value", "conservative", "aggressive"])
@pytest.mark.parametrize("name,base,base_values,changes,values", SHARED_VARIANTS, ids=[v[0] for v in SHARED_VARIANTS])
def test_a_shared_bid_plan_is_reused_only_where_all_it_depends_on_is_equal(monkeypatch, bidding, name, base,
                                                                           base_values, changes, values):
    """``share_plans`` (issue 36): after the plan of one auction situation, a situation that differs in one
    thing the plan depends on gets its own plan, not the shared one; and the same situation gets the same
    plan from another agent of the same settings, but not from one of other settings."""
    from types import SimpleNamespace

    from fifthave.agents import heuristic

    def plan(agent, fields, auction_values):
        monkeypatch.setattr(HeuristicAgent, "_auction_values", lambda self, view: auction_values)
        return agent._plan_bid(SimpleNamespace(**{**SHARED_BASE, **fields}))

    alone = HeuristicAgent(bidding)
    expected = plan(alone, changes, values)
    assert expected != plan(alone, base, base_values), f"{name} must change the {bidding} plan (or this tests nothing)"
    heuristic._SHARED_PLANS.clear()
    shared = HeuristicAgent(bidding, share_plans=True)
    assert plan(shared, base, base_values) == plan(alone, base, base_values)
    assert plan(shared, changes, values) == expected
    assert plan(HeuristicAgent(bidding, share_plans=True), changes, values) == expected  # now shared


def test_shared_bid_plans_are_kept_apart_by_strategy_and_points_per_vp():
    from types import SimpleNamespace

    from fifthave.agents import heuristic

    view = SimpleNamespace(**{**SHARED_BASE, **OPENING})
    agents = [HeuristicAgent(bidding, points_per_vp=ppv) for bidding in ("value", "conservative", "aggressive")
              for ppv in (1.0, 2.0)]
    for agent in agents:
        agent._auction_values = lambda view: SHARED_VALUES
    expected = [agent._plan_bid(view) for agent in agents]
    # the settings do change the plan here: (value, 1 VP) vs (value, 2 VP) and vs (aggressive, 1 VP)
    assert expected[0] != expected[1] and expected[0] != expected[4]
    heuristic._SHARED_PLANS.clear()
    for agent in agents:
        agent.share_plans = True
    assert [agent._plan_bid(view) for agent in agents] == expected
