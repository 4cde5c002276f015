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
