"""The search agent against what it is documented to do, not against its own output (issue 38).

* R28: a shared win is worth an equal share to each winner and nothing to the others, so the search
  values a win shared by k seats at 1/k.
* agents/search.py's docstring: the HeuristicAgent's own candidate "wins ties and keeps a small bonus
  (``prior``), so that noise alone does not make it deviate": another candidate is played only when its
  mean value beats the heuristic's by more than ``prior``.
"""

import numpy as np
import pytest

from fifthave.agents.search import DECISION_GROUPS, SearchAgent, decision_kinds, projected_value
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.observation import Observer
from fifthave_env.seat_view import StateView
from rules_helpers import play, set_hand, start_turn, started_game


def finished_game(scores, hands):
    """A game that ends (R29: its one turn is the last) with these scores and, after seat 0's turn (it draws
    a gray and a brown card), these hands."""
    game = started_game(len(scores), max_turns=1)
    game.scores = list(scores)
    for seat, hand in enumerate(hands):
        set_hand(game, seat, *hand)
    start_turn(game, 0)
    play(game, "action A", "draw gray", "draw brown", "move white -> 34th St West")
    assert game.is_over and game.scores == list(scores)
    return game


def test_r28_a_win_shared_by_k_seats_is_worth_one_kth_to_each_and_nothing_to_the_others():
    shared2 = finished_game([3, 12, 12, 12], [[], ["gray 4", "black 5"], ["gray 5", "black 6"], ["gray 4"]])
    assert shared2.winners == [1, 2]  # R28: tied on VP and on cards in hand
    assert [projected_value(shared2, s) for s in range(4)] == [0.0, 0.5, 0.5, 0.0]
    shared3 = finished_game([9, 9, 9], [[], ["gray 5", "gray 4"], ["brown 4", "black 4"]])
    assert shared3.winners == [0, 1, 2]
    assert [projected_value(shared3, s) for s in range(3)] == pytest.approx([1 / 3] * 3)
    alone = finished_game([12, 12, 0], [["gray 4"], ["gray 4"], []])
    assert alone.winners == [0]  # R28: the tie on VP goes to the most cards in hand
    assert [projected_value(alone, s) for s in range(3)] == [1.0, 0.0, 0.0]


def board_position(seed=4):
    """A 2-player game at a searched non-bid decision with at least three legal actions."""
    game = Game(GameConfig(num_players=2), seed=seed)
    rng = np.random.default_rng(seed)
    searched = decision_kinds(DECISION_GROUPS) - {BID_DECISION}
    while game.decision not in searched or len(game.legal_actions()) < 3:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    return game


def search_with_values(game, value_of, prior):
    """The action a one-sample, depth-0 search plays when candidate ``i`` (in the search's order) is worth
    ``value_of(candidates, default)[i]``; also the candidates and the heuristic's candidate."""
    seat = game.actor
    calls = []

    def evaluator(g, s):
        calls.append(s)
        return values[len(calls) - 1]

    probe = SearchAgent(samples=1, depth=0, prior=prior, evaluator=lambda g, s: 0.5)
    probe.reset(game.config, seat, np.random.default_rng(1))
    probe.attach_sampler(lambda rng: game.clone())
    probe.act_view(StateView(game, seat))
    candidates, _, default = probe.last_search
    values = value_of(candidates, default)
    agent = SearchAgent(samples=1, depth=0, prior=prior, evaluator=evaluator)
    agent.reset(game.config, seat, np.random.default_rng(1))
    agent.attach_sampler(lambda rng: game.clone())
    action = agent.act_view(StateView(game, seat))
    assert len(calls) == len(candidates) and agent.last_search[2] == default
    return action, candidates, default


@pytest.mark.parametrize("gap, heuristic_plays", [(0.0, True), (0.015, True), (0.025, False), (-0.01, True)])
def test_the_heuristics_candidate_keeps_a_bonus_of_prior(gap, heuristic_plays):
    """Another candidate worth ``gap`` more than the heuristic's is played only when gap > prior (0.02)."""
    game = board_position()
    rival = []

    def value_of(candidates, default):
        other = next(i for i, c in enumerate(candidates) if c != default)
        rival.append(candidates[other])
        return [0.5 + gap if i == other else (0.5 if c == default else 0.1) for i, c in enumerate(candidates)]

    action, candidates, default = search_with_values(game, value_of, prior=0.02)
    assert default in candidates
    assert action == (default[0] if heuristic_plays else rival[0][0])


