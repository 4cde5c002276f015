"""Scoring a district (R19) and the rulebook's three scoring examples (fig. 07).

District 34th St West's default ring is gray, brown, violet, orange, green
(positions 0-4): gray touches green and brown, violet touches brown and orange.
"""

import pytest

from fifthave_env.engine.auction import ALEA
from fifthave_env.engine.scoring import plot_value
from rules_helpers import CITY_HALL, play, plot_of, put_shops, put_skyscrapers, start_turn, started_game

BLUE, YELLOW, RED = 0, 1, 2


def score_district_0(game):
    """Seat 2 takes action D on 34th St West; returns each seat's gain."""
    game.comm_pos = [0, CITY_HALL]
    start_turn(game, 2)
    before = game.scores[:]
    play(game, "action D", "score 34th St West")
    return [a - b for a, b in zip(game.scores, before)]


@pytest.mark.parametrize("left, right, vp", [
    ((), (), 1),
    (("boutique",), (), 2),
    (("boutique",), ("boutique",), 2),  # the same type twice counts once
    (("boutique", "boutique"), ("jeweler",), 3),
    (("boutique", "jeweler"), ("gallery",), 5),
    (("boutique", "jeweler"), ("gallery", "perfume"), 8),
])
def test_r19_vp_by_different_adjacent_shop_types(left, right, vp):
    game = started_game(3)
    violet = plot_of(game, 0, "violet")
    put_shops(game, plot_of(game, 0, "brown"), *left)
    put_shops(game, plot_of(game, 0, "orange"), *right)
    put_skyscrapers(game, 0, violet, 2)
    assert plot_value(game, violet) == vp
    assert score_district_0(game) == [2 * vp, 0, 0]


def test_r19_only_the_two_ring_neighbours_count():
    game = started_game(3)
    put_shops(game, plot_of(game, 0, "green"), "boutique", "jeweler")  # not beside violet
    put_shops(game, plot_of(game, 1, "violet"), "gallery")  # another district
    put_skyscrapers(game, 0, plot_of(game, 0, "violet"), 1)
    assert score_district_0(game) == [1, 0, 0]


def test_r19_alea_never_scores():
    game = started_game(2)
    put_shops(game, plot_of(game, 0, "brown"), "boutique")
    put_skyscrapers(game, ALEA, plot_of(game, 0, "violet"), 1)
    put_skyscrapers(game, 1, plot_of(game, 0, "gray"), 1)
    game.comm_pos = [0, CITY_HALL]
    start_turn(game, 0)
    play(game, "action D", "score 34th St West")
    assert game.scores == [0, 2]


def test_r19_rulebook_example_1_blue_2x2_yellow_1x2():
    game = started_game(3)
    put_shops(game, plot_of(game, 0, "brown"), "boutique")
    put_skyscrapers(game, BLUE, plot_of(game, 0, "gray"), 2)
    put_skyscrapers(game, YELLOW, plot_of(game, 0, "violet"), 1)
    assert score_district_0(game) == [2 * 2, 1 * 2, 0]


def test_r19_rulebook_example_2_blue_2x2_yellow_1x3_red_2x3():
    game = started_game(3)
    put_shops(game, plot_of(game, 0, "brown"), "boutique")
    put_shops(game, plot_of(game, 0, "orange"), "boutique", "jeweler")
    put_skyscrapers(game, BLUE, plot_of(game, 0, "gray"), 2)
    put_skyscrapers(game, YELLOW, plot_of(game, 0, "violet"), 1)
    put_skyscrapers(game, RED, plot_of(game, 0, "green"), 2)
    assert score_district_0(game) == [2 * 2, 1 * 3, 2 * 3]


def test_r19_rulebook_example_3_blue_2x5_yellow_1x8():
    game = started_game(3)
    put_shops(game, plot_of(game, 0, "brown"), "boutique", "jeweler")
    put_shops(game, plot_of(game, 0, "orange"), "gallery", "perfume")
    put_shops(game, plot_of(game, 0, "green"), "gallery")
    put_skyscrapers(game, BLUE, plot_of(game, 0, "gray"), 2)
    put_skyscrapers(game, YELLOW, plot_of(game, 0, "violet"), 1)
    assert score_district_0(game) == [2 * 5, 1 * 8, 0]


def test_r19_six_plot_board_the_shop_plot_is_a_neighbour():
    game = started_game(4, board=6)
    put_shops(game, plot_of(game, 0, None), "boutique", "jeweler")  # between green and gray
    put_shops(game, plot_of(game, 0, "brown"), "gallery")
    put_skyscrapers(game, 0, plot_of(game, 0, "gray"), 1)
    put_skyscrapers(game, 1, plot_of(game, 0, "green"), 1)
    assert score_district_0(game) == [5, 3, 0, 0]  # gray: B, J + G; green: B, J
