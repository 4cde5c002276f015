"""Building stops (R24, R33) and the rulebook's example (Red declares: Red 4, Yellow 5/2, Blue 6/2).

34th St West's default ring is gray, brown, violet, orange, green (positions 0-4).
"""

from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION, GAME_OVER
from rules_helpers import (
    BEIGE, CENTRAL_PARK, auction_round, legal_names, play, plot_of, put_shops, put_skyscrapers, set_hand,
    start_move, start_turn, started_game)

RED, YELLOW, BLUE = 0, 1, 2


def example_district(game):
    """The full district of the example: Red 1 (gray), Yellow 1 (violet, 3 types), Blue 2 (green, 2 types)."""
    put_skyscrapers(game, RED, plot_of(game, 0, "gray"), 1)
    put_shops(game, plot_of(game, 0, "brown"), "boutique")
    put_skyscrapers(game, YELLOW, plot_of(game, 0, "violet"), 1)
    put_shops(game, plot_of(game, 0, "orange"), "gallery", "perfume")
    put_skyscrapers(game, BLUE, plot_of(game, 0, "green"), 2)
    for p in range(3):
        set_hand(game, p, "gray 4", "violet 4", "green 4", "black 4")


def test_r24_rulebook_example_red_declares_red_4_yellow_2_blue_3():
    game = started_game(3)
    example_district(game)
    game.markers[BEIGE][0] = True  # the other commissioner's marker is there too
    auction_round(game, RED, [0], other_at=0)  # and the beige commissioner stands there
    assert game.auc_full
    play(game, "bid gray 4", "confirm bid", "pass", "pass")
    assert game.decision == BUILD_DECISION and game.actor == RED
    assert legal_names(game) == {"build 0", "build 1", "build 2", "build 3", "declare building stop"}
    play(game, "declare building stop")
    assert game.scores == [4, 5 // 2, 6 // 2]
    # everything there leaves the game; the district is closed for good
    assert all(game.plot_height[p] == 0 and game.plot_shops[p] == [] for p in range(6))
    assert game.removed_skyscrapers[:3] == [1, 1, 2] and game.removed_shops == 3
    assert game.supply == [12, 12, 12] and game.reserve == [3, 3, 3]  # removed ones never come back (R3)
    assert [game.owned[p][0] for p in range(3)] == [-1, -1, -1]
    assert game.closed[0] and game.stops == 1
    assert not game.markers[BEIGE][0] and not game.markers[0][0]  # markers back to City Hall
    assert game.comm_pos[BEIGE] == 0  # the commissioner stays until moved
    assert game.decision == BID_DECISION and game.auc_loc == CENTRAL_PARK  # the round goes on


def test_r24_winner_with_a_plot_may_build_instead():
    game = started_game(3)
    example_district(game)
    auction_round(game, BLUE, [0])
    play(game, "bid green 4", "bid black 4", "confirm bid", "pass", "pass")
    play(game, "build 2")
    assert game.plot_height[plot_of(game, 0, "green")] == 4 and not game.closed[0]
    assert game.scores == [0, 0, 0] and game.stops == 0


def test_r24_winner_without_a_plot_must_declare_and_the_declarer_scores_one_per_skyscraper():
    game = started_game(4)
    example_district(game)
    set_hand(game, 3, "brown 6")
    auction_round(game, 3, [0])
    assert legal_names(game) == {"bid brown 6", "pass"}  # brown holds shops only
    play(game, "bid brown 6", "confirm bid", "pass", "pass", "pass")
    assert legal_names(game) == {"declare building stop"}
    play(game, "declare building stop")
    assert game.scores == [2 // 2, 5 // 2, 6 // 2, 4]  # Red's gray skyscraper would score 2 (boutique)


def test_r24_second_stop_ends_the_game_after_scoring_no_further_auction():
    game = started_game(3)
    example_district(game)
    game.stops = 1
    game.closed[6] = True
    game.closed_mask = 1 << 6
    put_skyscrapers(game, YELLOW, plot_of(game, 3, "gray"), 2)  # open district: final scoring 2
    game.cp_skyscrapers[BLUE] = 1
    game.box = []
    auction_round(game, RED, [0, 3])
    play(game, "bid gray 4", "confirm bid", "pass", "pass", "declare building stop")
    assert game.decision == GAME_OVER and game.terminated and game.stops == 2
    assert game.auc_loc == -1  # Times Square and Central Park are not auctioned
    # stop [4, 2, 3], then final scoring: Yellow's 2 lone skyscrapers, Blue's Central Park one
    # with an empty box (1 VP, R27)
    assert game.scores == [4, 2 + 2, 3 + 1]
    assert game.winners == [YELLOW, BLUE]  # a three-way tie on 4 VP; Red paid a card (R28)


def test_r24_no_building_stop_in_central_park():
    game = started_game(3)
    for p in range(3):
        set_hand(game, p, "gray 4")
    auction_round(game, 0, [])
    play(game, "bid gray 4", "confirm bid", "pass", "pass")
    assert "declare building stop" not in legal_names(game)


def test_r24_closed_district_is_never_visited_scored_or_built_again():
    game = started_game(3)
    example_district(game)
    auction_round(game, RED, [0])
    play(game, "bid gray 4", "confirm bid", "pass", "pass", "declare building stop", "pass", "pass", "pass")
    start_move(game, 1)
    assert "move white -> 34th St West" not in legal_names(game)
    assert "move white -> 42nd St West" in legal_names(game)  # jumped (R6)
    game.comm_pos[BEIGE] = 0
    game.touch()
    start_turn(game, 1)
    assert "action D" not in legal_names(game)
    play(game, "action B")
    play(game, sorted(legal_names(game))[0])
    assert not any(n.startswith("place shop on 34th St West") for n in legal_names(game))


def test_r33_district_of_shops_only_every_color_and_a_stop_that_scores_nobody():
    game = started_game(3)
    for color in ("gray", "brown", "violet", "orange", "green"):
        put_shops(game, plot_of(game, 0, color), "jeweler")
    put_skyscrapers(game, 1, plot_of(game, 1, "gray"), 3)
    for p in range(3):
        set_hand(game, p, "gray 4", "brown 4", "violet 4", "orange 4", "green 4")
    auction_round(game, 0, [0])
    assert {n for n in legal_names(game) if n.startswith("bid")} == {
        "bid gray 4", "bid brown 4", "bid violet 4", "bid orange 4", "bid green 4"}
    play(game, "bid orange 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"declare building stop"}
    play(game, "declare building stop")
    assert game.scores == [0, 0, 0] and game.closed[0] and game.stops == 1 and game.removed_shops == 5