def test_without_a_prior_the_best_mean_value_is_played():
    game = board_position()

    def value_of(candidates, default):
        best = max(i for i, c in enumerate(candidates) if c != default)
        return [0.51 if i == best else (0.5 if c == default else 0.2) for i, c in enumerate(candidates)]

    action, candidates, default = search_with_values(game, value_of, prior=0.0)
    assert action != default[0] and (action,) in candidates


# ---- the evaluator, the rollout, the candidate bids, the names (gaps mutmut found) --------------------------


def random_game(num_players, seed, moves):
    game = Game(GameConfig(num_players=num_players), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    return game


def test_projected_scores_are_the_score_plus_every_open_district_now_plus_3_vp_per_central_park_skyscraper():
    from fifthave.agents.search import projected_scores
    from fifthave_env.engine.scoring import district_scores

    game = random_game(3, seed=8, moves=300)
    open_scores = [district_scores(game, d) for d in range(len(game.closed))]
    scoring = [d for d, vp in enumerate(open_scores) if any(vp)]
    assert len(scoring) >= 2  # the position has districts that would score
    game.closed = [False] * len(game.closed)
    game.closed[scoring[0]] = True  # a closed district scores nothing more
    game.scores, game.cp_skyscrapers = [7, 2, 11], [0, 2, 1]
    expected = [game.scores[p] + 3.0 * game.cp_skyscrapers[p]
                + sum(open_scores[d][p] for d in range(len(game.closed)) if d != scoring[0]) for p in range(3)]
    assert projected_scores(game) == pytest.approx(expected)


def test_a_projected_margin_of_6_vp_is_worth_the_logistic_of_1(monkeypatch):
    import fifthave.agents.search as search

    monkeypatch.setattr(search, "projected_scores", lambda g: [6.0, 0.0, 3.0])
    game = Game(GameConfig(num_players=3), seed=0)
    logistic = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    assert projected_value(game, 0) == pytest.approx(logistic(3 / 6))  # against the best other seat, 3 VP
    assert projected_value(game, 1) == pytest.approx(logistic(-6 / 6))
    assert projected_value(game, 2) == pytest.approx(logistic(-3 / 6))


@pytest.mark.parametrize("policy", ["heuristic", "random"])
@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_a_rollout_plays_exactly_depth_turns(depth, policy):
    from fifthave.agents.search import ROLLOUT_POLICIES, Rollout

    game = random_game(4, seed=5, moves=40)
    start = game.turn
    Rollout(ROLLOUT_POLICIES[policy], game.config).run(game, depth, seed=1)
    assert game.turn == start + depth and not game.is_over


def test_a_rollout_resets_one_agent_per_seat_with_the_games_config():
    from fifthave.agents.heuristic import HeuristicAgent
    from fifthave.agents.search import Rollout

    resets = []

    class Recording(HeuristicAgent):
        def reset(self, config, seat, rng):
            resets.append((config, seat))
            super().reset(config, seat, rng)

    game = random_game(3, seed=6, moves=30)
    Rollout(Recording, game.config).run(game, 1, seed=2)
    assert resets == [(game.config, 0), (game.config, 1), (game.config, 2)]


def test_a_bid_macro_opens_with_a_colored_card_and_keeps_the_colored_cards_order():
    from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM
    from fifthave_env.engine.cards import BLACK

    black = [BLACK * 3 + 1, BLACK * 3 + 2, BLACK * 3]
    assert SearchAgent._bid_macro(black + [5, 2]) == tuple(BID_ADD + k for k in [5, 2] + black) + (BID_CONFIRM,)


def bid_positions(count=12):
    for seed in range(200):
        game = random_game(3 + seed % 2, seed=seed, moves=20 + seed % 50)
        if not game.is_over and game.decision == BID_DECISION:
            yield game
            count -= 1
            if count == 0:
                return


def test_the_raise_candidates_are_legal_whole_bids_with_no_card_to_spare():
    """Every candidate bid plays through to its confirm, and each cheapest raise beats the high bid by less
    than the value of any of its cards (KIND_VALUE: 4, 5, 6 by value): no card can be left out."""
    from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM, BID_PASS
    from fifthave_env.engine.auction import KIND_VALUE

    raises = 0
    for game in bid_positions():
        seat = game.actor
        agent = SearchAgent()
        agent.reset(game.config, seat, np.random.default_rng(0))
        candidates, default = agent._bid_candidates(StateView(game, seat))
        assert (BID_PASS,) in candidates and default in candidates
        for macro in candidates:
            g = game.clone()
            for action in macro:
                assert g.action_mask()[action], f"{macro} is not playable"
                g.apply(action)
            if macro in (default, (BID_PASS,)):
                continue
            assert macro[-1] == BID_CONFIRM
            total = game.auc_total[seat] + sum(KIND_VALUE[a - BID_ADD] for a in macro[:-1])
            assert total > game.auc_high
            assert all(total - KIND_VALUE[a - BID_ADD] <= game.auc_high for a in macro[:-1]), macro
            raises += 1
    assert raises >= 5


def test_search_names_parse_every_part():
    from fifthave.agents.greedy import GreedyAgent
    from fifthave.agents.search import search_factory
    from fifthave_env.random_agent import RandomAgent

    agent = search_factory("search:8:3:random")()
    assert (agent.rollouts, agent.depth, agent.rollout_factory, agent.name) == (8, 3, RandomAgent, "search:8:3:random")
    named = []
    agent = search_factory("search:4:1:my.npz:greedy", agent_factory=lambda n: named.append(n) or GreedyAgent)()
    assert named == ["my.npz:greedy"] and agent.rollout_factory is GreedyAgent
    for bad in ("searcher:4", "search:4:1:my.npz:greedy"):
        with pytest.raises(ValueError) as error:
            search_factory(bad)
        assert str(error.value) == f"a search agent is named search[:ROLLOUTS[:DEPTH[:POLICY]]], got {bad!r}"
    with pytest.raises(ValueError) as error:
        search_factory("search:4:1:smart")
    assert str(error.value) == ("unknown rollout policy 'smart' in 'search:4:1:smart'; choose from heuristic, "
                                "greedy, random")


@pytest.mark.parametrize("layout", [0, 1])
def test_a_rollout_agent_that_reads_observations_gets_its_own_seats_in_its_layout_and_the_mask(layout):
    from fifthave.agents.search import Rollout

    game = random_game(3, seed=9, moves=30)
    acted = []

    class Reader:  # reads_view False: the rollout builds its observation
        observation_layout = layout

        def reset(self, config, seat, rng):
            self.rng = rng

        def act(self, observation, action_mask):
            assert np.array_equal(observation, Observer(game.config, version=layout).observe(game, game.actor))
            assert np.array_equal(action_mask, game.action_mask())
            acted.append(game.actor)
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.integers(len(legal))])

    Rollout(Reader, game.config).run(game, 3, seed=4)
    assert len(set(acted)) == 3


