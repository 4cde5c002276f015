"""The search agent: legal play, only its seat's information, pluggable parts, names."""

import numpy as np
import pytest

from fifthave.agents.search import SearchAgent, projected_value, search_factory
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.determinize import SeatSampler, determinize
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.observation import Observer
from rules_helpers import random_positions


def searcher(game, seat, seed, sample_from=None, **options):
    agent = SearchAgent(**{"rollouts": 4, "depth": 1, **options})
    agent.reset(game.config, seat, np.random.default_rng(seed))
    agent.attach_sampler(SeatSampler(sample_from if sample_from is not None else game, seat))
    return agent


def test_decisions_do_not_depend_on_hidden_information():
    """Same generator, a game that differs only in what the seat cannot know: the same action."""
    rng = np.random.default_rng(0)
    searched = 0
    for game in random_positions(4, 5, seed=31, count=10, skip=29):
        if game.is_over:
            continue
        seat = game.actor
        observation, mask = Observer(game.config).observe(game, seat), game.action_mask()
        other = determinize(game, seat, rng)
        assert other.to_dict()["state"] != game.to_dict()["state"] or game.decision != BID_DECISION
        a = searcher(game, seat, seed=7)
        b = searcher(game, seat, seed=7, sample_from=other)
        assert a.act(observation, mask) == b.act(observation, mask)
        assert a.searched == b.searched
        searched += a.searched
    assert searched > 0  # the positions did exercise the search


def test_plays_legal_full_games_in_a_tournament():
    result = run_tournament([agent_factory("search:4:1"), agent_factory("heuristic"), agent_factory("random")],
                            num_players=3, board=6, games=3, seed=1)
    row = result.row("search:4:1")
    assert row["seat_games"] == 3 and row["mean_vp"] > 0


@pytest.mark.parametrize("rollout", ["random", "greedy"])
def test_rollout_policies_and_evaluator_plug_in(rollout):
    calls = []

    def evaluator(g, seat):
        calls.append(seat)
        return projected_value(g, seat)

    game = Game(GameConfig(num_players=2), seed=3)
    rng = np.random.default_rng(3)
    while game.decision != BID_DECISION or game.actor != 0:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    agent = searcher(game, 0, seed=1, rollout=rollout, evaluator=evaluator)
    action = agent.act(Observer(game.config).observe(game, 0), game.action_mask())
    assert action in game.legal_actions() and calls and set(calls) == {0}


def test_without_a_sampler_it_plays_like_the_heuristic():
    game = Game(GameConfig(num_players=4), seed=5)
    agent = SearchAgent()
    agent.reset(game.config, 0, np.random.default_rng(0))
    observer = Observer(game.config)
    while not game.is_over and game.turn < 3:
        seat = game.actor
        action = agent.act(observer.observe(game, seat), game.action_mask()) if seat == 0 else game.legal_actions()[0]
        game.apply(int(action))
    assert agent.searched == 0


def test_values_are_win_shares_at_the_end():
    game = Game(GameConfig(num_players=3), seed=2)
    rng = np.random.default_rng(2)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    assert sum(projected_value(game, seat) for seat in range(3)) == pytest.approx(1.0)


def test_names_and_bad_options():
    assert search_factory("search")().rollouts > 0
    agent = agent_factory("search:9:2:random")()
    assert (agent.rollouts, agent.depth, agent.name) == (9, 2, "search:9:2:random")
    with pytest.raises(ValueError, match="ROLLOUTS and DEPTH must be integers"):
        search_factory("search:many")
    with pytest.raises(ValueError, match="unknown rollout policy"):
        search_factory("search:4:1:smart")
    with pytest.raises(ValueError, match="rollouts must be an int from 1 to"):
        SearchAgent(rollouts=0)
    with pytest.raises(ValueError, match="samples must be an int from 1 to .*got 0"):
        SearchAgent(samples=0)
    # issue 40: search:1e30 hung; every search parameter is bounded, with the range in the error
    with pytest.raises(ValueError, match="ROLLOUTS of 'search:1000000000000' must be an int from 1 to 4096"):
        search_factory("search:1000000000000")
    with pytest.raises(ValueError, match="DEPTH of 'search:4:100000' must be an int from 0 to 300, got 100000"):
        search_factory("search:4:100000")
    with pytest.raises(ValueError, match="depth must be an int from 0 to 300"):
        SearchAgent(depth=10**30)
    with pytest.raises(ValueError, match="unknown decision groups"):
        SearchAgent(groups=["bids"])


def test_a_network_plugs_in_as_evaluator(tmp_path):
    """The documented hook: a MaskablePPO checkpoint's critic scores the rolled-out positions."""
    sb3 = pytest.importorskip("sb3_contrib")
    from fifthave_env.gym_env import FifthAvenueEnv
    from fifthave.train.checkpoint import save_checkpoint
    from fifthave.train.config import TrainConfig
    from fifthave.train.search_value import ValueNetEvaluator, network_search_factory

    path = str(tmp_path / "net.zip")
    model = sb3.MaskablePPO("MlpPolicy", FifthAvenueEnv(num_players=2), n_steps=64, seed=0, device="cpu",
                            policy_kwargs={"net_arch": [64, 64]})
    save_checkpoint(model, path, TrainConfig(num_players=2, net_arch=[64, 64]))  # the config describes the network
    evaluator = ValueNetEvaluator(path)
    game = Game(GameConfig(num_players=2), seed=0)
    assert 0.0 <= evaluator(game, 0) <= 1.0
    agent = network_search_factory(path, rollouts=2, depth=0)()
    agent.reset(game.config, 0, np.random.default_rng(0))
    agent.attach_sampler(SeatSampler(game, 0))
    observer = Observer(game.config)
    rng = np.random.default_rng(0)
    while agent.searched == 0 and not game.is_over:
        seat = game.actor
        if seat == 0:
            action = agent.act(observer.observe(game, 0), game.action_mask())
        else:
            legal = game.legal_actions()
            action = legal[rng.integers(len(legal))]
        game.apply(int(action))
    assert agent.searched == 1


