"""Determinization (R30, R31): samples agree with what the seat knows, redraw the rest fairly,
and conserve every card and tile."""

import itertools
from collections import Counter

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.cards import BLACK_COUNTS, COLORED_PER_COLOR, NUM_COLORS, NUM_KINDS
from fifthave_env.engine.determinize import determinize
from fifthave_env.engine.savefile import card_totals
from fifthave_env.observation import Observer
from rules_helpers import CONFIGS, random_positions

HIDDEN_FIELDS = ("hands", "piles", "black")  # the only parts a sample may change (the generator aside)
FULL_DECK = [n for _ in range(NUM_COLORS) for n in COLORED_PER_COLOR] + list(BLACK_COUNTS)  # R1


def tiles_on_view(g):
    return (sorted(t for shops in g.plot_shops for t in shops), list(g.row), sorted(g.box), g.pending_tile)


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_samples_keep_what_the_seat_knows_and_conserve_cards(num_players, board):
    rng = np.random.default_rng(num_players * 7 + board)
    changed = 0
    for game in random_positions(num_players, board, seed=100 + num_players * 10 + board, count=12, skip=53):
        before = game.to_dict()
        for seat in range(num_players):
            sample = determinize(game, seat, rng)
            assert game.to_dict() == before, "determinize changed its input"
            assert np.array_equal(Observer(game.config).observe(sample, seat),
                                  Observer(game.config).observe(game, seat))
            assert card_totals(sample) == FULL_DECK  # R1: no card made or lost
            assert tiles_on_view(sample) == tiles_on_view(game) and sample.unused_tiles == game.unused_tiles
            assert sample.hands[seat] == game.hands[seat]
            for q in range(num_players):
                assert sample.known[q] == game.known[q]
                assert all(sample.hands[q][k] >= sample.known[q][k] for k in range(NUM_KINDS))
                for c in range(NUM_COLORS + 1):  # hand size per color is public (R31)
                    assert sum(sample.hands[q][c * 3:c * 3 + 3]) == sum(game.hands[q][c * 3:c * 3 + 3])
            for c in range(NUM_COLORS):
                pile, original = sample.piles[c], game.piles[c]
                assert len(pile) == len(original) and pile[-1:] == original[-1:]
                assert pile[:game.pile_known[c]] == original[:game.pile_known[c]]
            assert [e for e in sample.black if e >= 3] == [e for e in game.black if e >= 3]
            assert len(sample.black) == len(game.black)
            state, original_state = sample.to_dict()["state"], before["state"]
            for key in original_state:
                if key not in HIDDEN_FIELDS:
                    assert state[key] == original_state[key], key
            changed += any(state[key] != original_state[key] for key in HIDDEN_FIELDS)
    assert changed > 0


@pytest.mark.parametrize("num_players,board", [(2, 5), (4, 6)])
def test_a_sample_depends_only_on_what_the_seat_knows(num_players, board):
    """Redrawing the hidden parts first (with another generator) leaves the sample unchanged."""
    rng = np.random.default_rng(3)
    for game in random_positions(num_players, board, seed=9, count=8, skip=61):
        for seat in range(num_players):
            other = determinize(game, seat, rng)
            seed = int(rng.integers(1 << 30))
            a = determinize(game, seat, np.random.default_rng(seed))
            b = determinize(other, seat, np.random.default_rng(seed))
            assert a.to_dict() == b.to_dict()


def test_sampling_continues_the_game_without_error():
    rng = np.random.default_rng(4)
    for game in random_positions(3, 5, seed=11, count=6, skip=71):
        sample = determinize(game, game.actor if game.actor >= 0 else 0, rng)
        while not sample.is_over:
            legal = sample.legal_actions()
            sample.apply(legal[rng.integers(len(legal))])
        assert card_totals(sample) == FULL_DECK


def test_bad_seat_is_rejected():
    game = Game(GameConfig(num_players=2), seed=0)
    with pytest.raises(ValueError, match="seat must be in 0..1"):
        determinize(game, 2, np.random.default_rng(0))


def small_position():
    """Three players; gray (color 0) has six hidden places: 2 unknown cards of seat 1, 2 of seat 2,
    and 2 in the middle of its pile (one known card below, the top above)."""
    game = Game(GameConfig(num_players=3), seed=21)
    # public or seat 0's: seat 0 holds 4,4,6; seat 1 one known 5; pile bottom 4 (known), top 6
    for q in range(3):
        game.hands[q][0:3] = [0, 0, 0]
        game.known[q][0:3] = [0, 0, 0]
    game.hands[0][0:3] = [2, 0, 1]
    game.hands[1][0:3] = [0, 1, 0]
    game.known[1][0:3] = [0, 1, 0]
    # hidden: 4,4,5,5,5,6 spread over seat 1 (2), seat 2 (2) and the pile middle (2)
    game.hands[1][0:3] = [1, 2, 0]  # the truth (one of many)
    game.hands[2][0:3] = [1, 0, 1]
    game.piles[0] = [0, 1, 1, 2]
    game.pile_known[0] = 1
    assert card_totals(game) == FULL_DECK
    game.touch()
    return game


def gray_outcome(g):
    return tuple(g.hands[1][0:3]), tuple(g.hands[2][0:3]), tuple(g.piles[0][1:3])


def test_every_consistent_hidden_assignment_appears_with_its_probability():
    """Exact enumeration: the six hidden gray places get every arrangement of the gray cards
    nobody has seen (R1 minus what seat 0 sees) with equal probability; chi-square over outcomes."""
    game = small_position()
    seen = Counter({0: 2, 2: 1}) + Counter({1: 1}) + Counter({0: 1, 2: 1})  # seat 0's, seat 1's known, pile ends
    unseen = Counter({0: 5, 1: 4, 2: 3}) - seen
    expected = Counter()
    for places in itertools.product(range(3), repeat=6):  # every value assignment with the right counts
        if Counter(places) != unseen:
            continue
        s1 = tuple(places[0:2].count(v) + (v == 1) for v in range(3))  # plus seat 1's known 5
        s2 = tuple(places[2:4].count(v) for v in range(3))
        expected[s1, s2, places[4:6]] += 1
    total = sum(expected.values())
    draws = 6000
    rng = np.random.default_rng(5)
    observed = Counter(gray_outcome(determinize(game, 0, rng)) for _ in range(draws))
    assert set(observed) <= set(expected), "a sample broke the public record"
    chi2 = sum((observed[k] - draws * m / total) ** 2 / (draws * m / total) for k, m in expected.items())
    dof = len(expected) - 1
    # Wilson-Hilferty 0.999 quantile of chi-square(dof)
    limit = dof * (1 - 2 / (9 * dof) + 3.09 * (2 / (9 * dof)) ** 0.5) ** 3
    assert len(expected) > 20 and chi2 < limit, (chi2, limit)


def test_a_sample_keeps_the_board_tokens_and_renews_the_cards_token():
    """Only cards are redrawn: the views' per-board caches (seat_view, keyed by plots_token) and the
    observers' board (board_token) stay valid for every sample; the piles' (cards_token) do not."""
    rng = np.random.default_rng(3)
    for game in random_positions(4, 5, seed=31, count=6, skip=41):
        sample = determinize(game, game.actor if game.actor >= 0 else 0, rng)
        assert sample.board_token is game.board_token and sample.plots_token is game.plots_token
        assert sample.cards_token is not game.cards_token
