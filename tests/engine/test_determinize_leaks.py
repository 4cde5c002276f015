"""Determinization leak tests that do not trust ``determinize`` (R30, R31).

Each pair of games is made by an independent path: the saved record of a real position
(``Game.to_dict``) is edited by hand in one thing the seat cannot know and loaded back with
``Game.from_dict`` (which checks it is a consistent game). The seat's observation of the two
games is the same, the games are not; a sample drawn for that seat with the same sampling
seed must then be the same game, down to its generator. A sample that kept any hidden part
of the real game (its black pile, an opponent's cards, the order of a pile, the generator
that will decide the next reshuffle and the Central Park draw) would tell the pair apart.
"""

import numpy as np
import pytest

from fifthave_env.engine import Game
from fifthave_env.engine.cards import BLACK, NUM_COLORS
from fifthave_env.engine.determinize import determinize
from fifthave_env.observation import Observer
from rules_helpers import CONFIGS, random_positions

BLACK_KINDS = range(BLACK * 3, BLACK * 3 + 3)


def positions(num_players, board):
    return random_positions(num_players, board, seed=700 + num_players * 10 + board, count=10, skip=41)


def loaded(record):
    return Game.from_dict(record)


def assert_same_samples(game, other, seat, seeds=(0, 1, 2)):
    """``game`` and ``other`` look the same to ``seat`` and differ: its samples must be equal."""
    assert np.array_equal(Observer(game.config).observe(game, seat), Observer(other.config).observe(other, seat)), \
        "the pair is not a pair: the seat can tell the games apart"
    assert game.to_dict() != other.to_dict()
    for seed in seeds:
        a = determinize(game, seat, np.random.default_rng(seed))
        b = determinize(other, seat, np.random.default_rng(seed))
        assert a.to_dict() == b.to_dict(), f"seat {seat}'s sample depends on something it cannot know"


def unknown_cards(state, q, kinds):
    return [k for k in kinds if state["hands"][q][k] > state["known"][q][k]]


def swap_black_hand_and_pile(record, seat):
    """An opponent's unknown black card and an unseen black pile card of another value, swapped."""
    state = record["state"]
    n = len(state["hands"])
    for q in (q for q in range(n) if q != seat):
        for k in unknown_cards(state, q, BLACK_KINDS):
            v = k - BLACK * 3
            for i, entry in enumerate(state["black"]):
                if entry < 3 and entry != v:  # face down and unseen, another value
                    state["hands"][q][k] -= 1
                    state["hands"][q][BLACK * 3 + entry] += 1
                    state["black"][i] = v
                    return True
    return False


def reorder_black_pile(record):
    """The unseen black cards in another order (the seen ones stay where they are)."""
    black = record["state"]["black"]
    slots = [i for i, entry in enumerate(black) if entry < 3]
    values = [black[i] for i in slots]
    if len(set(values)) < 2:
        return False
    for i, v in zip(slots, values[::-1] if values[::-1] != values else values[1:] + values[:1]):
        black[i] = v
    return True


def swap_colored_hand_and_pile(record, seat):
    """An opponent's unknown colored card and a card of its color in the pile's hidden middle."""
    state = record["state"]
    n = len(state["hands"])
    for c in range(NUM_COLORS):
        pile, known = state["piles"][c], state["pile_known"][c]
        middle = range(known, len(pile) - 1)
        for q in (q for q in range(n) if q != seat):
            for k in unknown_cards(state, q, range(c * 3, c * 3 + 3)):
                v = k - c * 3
                for i in middle:
                    if pile[i] != v:
                        state["hands"][q][k] -= 1
                        state["hands"][q][c * 3 + pile[i]] += 1
                        pile[i] = v
                        return True
    return False


def swap_between_opponents(record, seat):
    """Two opponents' unknown cards of one color and different values, swapped."""
    state = record["state"]
    n = len(state["hands"])
    others = [q for q in range(n) if q != seat]
    for c in range(NUM_COLORS + 1):
        kinds = range(c * 3, c * 3 + 3)
        for q in others:
            for r in others:
                for k in unknown_cards(state, q, kinds):
                    for j in unknown_cards(state, r, kinds):
                        if q != r and k != j:
                            state["hands"][q][k] -= 1
                            state["hands"][q][j] += 1
                            state["hands"][r][j] -= 1
                            state["hands"][r][k] += 1
                            return True
    return False


def other_generator(record):
    """The same position with a generator in another state: other reshuffles, another Central Park draw."""
    record["rng"] = {"bit_generator": "PCG64", "state": np.random.default_rng(987654321).bit_generator.state}
    return True


EDITS = {
    "black card swapped between an opponent's hand and the pile": swap_black_hand_and_pile,
    "black pile in another order": lambda record, seat: reorder_black_pile(record),
    "colored card swapped between an opponent's hand and its pile": swap_colored_hand_and_pile,
    "cards swapped between two opponents": swap_between_opponents,
    "another generator state": lambda record, seat: other_generator(record),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_samples_ignore_what_the_seat_cannot_know(num_players, board, edit):
    pairs = 0
    for game in positions(num_players, board):
        for seat in range(num_players):
            record = game.to_dict()
            if not EDITS[edit](record, seat):
                continue
            assert_same_samples(game, loaded(record), seat)
            pairs += 1
    if edit == "cards swapped between two opponents" and num_players == 2:
        assert pairs == 0  # one opponent only
    else:
        assert pairs >= 3, f"only {pairs} positions had a hidden card to move"


def test_a_sample_draws_its_future_from_the_sampling_generator():
    """Played forward with the same moves, the samples of a pair that differs only in the
    generator state meet the same black reshuffles and the same Central Park draw: the whole
    remaining game, final scores included, is the same."""
    for num_players, board in CONFIGS:
        game = positions(num_players, board)[3]
        record = game.to_dict()
        other_generator(record)
        other = loaded(record)
        seat = max(game.actor, 0)
        a = determinize(game, seat, np.random.default_rng(5))
        b = determinize(other, seat, np.random.default_rng(5))
        moves = np.random.default_rng(6)
        while not a.is_over:
            legal = a.legal_actions()
            assert legal == b.legal_actions()
            action = legal[moves.integers(len(legal))]
            a.apply(action)
            b.apply(action)
        assert b.is_over and a.to_dict() == b.to_dict()
        assert a.scores == b.scores and a.central_park_draw == b.central_park_draw


def test_a_seat_sampler_samples_the_game_as_it_is_at_the_call():
    from fifthave_env.engine.determinize import SeatSampler
    game = positions(3, 5)[2]
    sampler = SeatSampler(game, 1)
    assert sampler(np.random.default_rng(8)).to_dict() == determinize(game, 1, np.random.default_rng(8)).to_dict()
    game.apply(game.legal_actions()[0])
    later = determinize(game, 1, np.random.default_rng(8)).to_dict()
    assert sampler(np.random.default_rng(8)).to_dict() == later
    assert determinize(game, 2, np.random.default_rng(8)).to_dict() != later  # the seat is the sampler's