def test_the_network_evaluator_reads_the_critic_by_the_reward_it_was_trained_on(tmp_path):
    """A ``win_loss`` critic estimates a return in [-1, 1] (mapped to (v + 1) / 2), a ``win`` critic a chance in
    [0, 1] (taken as it is); a VP critic estimates no chance to win and is refused with the rewards allowed."""
    sb3 = pytest.importorskip("sb3_contrib")
    import torch

    from fifthave_env.gym_env import FifthAvenueEnv
    from fifthave.train.checkpoint import read_meta, save_checkpoint
    from fifthave.train.config import TrainConfig
    from fifthave.train.policy_agent import load_policy
    from fifthave.train.search_value import ValueNetEvaluator

    model = sb3.MaskablePPO("MlpPolicy", FifthAvenueEnv(num_players=2), n_steps=64, seed=0, device="cpu",
                            policy_kwargs={"net_arch": [64, 64]})
    game = Game(GameConfig(num_players=2), seed=0)
    for _ in range(30):  # a position inside the game, not the first one
        game.apply(game.legal_actions()[0])
    values = {}
    for reward in ("win_loss", "win", "vp_margin"):
        path = str(tmp_path / f"{reward}.zip")
        save_checkpoint(model, path, TrainConfig(num_players=2, net_arch=[64, 64], reward=reward))
        if reward == "vp_margin":
            with pytest.raises(ValueError, match="reward 'vp_margin'.*'win_loss', 'win'"):
                ValueNetEvaluator(path)(game, 0)
            continue
        values[reward] = ValueNetEvaluator(path)(game, 0)
        observation = torch.as_tensor(Observer(game.config).observe(game, 0)[None, :], dtype=torch.float32)
        with torch.no_grad():
            critic = float(load_policy(path, read_meta(path)).predict_values(observation)[0, 0])
    assert values["win_loss"] == pytest.approx(float(np.clip((critic + 1) / 2, 0, 1)))
    assert values["win"] == pytest.approx(float(np.clip(critic, 0, 1)))
    assert values["win"] != values["win_loss"]


def test_projected_value_stays_in_range_for_any_margin(monkeypatch):
    """A margin of thousands of VP once overflowed math.exp in a 3-player labelling run."""
    import fifthave.agents.search as search

    game = Game(GameConfig(num_players=3), seed=0)
    for scores, expected in (([0.0, 5000.0, 0.0], 0.0), ([5000.0, 0.0, 0.0], 1.0)):
        monkeypatch.setattr(search, "projected_scores", lambda g, s=scores: list(s))
        assert projected_value(game, 0) == pytest.approx(expected, abs=1e-12)


def test_search_results_reproduce_from_the_seed_through_either_view():
    """Same seed, same position: the same candidates and the same mean values, whether the agent is
    handed a StateView (act_view) or its observation (act); another seed gives other values."""
    from fifthave_env.seat_view import StateView

    compared = differ = 0
    for game in random_positions(4, 5, seed=36, count=8, skip=23):
        if game.is_over:
            continue
        seat = game.actor
        a, b, c = (searcher(game, seat, seed=s, rollouts=8, depth=2) for s in (5, 5, 6))
        a.act_view(StateView(game, seat))
        b.act(Observer(game.config).observe(game, seat), game.action_mask())
        c.act_view(StateView(game, seat))
        if a.last_search is None:
            continue
        assert a.last_search[0] == b.last_search[0] and list(a.last_search[1]) == list(b.last_search[1])
        compared += 1
        differ += list(a.last_search[1]) != list(c.last_search[1])
    assert compared > 0 and differ > 0


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_bid_plans_shared_across_rollouts_change_no_decision(monkeypatch, seed):
    """``HeuristicAgent(share_plans=True)`` (the search's rollouts and default) reuses a plan wherever all it
    depends on recurs: the same game, searched with and without sharing, has the same moves, and the sharing
    did reuse plans (issue 36)."""
    from fifthave.agents import heuristic
    from fifthave_env.runner import GameHooks, play

    class Moves(GameHooks):
        def __init__(self):
            self.moves = []

        def applied(self, decision):
            self.moves.append(decision.action)

    planned = []
    plan = heuristic.BiddingStrategy.plan
    monkeypatch.setattr(heuristic.BiddingStrategy, "plan", lambda self, situation: planned.append(1) or plan(
        self, situation))

    def moves(shared):
        monkeypatch.setattr(heuristic, "SHAREABLE_PLANS", heuristic.SHAREABLE_PLANS if shared else frozenset())
        heuristic._SHARED_PLANS.clear()
        planned.clear()
        config = GameConfig(num_players=4, board=5)
        game = Game(config, seed=seed)
        agents = [SearchAgent(rollouts=12, depth=1, rollout=lambda: heuristic.HeuristicAgent("aggressive"))]
        agents += [heuristic.HeuristicAgent(bidding, share_plans=True) for bidding in ("conservative", "value", "hoarder")]
        for seat, agent in enumerate(agents):
            agent.reset(config, seat, np.random.default_rng([seed, seat]))
        hook = Moves()
        play(game, agents, [hook])
        return hook.moves, len(planned)

    shared, computed_shared = moves(True)
    alone, computed_alone = moves(False)
    assert shared == alone
    assert computed_shared < 0.7 * computed_alone
