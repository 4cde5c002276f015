"""Two players and Alea: Alea's bid (R25), Alea building or stopping (R26), and the 2-player specials.

34th St West's default ring is gray, brown, violet, orange, green (positions 0-4).
"""

import itertools

from fifthave_env.engine import auction
from fifthave_env.engine.auction import ALEA
from fifthave_env.engine.cards import FACE_UP, SEEN_FACE_DOWN
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION, CHOOSE_ACTION_DECISION, GAME_OVER
from rules_helpers import (
    CENTRAL_PARK, auction_round, hand_of, legal_names, play, plot_of, put_shops, put_skyscrapers, set_hand,
    stack_black, started_game)

HAND = ("gray 4", "brown 4", "violet 4", "orange 4", "green 4", "black 4", "black 5", "black 6")


def two_player_game(*black_values):
    game = started_game(2)
    for p in range(2):
        set_hand(game, p, *HAND)
    stack_black(game, *black_values)
    return game


def alea_draw_sequences():
    """Every sequence Alea can draw: distinct values, then one that repeats."""
    for length in (1, 2, 3):
        for prefix in itertools.permutations((4, 5, 6), length):
            for repeat in prefix:
                yield prefix + (repeat,)


def test_r25_alea_bid_range_by_enumeration_of_every_draw():
    totals = set()
    for sequence in alea_draw_sequences():
        game = two_player_game(*sequence, 4, 5, 6)  # more cards below: Alea must stop at the repeat
        auction_round(game, 0, [])
        auction.alea_bids(game)
        assert [4 + v for v in game.auc_alea_cards] == list(sequence)
        assert game.auc_high == sum(sequence) and game.auc_high_bidder == ALEA
        totals.add(sum(sequence))
    assert min(totals) == 8 == 4 + 4 and max(totals) == 21 == 4 + 5 + 6 + 6
    assert totals == {8, 10, 12, 13, 14, 16, 17, 19, 20, 21}


def test_r25_alea_bids_after_both_players_first_turn_and_wins_if_nobody_beats_it():
    game = two_player_game(4, 5, 4)  # Alea: 13
    put_shops(game, plot_of(game, 0, "brown"), "boutique", "jeweler")
    auction_round(game, 0, [0])
    play(game, "bid gray 4", "confirm bid")  # seat 0: 4
    assert game.auc_alea_state == auction.ALEA_NOT_YET and game.actor == 1
    play(game, "pass")  # seat 1's first chance; now Alea draws
    assert game.auc_high == 13 and game.auc_high_bidder == ALEA
    assert game.decision == BID_DECISION and game.actor == 0  # seat 0 must beat 13 or pass
    play(game, "pass")
    # Alea won: gray and violet (beside the two shops) are the most valuable empty plots
    assert [game.plot_owner[plot_of(game, 0, c)] for c in ("gray", "brown", "violet", "orange", "green")] == [
        ALEA, -1, ALEA, -1, -1]
    assert game.alea_supply == 18 - 2
    # Alea's 4, 5, 4 went face down (seen) under the pile, which they drew empty
    assert game.black == [0 + 3 * SEEN_FACE_DOWN, 1 + 3 * SEEN_FACE_DOWN, 0 + 3 * SEEN_FACE_DOWN]
    assert hand_of(game, 0) == sorted(HAND) and hand_of(game, 1) == sorted(HAND)  # nobody paid
    assert game.decision == BID_DECISION and game.auc_loc == CENTRAL_PARK


def test_r25_alea_cards_go_face_down_under_everything():
    game = two_player_game(6, 6, 5)
    auction_round(game, 0, [])  # Central Park
    play(game, "bid gray 4", "bid black 6", "confirm bid")  # 10
    play(game, "bid gray 4", "bid black 4", "bid black 5", "confirm bid")  # seat 1: 13; Alea: 12, out
    assert game.auc_alea_state == auction.ALEA_OUT and game.auc_high_bidder == 1
    play(game, "pass")  # seat 1 wins
    play(game, "build 0")
    # bottom first: Alea's 6, 6 face down (seen), then seat 1's black 5 and 4 face up, then the 5
    assert game.black == [2 + 3 * SEEN_FACE_DOWN, 2 + 3 * SEEN_FACE_DOWN, 1 + 6, 0 + 6, 1]
    assert game.black_seen == [1, 1, 2]


def test_r25_alea_out_when_not_above_the_high_bid():
    game = two_player_game(4, 4)  # Alea: 8
    auction_round(game, 1, [0])
    play(game, "bid green 4", "bid black 5", "confirm bid")  # seat 1: 9
    play(game, "pass")  # seat 0
    assert game.auc_alea_state == auction.ALEA_OUT
    assert game.decision == BUILD_DECISION and game.actor == 1


def test_r25_alea_draw_equal_to_a_confirmed_bid_is_not_above_it_so_alea_is_out():
    game = two_player_game(4, 4)  # Alea: 8, exactly seat 0's confirmed bid
    auction_round(game, 0, [0])
    play(game, "bid green 4", "bid black 4", "confirm bid")  # seat 0: 8
    play(game, "pass")  # seat 1's first chance; now Alea draws 4, 4
    # Alea drew 4, 4 (now face down under everything), seat 0's black 4 went face up under the pile
    assert game.black == [0 + 3 * SEEN_FACE_DOWN, 0 + 3 * SEEN_FACE_DOWN, 0 + 3 * FACE_UP]
    assert game.auc_alea_state == auction.ALEA_OUT  # R25: "not above the highest bid" -> out
    assert game.auc_high == 8 and game.auc_high_bidder == 0
    assert game.decision == BUILD_DECISION and game.actor == 0 and game.auc_winner == 0


