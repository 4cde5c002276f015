"""Commissioners: routes and jumps over closed districts (R6), markers (R18), starting auctions (R20)."""

import pytest

from fifthave_env.engine.game import BID_DECISION, CHOOSE_ACTION_DECISION, DRAW_COLOR_DECISION, MOVE_DECISION
from rules_helpers import BEIGE, CENTRAL_PARK, CITY_HALL, WHITE, legal_names, play, start_move, started_game

NAMES = ("34th St West", "34th St East", "42nd St West", "Times Square", "42nd St East",
         "52nd St West", "52nd St East", "Central Park", "City Hall")


def white_destinations(game):
    return {name.split(" -> ")[1] for name in legal_names(game) if name.startswith("move white")}


def close(game, *districts):
    for d in districts:
        game.closed[d] = True
        game.closed_mask |= 1 << d
    game.touch()


def at_move(white_at, closed=(), num_players=3):
    game = started_game(num_players)
    close(game, *closed)
    game.comm_pos = [white_at, CITY_HALL]
    start_move(game, 0)
    return game


@pytest.mark.parametrize("start, expected", [
    (CITY_HALL, {0, 1}), (0, {2, 3}), (1, {3, 4}), (2, {5}), (3, {5, 6}), (4, {6}),
    (5, {CENTRAL_PARK}), (6, {CENTRAL_PARK}), (CENTRAL_PARK, {CITY_HALL}),
])
def test_r6_commissioner_routes(start, expected):
    assert white_destinations(at_move(start)) == {NAMES[d] for d in expected}


@pytest.mark.parametrize("start, closed, expected", [
    (3, (6,), {5, CENTRAL_PARK}),  # closed 6: from Times Square straight to Central Park
    (0, (3,), {2, 5, 6}),  # closed Times Square: its successors instead
    (1, (3,), {4, 5, 6}),
    (CITY_HALL, (0, 1), {2, 3, 4}),  # both first-column districts closed
    (0, (3, 5), {2, 6, CENTRAL_PARK}),  # jumps applied again: 3 -> 5 (closed) -> Central Park
    (2, (5,), {CENTRAL_PARK}),
    (4, (6,), {CENTRAL_PARK}),
    (6, (6,), {CENTRAL_PARK}),  # a commissioner standing in a closed district moves on as usual
])
def test_r6_closed_districts_are_jumped(start, closed, expected):
    assert white_destinations(at_move(start, closed)) == {NAMES[d] for d in expected}


def test_r6_a_trip_can_take_fewer_than_four_moves():
    game = at_move(CITY_HALL, closed=(3,))
    play(game, "move white -> 34th St West")
    start_move(game, 0)
    play(game, "move white -> 52nd St East")
    start_move(game, 0)
    assert white_destinations(game) == {"Central Park"}


def test_r6_every_move_decision_offers_both_commissioners_independently():
    game = at_move(3)
    game.comm_pos[BEIGE] = 3  # both in the same district: allowed
    game.touch()
    names = legal_names(game)
    assert names == {"move white -> 52nd St West", "move white -> 52nd St East",
                     "move beige -> 52nd St West", "move beige -> 52nd St East"}


def test_r18_leaving_an_open_district_leaves_a_marker():
    """R18: a marker of the commissioner's color where it left an open district."""
    game = at_move(0)
    play(game, "move white -> Times Square")
    assert game.markers[WHITE] == [True] + [False] * 6
    assert game.markers[BEIGE] == [False] * 7


def test_r18_leaving_city_hall_central_park_or_a_closed_district_leaves_none():
    """R18: no marker when leaving City Hall, Central Park or a closed district."""
    game = at_move(CITY_HALL)
    play(game, "move white -> 34th St West")
    assert not any(game.markers[WHITE])
    game = at_move(6, closed=(6,))
    play(game, "move white -> Central Park")
    assert not any(game.markers[WHITE])


def pass_everyone(game):
    """Every bidder passes in the open auction; returns the auction's location."""
    loc = game.auc_loc
    while game.decision == BID_DECISION and game.auc_loc == loc:
        play(game, "pass")
    return loc