def test_searched_counts_every_search():
    game = board_position()
    agent = SearchAgent(samples=1, depth=0)
    agent.reset(game.config, game.actor, np.random.default_rng(1))
    agent.attach_sampler(lambda rng: game.clone())
    for expected in (1, 2, 3):
        agent.act_view(StateView(game, game.actor))
        assert agent.searched == expected


def test_the_bid_candidates_are_pass_the_heuristics_own_bid_and_the_cheapest_raise_per_building_limit():
    """The module docstring's list: pass; the HeuristicAgent's bid (as it would lay it, card by card); the
    cheapest raise over the high bid (fifthave.agents.bidding.cheapest_raise) for every building limit 1..3."""
    from fifthave.agents.bidding import cheapest_raise
    from fifthave.agents.heuristic import HeuristicAgent

    limits_seen = set()
    for game in bid_positions(40):
        seat = game.actor
        agent = SearchAgent()
        agent.reset(game.config, seat, np.random.default_rng(0))
        view = StateView(game, seat)
        candidates, default = agent._bid_candidates(view)
        heuristic, g, laid = HeuristicAgent(), game.clone(), []
        heuristic.reset(game.config, seat, np.random.default_rng(0))
        while g.actor == seat and g.decision == BID_DECISION and len(laid) < 12:
            laid.append(int(heuristic.act_view(StateView(g, seat))))
            g.apply(laid[-1])
        assert default == tuple(laid)
        table = view.my_table_cards
        need = game.auc_high + 1 - game.auc_total[seat]
        colors = [view.my_bid_color] if view.my_bid_color >= 0 else (
            [view.central_park_color] if view.central_park_color >= 0 else view.allowed_colors)
        for color in colors:
            for limit in (1, 2, 3):
                kinds = cheapest_raise(view.hand, table, [color], need, limit)
                if kinds is not None and view.is_legal(agent._bid_macro(kinds)[0]):
                    assert agent._bid_macro(kinds) in candidates, (color, limit)
                    others = [cheapest_raise(view.hand, table, [color], need, other) for other in (1, 2, 3)
                              if other != limit]
                    if all(k is None or tuple(k) != tuple(kinds) for k in others):
                        limits_seen.add(limit)  # a raise only this limit gives
    assert limits_seen == {1, 2, 3}


