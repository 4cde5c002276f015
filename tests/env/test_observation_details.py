"""Observation fields a mutation run found unchecked: the turn progress and the known cards below a pile's top."""

from fifthave_env.observation import Observer, views
from rules_helpers import stack_pile, started_game

GRAY = 0


def observed(game, seat=0):
    return views(Observer(game.config).observe(game, seat))


def test_progress_is_the_turn_over_the_configured_max_turns():
    game = started_game(3, max_turns=40)
    game.turn = 10
    game.touch()
    assert observed(game)["progress"][0] == 10 / 40


def test_known_cards_below_the_top_leave_out_the_top_even_when_every_card_is_known():
    game = started_game(3)
    stack_pile(game, "gray", 5, 4)  # 5 on top, then 4
    game.pile_known[GRAY] = 2  # both went under face up (R16, R31); only the 4 lies below the top
    game.touch()
    part = observed(game)
    assert part["pile_top"][GRAY].tolist() == [0, 1, 0]
    assert part["pile_known_below"][GRAY].tolist() == [1, 0, 0]
