"""Information (R30, R31): what the engine records as public, and what an observation may not show.

The observation itself is built by ``fifthave_env.observation``; these tests
check the rulings through it: hidden parts of the state must not change a
seat's observation, and publicly seen cards must be tracked.
"""

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.cards import FACE_DOWN
from fifthave_env.observation import Observer, views
from rules_helpers import auction_round, play, set_hand, stack_pile, started_game


def play_randomly(game, steps, seed):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])


def hide_differently(game, seat):
    """Change only what ``seat`` cannot know: the face-down black order, the unknown part of the
    colored piles, the unused tiles, the random draws to come, and one unknown black card of the
    next seat (swapped with a face-down one of another value in the draw pile). Returns True if
    the hand swap could be made."""
    face_down = [i for i, e in enumerate(game.black) if e // 3 == FACE_DOWN]
    values = [game.black[i] for i in face_down][::-1]
    for i, e in zip(face_down, values):
        game.black[i] = e
    for c in range(5):
        pile = game.piles[c]
        lo = game.pile_known[c]
        pile[lo:-1] = pile[lo:-1][::-1]
    game.unused_tiles = [(t + 1) % 4 for t in game.unused_tiles]
    game.rng = np.random.default_rng(12345)
    other = (seat + 1) % game.n
    hand, known = game.hands[other], game.known[other]
    for v in range(3):
        if hand[15 + v] > known[15 + v]:
            for i in face_down:
                w = game.black[i] % 3
                if w != v:
                    hand[15 + v] -= 1
                    hand[15 + w] += 1
                    game.black[i] = v
                    game.touch()
                    return True
    game.touch()
    return False


@pytest.mark.parametrize("num_players, board", [(2, 5), (3, 6), (4, 5)])
def test_r30_hidden_parts_never_change_an_observation(num_players, board):
    config = GameConfig(num_players=num_players, board=board)
    swaps = 0
    for seed in range(12):
        game = Game(config, seed=seed)
        play_randomly(game, 40 + 30 * seed, seed)
        if game.is_over:
            continue
        other = game.clone()
        swaps += hide_differently(other, 0)
        assert np.array_equal(Observer(config).observe(game, 0), Observer(config).observe(other, 0))
        if game.hands[1] != other.hands[1]:  # the seat whose hand changed does see it
            assert not np.array_equal(Observer(config).observe(game, 1), Observer(config).observe(other, 1))
    assert swaps >= 6


def test_r31_colored_cards_taken_face_up_are_known_to_everyone():
    game = started_game(3)
    set_hand(game, 0)
    stack_pile(game, "violet", 6, 5)
    stack_pile(game, "green", 4)
    play(game, "action A", "draw violet", "draw green")
    assert game.known[0][2 * 3 + 2] == 1 and game.known[0][4 * 3 + 0] == 1
    seen_by_1 = views(Observer(game.config).observe(game, 1))
    slot_of_seat_0 = 2  # relative to seat 1: seat 2 is slot 1, seat 0 slot 2
    assert seen_by_1["known_cards"][slot_of_seat_0][2 * 3 + 2] == 1
    assert seen_by_1["hand_colors"][slot_of_seat_0].tolist() == [0, 0, 1, 0, 1, 0]


def test_r31_cards_shown_in_a_bid_and_taken_back_become_known_paid_cards_known_under_piles():
    game = started_game(3)
    set_hand(game, 0, "gray 5", "black 6")
    set_hand(game, 1, "gray 4", "black 4", "black 5")
    set_hand(game, 2)
    auction_round(game, 0, [])  # Central Park
    play(game, "bid gray 5", "bid black 6", "confirm bid")  # seat 0: 11
    play(game, "bid gray 4", "bid black 4", "pass")  # seat 1 shows two cards and takes them back
    assert game.known[1][0] == 1 and game.known[1][15] == 1 and game.known[1][16] == 0
    play(game, "pass", "build 0")  # seat 2 passes; seat 0 wins and pays
    assert game.pile_known[0] == 1 and game.piles[0][0] == 1  # the gray 5 lies known under gray
    assert game.black_seen == [0, 0, 1] and game.black[0] == 2 + 3 * 2  # the black 6, face up