@pytest.mark.parametrize("rollouts, samples", [(1, 1), (32, None)])
def test_samples_are_the_rollouts_shared_among_the_candidates_and_at_least_one(rollouts, samples):
    game = board_position()
    agent = SearchAgent(rollouts=rollouts, depth=0)
    agent.reset(game.config, game.actor, np.random.default_rng(1))
    agent.attach_sampler(lambda rng: game.clone())
    agent.act_view(StateView(game, game.actor))
    candidates = len(agent.last_search[0])
    assert agent.explanation["samples"] == (samples or rollouts // candidates) and candidates > 1


def test_a_candidates_value_is_its_mean_over_the_samples_and_the_explanation_lists_them():
    game = board_position()
    agent = SearchAgent(samples=3, depth=0, prior=0.0, evaluator=lambda g, s: next(values))
    agent.reset(game.config, game.actor, np.random.default_rng(1))
    agent.attach_sampler(lambda rng: game.clone())
    probe = SearchAgent(samples=1, depth=0)
    probe.reset(game.config, game.actor, np.random.default_rng(1))
    probe.attach_sampler(lambda rng: game.clone())
    probe.act_view(StateView(game, game.actor))
    n = len(probe.last_search[0])
    drawn = np.random.default_rng(3).random(3 * n)  # sample-major: every candidate of sample 1, then 2, 3
    values = iter(drawn)
    agent.act_view(StateView(game, game.actor))
    candidates, means, default = agent.last_search
    assert np.allclose(means, drawn.reshape(3, n).mean(axis=0))
    assert agent.explanation == {
        "kind": "search", "samples": 3, "default": list(default),
        "value": "mean value (0-1: win share, or projected margin) after the rollouts",
        "candidates": [{"actions": list(m), "value": round(float(v), 3)} for m, v in zip(candidates, means)]}


def test_every_candidate_meets_the_same_rollout_draws_and_the_seed_fixes_them():
    """Common random numbers: with random rollouts, two searches from one seed give the same values."""
    game = board_position()
    results = []
    for _ in range(2):
        agent = SearchAgent(samples=2, depth=2, rollout="random")
        agent.reset(game.config, game.actor, np.random.default_rng(11))
        agent.attach_sampler(lambda rng: game.clone())
        agent.act_view(StateView(game, game.actor))
        results.append(list(agent.last_search[1]))
    assert results[0] == results[1]


def searching_agent(game, **options):
    agent = SearchAgent(**{"samples": 1, "depth": 0, **options})
    agent.reset(game.config, game.actor, np.random.default_rng(2))
    agent.attach_sampler(lambda rng: game.clone())
    return agent


def test_two_legal_moves_are_searched_and_one_is_played_at_once_with_no_explanation():
    searched = decision_kinds(DECISION_GROUPS) - {BID_DECISION}
    seen = set()
    for seed in range(60):
        game = random_game(3, seed=seed, moves=10 + seed)
        if game.is_over or game.decision not in searched or len(game.legal_actions()) > 2:
            continue
        agent = searching_agent(game)
        action = agent.act_view(StateView(game, game.actor))
        count = len(game.legal_actions())
        assert agent.searched == (count == 2) and (agent.explain() is None) == (count == 1)
        assert count > 1 or action == game.legal_actions()[0]
        seen.add(count)
    assert 2 in seen


def test_a_chosen_bid_is_laid_card_by_card_over_the_next_calls():
    laid_whole = 0
    for game in bid_positions():
        seat = game.actor
        agent = searching_agent(game)
        first = agent.act_view(StateView(game, seat))
        chosen = next(m for m in agent.last_search[0] if m[0] == first) if agent.last_search else None
        played = [first]
        game.apply(first)
        while game.actor == seat and game.decision == BID_DECISION:
            played.append(agent.act_view(StateView(game, seat)))
            game.apply(played[-1])
        assert agent.searched == 1  # one search per bidding turn
        if chosen and len(chosen) > 1:
            assert tuple(played) == chosen
            laid_whole += 1
    assert laid_whole > 0


def test_unsearched_bids_are_the_heuristics_and_an_empty_mask_is_refused():
    from fifthave.agents.heuristic import HeuristicAgent

    for game in list(bid_positions(4)):
        seat = game.actor
        agent = searching_agent(game, groups=["board"])
        heuristic = HeuristicAgent()
        heuristic.reset(game.config, seat, np.random.default_rng(0))
        assert agent.act_view(StateView(game, seat)) == heuristic.act_view(StateView(game, seat))
        assert agent.searched == 0 and agent.explain() is None
    with pytest.raises(ValueError) as error:
        agent.act(Observer(game.config).observe(game, seat), np.zeros_like(game.action_mask()))
    assert str(error.value) == "search:48 was asked to act with no legal action (all-zero action mask)"


def test_the_default_prior_is_small_and_an_unknown_rollout_policy_is_named():
    assert SearchAgent().prior == 0.02 and SearchAgent().explain() is None
    with pytest.raises(ValueError) as error:
        SearchAgent(rollout="smart")
    assert str(error.value) == ("unknown rollout policy 'smart'; choose from heuristic, greedy, random or pass an "
                                "agent factory")


def test_a_rollout_stops_after_400_decisions():
    from fifthave.agents.search import MAX_DEPTH, Rollout
    from fifthave_env.random_agent import RandomAgent

    game = random_game(4, seed=12, moves=5)
    applied = []
    apply = game.apply
    game.apply = lambda action: applied.append(action) or apply(action)
    Rollout(RandomAgent, game.config).run(game, MAX_DEPTH, seed=3)
    assert len(applied) == 400 and not game.is_over


@pytest.mark.parametrize("layout", [0, 1])
def test_a_rollout_of_one_factory_per_seat_seats_each_and_every_agent_acts_from_what_it_reads(layout):
    from fifthave.agents.greedy import GreedyAgent
    from fifthave.agents.search import Rollout
    from fifthave_env.random_agent import RandomAgent

    game = random_game(3, seed=9, moves=30)
    acted = []

    class Reader:  # reads observations of its layout
        observation_layout = layout

        def reset(self, config, seat, rng):
            self.rng = rng

        def act(self, observation, action_mask):
            assert np.array_equal(observation, Observer(game.config, version=layout).observe(game, game.actor))
            acted.append(("reader", game.actor))
            legal = np.flatnonzero(action_mask)
            return int(legal[self.rng.integers(len(legal))])

    class Viewer(GreedyAgent):
        def act_view(self, view):
            assert view._seat == game.actor
            acted.append(("viewer", game.actor))
            return super().act_view(view)

    rollout = Rollout([Viewer, Reader, RandomAgent], game.config)
    assert [type(a) for a in rollout.agents] == [Viewer, Reader, RandomAgent]
    rollout.run(game, 3, seed=4)
    assert {("viewer", 0), ("reader", 1)} <= set(acted) and all(
        who == ("viewer", "reader")[seat] for who, seat in acted)  # seat 2 (random) reads the mask alone
    with pytest.raises(ValueError, match="one agent factory per seat \\(3\\), got 2"):
        Rollout([Viewer, Reader], game.config)
