"""The end: what ends a game and final scoring (R27), the winner (R28), truncation (R29, R38)."""

import pytest

from fifthave_env.engine.game import GAME_OVER
from rules_helpers import (
    auction_round, legal_names, play, plot_of, put_shops, put_skyscrapers, set_hand, start_turn, started_game)

B, J, G, P = range(4)  # boutique, jeweler, gallery, perfume


def end_with_last_tile(game, seat=0, box=(B, J, G, P, B, J, G)):
    """``seat`` places the last tile of the row (a jeweler on 34th St East gray; its gallery
    partner goes to the box), which ends the game (R27)."""
    game.shops_placed = 11
    game.box = list(box)
    game.row = [-1] * 18 + [J, G]
    start_turn(game, seat)
    play(game, "action B", "take jeweler", "place shop on 34th St East gray")
    assert game.decision == GAME_OVER and game.terminated


def test_r27_final_scoring_scores_open_districts_not_closed_ones():
    game = started_game(3)
    put_skyscrapers(game, 0, plot_of(game, 2, "gray"), 2)
    put_shops(game, plot_of(game, 2, "brown"), "boutique", "jeweler")  # gray touches brown: 3 VP each
    put_skyscrapers(game, 1, plot_of(game, 4, "gray"), 1)  # put there by hand to show that
    game.closed[4] = True  # a closed district is skipped by the final scoring
    game.closed_mask = 1 << 4
    end_with_last_tile(game)
    assert game.scores == [6, 0, 0]


def end_with_second_stop(game, box):
    """The game's second stop ends it (R27): seat 0 wins 52nd St West, a district of shops only,
    and must declare a stop that scores nobody (R33). The box is ``box``."""
    game.stops = 1
    game.box = list(box)
    for color in ("gray", "brown", "violet", "orange", "green"):
        put_shops(game, plot_of(game, 5, color), "perfume")
    set_hand(game, 0, "gray 4")
    auction_round(game, 0, [5])
    play(game, "bid gray 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"declare building stop"}
    play(game, "declare building stop")
    assert game.decision == GAME_OVER and game.terminated


@pytest.mark.parametrize("box, vp", [
    ([], 1),  # an empty box: like a skyscraper with no shop beside it
    ([J], 2),  # fewer than three tiles: all of them are drawn
    ([P, P, P, P], 2),
    ([B, B, J, J], 3),
    ([B, J, G], 5),
    ([B, J, G, P], 5),
])
def test_r27_central_park_scores_by_the_types_of_min_3_and_box_size_tiles_drawn(box, vp):
    game = started_game(3)
    game.cp_skyscrapers = [1, 3, 0]
    end_with_second_stop(game, box)
    assert len(game.central_park_draw) == min(3, len(box))
    assert game.scores == [vp, 3 * vp, 0]


def test_r27_central_park_draw_is_random_from_the_box():
    outcomes = set()
    for seed in range(30):
        game = started_game(3, seed=seed)
        game.cp_skyscrapers = [1, 0, 0]
        end_with_second_stop(game, [B, B, B, J])
        drawn = game.central_park_draw
        assert len(drawn) == 3 and drawn.count(B) >= 2 and drawn.count(J) <= 1
        assert game.scores[0] == {1: 2, 2: 3}[len(set(drawn))]
        outcomes.add(tuple(sorted(drawn)))
    assert outcomes == {(B, B, B), (B, B, J)}


def test_r28_most_vp_wins():
    game = started_game(3)
    game.scores = [10, 12, 11]
    end_with_last_tile(game)
    assert game.winners == [1]


def test_r28_tie_broken_by_most_cards_in_hand_then_shared():
    game = started_game(4)
    game.scores = [12, 12, 12, 3]
    set_hand(game, 0, "gray 4")
    set_hand(game, 1, "gray 4", "black 5", "black 6")
    set_hand(game, 2, "gray 5", "black 5", "black 6")
    set_hand(game, 3, *["black 4"] * 10)
    end_with_last_tile(game, seat=0)
    assert game.winners == [1, 2]  # tied on VP and on cards: a shared win
    game = started_game(4)
    game.scores = [12, 12, 0, 0]
    set_hand(game, 0, "gray 4", "gray 5")
    set_hand(game, 1, "gray 4")
    end_with_last_tile(game, seat=3)
    assert game.winners == [0]


def test_r29_r38_truncation_after_max_turns_without_final_scoring():
    game = started_game(3, max_turns=2)
    put_skyscrapers(game, 1, plot_of(game, 0, "gray"), 3)  # would score 3 VP at a final scoring
    game.scores = [0, 5, 5]
    set_hand(game, 2, "black 4")
    for seat in (0, 1):
        start_turn(game, seat)
        play(game, "action A", "draw gray", "draw brown", "move white -> 34th St West"
             if seat == 0 else "move white -> 42nd St West")
    assert game.decision == GAME_OVER and game.truncated and not game.terminated
    assert game.scores == [0, 5, 5] and game.central_park_draw == []
    assert game.winners == [1]  # R28 names the leader(s): seat 1 holds more cards than seat 2
    assert game.turn == 2 and game.actor == -1 and game.legal_actions() == []