def test_r20_auctions_in_column_order_then_central_park_markers_return():
    game = started_game(3)
    game.comm_pos = [CENTRAL_PARK, 3]
    game.markers[WHITE] = [False, True, False, True, False, False, True]
    game.markers[BEIGE] = [False, True, False, False, False, False, False]
    start_move(game, 1)
    play(game, "move white -> City Hall")
    order = []
    while game.decision == BID_DECISION:
        assert game.actor == 1  # R21: each auction opens with the player who moved the commissioner
        order.append(game.auc_loc)
        markers_before = sum(game.markers[WHITE])
        pass_everyone(game)
        if order[-1] != CENTRAL_PARK:  # this district's marker went back to City Hall
            assert sum(game.markers[WHITE]) == markers_before - 1 and not game.markers[WHITE][order[-1]]
    assert order == [1, 3, 6, CENTRAL_PARK]
    assert game.markers[WHITE] == [False] * 7
    assert game.markers[BEIGE] == [False, True, False, False, False, False, False]  # the other one's stay
    assert game.comm_pos == [CITY_HALL, 3]
    assert game.decision == CHOOSE_ACTION_DECISION and game.actor == 2  # phase 3: the turn ended


def test_r20_marker_in_closed_district_gives_no_auction():
    game = started_game(3)
    game.comm_pos = [CENTRAL_PARK, CITY_HALL]
    game.markers[WHITE] = [True, False, False, False, False, False, False]
    close(game, 0)
    start_move(game, 0)
    play(game, "move white -> City Hall")
    assert game.auc_loc == CENTRAL_PARK


def test_r20_action_c_auctions_interrupt_phase_one_then_phases_two_and_three_follow():
    game = started_game(3)
    game.comm_pos = [CENTRAL_PARK, CENTRAL_PARK]
    game.markers[WHITE][2] = True
    game.markers[BEIGE][4] = True
    game.touch()
    play(game, "action C", "move white -> City Hall")
    assert game.decision == BID_DECISION and game.auc_loc == 2
    pass_everyone(game)
    pass_everyone(game)  # Central Park
    assert game.decision == DRAW_COLOR_DECISION and game.actor == 0  # phase 2 of the same turn
    play(game, "draw gray", "draw brown")
    assert game.decision == MOVE_DECISION and game.final_move
    play(game, "move beige -> City Hall")  # phase 3 triggers a second set of auctions
    assert game.decision == BID_DECISION and game.auc_loc == 4
    pass_everyone(game)
    pass_everyone(game)
    assert game.decision == CHOOSE_ACTION_DECISION and game.actor == 1 and game.turn == 1


def test_r18_a_full_trip_leaves_one_marker_per_district_left_and_none_in_jumped_ones():
    """R18 (with R4, R6): a trip City Hall -> 0 -> 3 -> 6 -> Central Park leaves white markers in
    0, 3 and 6 (three, one per column), next to beige's; a jump over closed Times Square
    (0 -> 5) marks only the district left, never the one jumped."""
    game = at_move(CITY_HALL)
    game.markers[BEIGE][3] = True
    game.touch()
    for dest in ("34th St West", "Times Square", "52nd St East", "Central Park"):
        start_move(game, 0)
        play(game, f"move white -> {dest}")
    assert game.markers[WHITE] == [True, False, False, True, False, False, True]
    assert game.markers[BEIGE] == [False, False, False, True, False, False, False]
    game = at_move(0, closed=(3,))
    play(game, "move white -> 52nd St West")
    assert game.markers[WHITE] == [True] + [False] * 6
    start_move(game, 0)
    play(game, "move white -> Central Park")
    assert game.markers[WHITE] == [True, False, False, False, False, True, False]


def test_r18_moving_the_beige_commissioner_leaves_a_beige_marker():
    """R18: the marker has the color of the commissioner that left."""
    game = at_move(CITY_HALL)
    game.comm_pos[BEIGE] = 4
    game.touch()
    play(game, "move beige -> 52nd St East")
    assert game.markers[BEIGE] == [False, False, False, False, True, False, False]
    assert game.markers[WHITE] == [False] * 7