def test_r25_alea_wins_when_both_players_pass_before_the_draw():
    game = two_player_game(5, 5)
    auction_round(game, 0, [0])
    play(game, "pass", "pass")
    assert sum(game.plot_owner[p] == ALEA for p in range(5)) == 5  # every empty plot ties (1 VP)
    assert game.decision == BID_DECISION and game.auc_loc == CENTRAL_PARK


def test_r25_real_player_must_beat_alea():
    game = two_player_game(6, 5, 6)  # Alea: 17
    auction_round(game, 0, [0])
    play(game, "bid violet 4", "confirm bid", "bid orange 4", "bid black 5", "confirm bid")  # 4, then 9
    assert game.auc_high == 17 and game.actor == 0
    play(game, "bid black 4", "bid black 5")  # 13: not enough
    assert "confirm bid" not in legal_names(game)
    play(game, "bid black 6", "confirm bid")  # 19 beats Alea
    assert game.auc_alea_state == auction.ALEA_OUT and game.actor == 1
    play(game, "pass")
    assert game.decision == BUILD_DECISION and game.actor == 0
    assert legal_names(game) == {"build 0", "build 1"}  # a 6 among the cards


def test_r25_empty_pile_alea_does_not_bid_and_a_dry_pile_gives_what_was_drawn():
    game = two_player_game()
    auction_round(game, 0, [0])
    play(game, "pass", "pass")
    assert game.auc_loc == CENTRAL_PARK and sum(game.plot_height) == 0  # no winner
    game = two_player_game(4, 6)
    auction_round(game, 0, [0])
    play(game, "bid gray 4", "confirm bid", "pass")
    assert game.auc_high == 10 and game.auc_high_bidder == ALEA


def test_r26_alea_in_central_park_builds_nothing():
    game = two_player_game(4, 4)
    auction_round(game, 0, [])
    play(game, "pass", "pass")
    assert game.decision == CHOOSE_ACTION_DECISION and game.cp_skyscrapers == [0, 0]
    assert game.alea_supply == 18


def test_r26_alea_supply_short_fills_tied_plots_in_ring_order():
    game = two_player_game(5, 5)
    game.alea_supply = 2
    auction_round(game, 0, [0])
    play(game, "pass", "pass")
    assert [game.plot_owner[p] for p in range(5)] == [ALEA, ALEA, -1, -1, -1] and game.alea_supply == 0


def test_r26_alea_full_district_is_a_stop_real_players_score_half():
    game = two_player_game(5, 5)
    put_skyscrapers(game, 0, plot_of(game, 0, "gray"), 2)  # beside brown {B, J} and green: 3 each
    put_shops(game, plot_of(game, 0, "brown"), "boutique", "jeweler")
    put_skyscrapers(game, 1, plot_of(game, 0, "violet"), 1)  # beside brown and orange {G}: 5
    put_shops(game, plot_of(game, 0, "orange"), "gallery")
    put_skyscrapers(game, ALEA, plot_of(game, 0, "green"), 1)
    auction_round(game, 0, [0])
    assert game.auc_full
    play(game, "pass", "pass")
    assert game.scores == [6 // 2, 5 // 2]  # nobody gets 1 VP per skyscraper
    assert game.closed[0] and game.stops == 1 and game.removed_skyscrapers[ALEA] == 1


def test_r26_second_stop_by_alea_ends_the_game():
    game = two_player_game(5, 5)
    game.stops = 1
    for color in ("gray", "brown", "violet", "orange", "green"):
        put_shops(game, plot_of(game, 0, color), "perfume")
    auction_round(game, 0, [0])
    play(game, "pass", "pass")
    assert game.decision == GAME_OVER and game.terminated and game.stops == 2


def test_r26_real_players_may_not_bid_a_plot_alea_holds():
    game = two_player_game()
    put_skyscrapers(game, ALEA, plot_of(game, 0, "gray"), 1)
    put_skyscrapers(game, ALEA, plot_of(game, 0, "brown"), 1)
    auction_round(game, 0, [0])
    assert {n for n in legal_names(game) if n.startswith("bid")} == {"bid violet 4", "bid orange 4", "bid green 4"}


def test_two_player_special_rules_alea_has_no_seat_no_start_no_special_scoring():
    game = started_game(2)
    assert game.n == 2 and game.has_alea and game.alea_supply == 18
    for d in (0, 1, 2):
        put_skyscrapers(game, ALEA, plot_of(game, d, "gray"), 1)
    game.shops_placed = 2
    game.row = [-1, -1, -1, 0, 1] + [2] * 15
    game.touch()
    play(game, "action B", "take boutique", "place shop on 34th St West brown")
    assert game.scores == [0, 0] and len(game.scores) == 2  # Alea never scores (R19)
    assert game.shops_placed == 3


def test_r26_r8_alea_never_builds_on_the_shop_plot():
    game = started_game(2, board=6)
    stack_black(game, 4, 4)
    auction_round(game, 0, [0])
    play(game, "pass", "pass")  # every colored plot is empty and worth 1 VP: Alea takes all five
    assert [game.plot_owner[p] for p in range(6)] == [ALEA] * 5 + [-1]
    assert game.alea_supply == 13
