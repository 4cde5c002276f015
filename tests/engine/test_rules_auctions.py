"""Auctions for 3-4 players: bidding (R21, R34, R35), allowed colors (R22, R36, R37), the result (R23).

Most scenarios run one auction in 34th St West (default ring: gray, brown,
violet, orange, green) started by seat 0, followed by the Central Park auction.
"""

from fifthave_env.engine.cards import FACE_UP
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION, CHOOSE_ACTION_DECISION
from rules_helpers import (
    CENTRAL_PARK, auction_round, hand_of, legal_names, play, plot_of, put_shops, put_skyscrapers, set_hand,
    started_game)

ALL_HAND = ("gray 4", "brown 4", "violet 4", "orange 4", "green 4", "black 4", "black 5")


def bids(game):
    """The card names the asked seat may lay now."""
    return {name[4:] for name in legal_names(game) if name.startswith("bid ")}


def district_0_auction(num_players=3, board=5, **hands):
    """A game past setup where every seat holds ALL_HAND unless ``hands`` (``seat0=("gray 4",)``)
    says otherwise; :func:`go` then starts the auctions."""
    game = started_game(num_players, board=board)
    for p in range(num_players):
        set_hand(game, p, *hands.get(f"seat{p}", ALL_HAND))
    return game


def go(game, districts=(0,), mover=0):
    """Seat ``mover`` brings the white commissioner home after visiting ``districts``."""
    auction_round(game, mover, list(districts))
    return game


def test_r21_bidding_starts_with_the_mover_and_goes_clockwise_skipping_passed_players():
    game = go(district_0_auction(4), mover=2)
    asked = []
    asked.append(game.actor)
    play(game, "bid gray 4", "confirm bid")
    asked.append(game.actor)
    play(game, "pass")
    asked.append(game.actor)
    play(game, "bid brown 4", "bid black 4", "confirm bid")
    asked.append(game.actor)
    play(game, "bid violet 4", "bid black 5", "confirm bid")
    asked.append(game.actor)  # seat 2 again; seat 3 passed and is skipped
    assert asked == [2, 3, 0, 1, 2]


def test_r21_first_card_colored_then_own_color_or_black_only():
    game = go(district_0_auction())
    assert bids(game) == {"gray 4", "brown 4", "violet 4", "orange 4", "green 4"}  # no black first
    play(game, "bid orange 4")
    assert bids(game) == {"black 4", "black 5"}  # orange fixed; no other orange card in hand


def test_r21_confirm_only_strictly_above_the_high_bid():
    game = go(district_0_auction(seat1=("gray 4", "black 4", "black 5")))
    play(game, "bid gray 4", "confirm bid")  # seat 0: 4
    play(game, "bid gray 4")
    assert "confirm bid" not in legal_names(game)  # 4 is not above 4
    play(game, "bid black 4")
    assert "confirm bid" in legal_names(game)
    play(game, "confirm bid")
    assert game.auc_high == 8 and game.auc_high_bidder == 1


def test_r21_passing_returns_the_cards_and_is_for_good():
    game = go(district_0_auction())
    play(game, "bid gray 4", "bid black 5", "confirm bid")  # seat 0: 9
    play(game, "pass")  # seat 1
    play(game, "bid brown 4", "bid black 4", "bid black 5", "confirm bid")  # seat 2: 13
    assert game.actor == 0  # seat 1 is skipped
    play(game, "pass")
    assert hand_of(game, 0) == sorted(ALL_HAND)  # every card laid comes back
    assert game.decision == BUILD_DECISION and game.actor == 2  # seat 2 alone, holding the high bid


def test_r21_without_a_legal_colored_card_a_player_can_only_pass():
    game = go(district_0_auction(seat0=("black 4", "black 6")))
    assert legal_names(game) == {"pass"}


def test_r21_a_player_without_reserve_may_bid_and_builds_nothing():
    game = district_0_auction()
    game.reserve[0] = 0
    go(game)
    play(game, "bid gray 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"build 0"}


def test_r22_owner_may_only_bid_the_color_of_their_plot():
    """R22 (1): a player with skyscrapers in the district may open only with their plot's color."""
    game = district_0_auction()
    put_skyscrapers(game, 0, plot_of(game, 0, "violet"), 1)
    go(game)
    assert bids(game) == {"violet 4"}
    play(game, "pass")
    assert bids(game) == {"gray 4", "brown 4", "orange 4", "green 4"}  # seat 1: the empty plots


def test_r22_empty_plots_colors_and_several_players_may_share_one():
    """R22 (2): any empty plot's color, shared by several players; shop plots excluded while
    an empty plot exists."""
    game = district_0_auction()
    put_shops(game, plot_of(game, 0, "brown"), "gallery")
    put_skyscrapers(game, 2, plot_of(game, 0, "gray"), 1)
    go(game)
    assert bids(game) == {"violet 4", "orange 4", "green 4"}
    play(game, "bid green 4", "confirm bid")
    assert bids(game) == {"violet 4", "orange 4", "green 4"}  # green is still open to seat 1
    play(game, "bid green 4", "bid black 4", "confirm bid")
    assert bids(game) == {"gray 4"}  # seat 2 owns the gray plot


def test_r22_full_district_shop_plots_only_never_a_skyscraper_plot():
    """R22 (3), R37: full district: the colors of plots with shops and no skyscrapers."""
    game = district_0_auction()
    put_skyscrapers(game, 1, plot_of(game, 0, "gray"), 1)
    put_skyscrapers(game, 2, plot_of(game, 0, "brown"), 1)
    put_shops(game, plot_of(game, 0, "violet"), "gallery")
    put_shops(game, plot_of(game, 0, "orange"), "gallery", "perfume")
    put_shops(game, plot_of(game, 0, "green"), "boutique")
    go(game)
    assert game.auc_full
    assert bids(game) == {"violet 4", "orange 4", "green 4"}


def test_r22_central_park_first_bidder_picks_any_color_then_everyone_follows():
    """R22: Central Park: any color first, then everyone bids that color."""
    game = go(district_0_auction(), districts=())
    assert game.auc_loc == CENTRAL_PARK
    assert bids(game) == {"gray 4", "brown 4", "violet 4", "orange 4", "green 4"}
    play(game, "bid green 4", "confirm bid")
    assert bids(game) == {"green 4"}


def test_r36_central_park_color_fixed_by_first_confirmed_bid_even_if_that_bidder_passes():
    game = go(district_0_auction(), districts=())
    play(game, "bid violet 4", "pass")  # laid and withdrawn before any confirmed bid: fixes nothing
    assert bids(game) == {"gray 4", "brown 4", "violet 4", "orange 4", "green 4"}
    play(game, "bid orange 4", "confirm bid")  # seat 1 fixes orange
    play(game, "bid orange 4", "bid black 4", "confirm bid")  # seat 2
    play(game, "pass")  # seat 1 leaves; orange stays the color
    assert game.decision == BUILD_DECISION and game.actor == 2
    game2 = go(district_0_auction(4), districts=())
    play(game2, "bid orange 4", "confirm bid", "pass")  # seat 0 fixes orange, seat 1 passes
    play(game2, "bid orange 4", "bid black 4", "confirm bid")  # seat 2: 8
    play(game2, "pass")  # seat 3
    play(game2, "pass")  # seat 0, who fixed the color, leaves
    assert game2.decision == BUILD_DECISION and game2.auc_cp_color == 3


def test_r23_auction_without_any_bid_has_no_winner_and_changes_nothing():
    game = go(district_0_auction())
    hands = [h[:] for h in game.hands]
    play(game, "pass", "pass", "pass")
    assert game.decision == BID_DECISION and game.auc_loc == CENTRAL_PARK
    assert game.hands == hands and sum(game.plot_height) == 0


def test_r23_winner_pays_and_builds_up_to_the_card_limit_on_the_plot_of_their_color():
    game = go(district_0_auction(seat0=("gray 4", "gray 4", "black 4", "black 4")))
    # rulebook: 2 gray 4 + 2 black 4 -> up to 3 skyscrapers on the gray plot
    play(game, "bid gray 4", "bid gray 4", "bid black 4", "bid black 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"build 0", "build 1", "build 2", "build 3"}
    assert hand_of(game, 0) == []  # paid
    play(game, "build 3")
    gray = plot_of(game, 0, "gray")
    assert game.plot_owner[gray] == 0 and game.plot_height[gray] == 3 and game.owned[0][0] == gray
    assert game.reserve[0] == 0
    assert game.decision == BID_DECISION and game.auc_loc == CENTRAL_PARK


def test_r39_paid_cards_go_under_their_piles_in_kind_order_whatever_the_order_laid():
    """R39 (with R16): per color the 4s go under first, then the 5s, then the 6s, so the 6s end
    up lowest; black cards the same under the black pile, face up."""
    game = district_0_auction(seat0=("gray 6", "gray 4", "gray 5", "black 6", "black 4"))
    gray_before, black_before = game.piles[0][:], game.black[:]
    known_before = game.pile_known[0]
    go(game)
    play(game, "bid gray 6", "bid black 6", "bid gray 5", "bid black 4", "bid gray 4", "confirm bid",
         "pass", "pass")
    assert game.decision == BUILD_DECISION and game.actor == 0
    face_up = 3 * FACE_UP
    assert game.piles[0] == [2, 1, 0] + gray_before  # bottom first: 6, 5, 4, then the old pile
    assert game.pile_known[0] == known_before + 3
    assert game.black == [2 + face_up, 0 + face_up] + black_before  # black 6 below black 4


def test_r23_rulebook_limit_example_one_six_limits_to_one():
    hand = ("violet 4", "violet 4", "black 5", "black 6", "black 6")
    game = go(district_0_auction(seat0=hand))
    play(game, *(f"bid {c}" for c in hand), "confirm bid", "pass", "pass")
    assert legal_names(game) == {"build 0", "build 1"}


def test_r23_build_limited_by_reserve():
    game = district_0_auction()
    game.reserve[0] = 2
    go(game)
    play(game, "bid gray 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"build 0", "build 1", "build 2"}


def test_r23_building_zero_claims_no_plot():
    game = go(district_0_auction())
    play(game, "bid gray 4", "confirm bid", "pass", "pass", "build 0")
    assert game.owned[0][0] == -1 and sum(game.plot_height) == 0
    play(game, "pass", "pass", "pass")  # Central Park
    assert game.decision == CHOOSE_ACTION_DECISION


def test_r23_central_park_winner_builds_there():
    game = go(district_0_auction(seat1=("brown 5", "black 5")), districts=())
    play(game, "pass", "bid brown 5", "bid black 5", "confirm bid", "pass")
    assert legal_names(game) == {"build 0", "build 1", "build 2"}  # no stop in Central Park
    play(game, "build 2")
    assert game.cp_skyscrapers == [0, 2, 0] and game.reserve[1] == 1


def test_r34_r35_bid_card_by_card_then_confirm_pass_any_time_returns_all():
    """R34, R35: cards laid one at a time, no card taken back singly, pass returns them all."""
    game = go(district_0_auction(seat1=("gray 4", "black 4", "black 5")))
    play(game, "bid brown 4", "confirm bid")  # seat 0: 4
    play(game, "bid gray 4", "bid black 4")  # seat 1 lays two cards, not yet confirmed
    assert game.auc_total[1] == 8 and hand_of(game, 1) == ["black 5"]
    assert legal_names(game) == {"bid black 5", "confirm bid", "pass"}  # no card is taken back
    play(game, "pass")
    assert hand_of(game, 1) == ["black 4", "black 5", "gray 4"] and game.auc_total[1] == 0
    assert game.known[1][0] == 1 and game.known[1][15] == 1  # shown on the table (R31)


def test_r37_six_plot_board_shop_plot_never_counts_as_empty():
    """R37: the colorless shop plot is not an empty plot: the district is full."""
    game = district_0_auction(board=6)
    for color, seat in (("gray", 1), ("brown", 2)):
        put_skyscrapers(game, seat, plot_of(game, 0, color), 1)
    for color in ("violet", "orange", "green"):
        put_shops(game, plot_of(game, 0, color), "gallery")
    put_shops(game, plot_of(game, 0, None), "boutique")  # room for a shop, but not a plot to bid on
    go(game)
    assert game.auc_full
    assert bids(game) == {"violet 4", "orange 4", "green 4"}
    play(game, "bid violet 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"declare building stop"}  # no plot of seat 0 there (R24)


def test_r22_owner_in_a_full_district_still_bids_only_their_own_color():
    """R22 (1) before (3): in a full district a player with a plot there opens only with that
    plot's color, not with a shop plot's; as a winner with a plot they may build or stop (R24)."""
    game = district_0_auction(seat0=("gray 4", "violet 4", "black 4"))
    put_skyscrapers(game, 0, plot_of(game, 0, "gray"), 1)
    put_skyscrapers(game, 1, plot_of(game, 0, "brown"), 1)
    for color in ("violet", "orange", "green"):
        put_shops(game, plot_of(game, 0, color), "gallery")
    go(game)
    assert game.auc_full
    assert bids(game) == {"gray 4"}
    play(game, "bid gray 4", "confirm bid")
    assert bids(game) == {"brown 4"}  # seat 1: its own plot too
    play(game, "pass")
    assert bids(game) == {"violet 4", "orange 4", "green 4"}  # seat 2 has no plot there
    play(game, "pass")
    assert legal_names(game) == {"build 0", "build 1", "build 2", "build 3", "declare building stop"}


def test_r22_central_park_open_to_every_color_after_a_district_auction_of_the_same_round():
    """R22: a plot won in 34th St West restricts nothing in Central Park: seat 0 builds on gray
    there, then in the same round's Central Park auction every color is open again."""
    game = go(district_0_auction(seat0=("gray 4", "brown 4", "black 4")))
    assert bids(game) == {"gray 4", "brown 4"}
    play(game, "bid gray 4", "confirm bid", "pass", "pass", "build 1")
    assert game.auc_loc == CENTRAL_PARK and game.actor == 0
    assert bids(game) == {"brown 4"}  # any color (the gray 4 was paid)
    play(game, "pass")
    assert bids(game) == {"gray 4", "brown 4", "violet 4", "orange 4", "green 4"}


def test_r34_the_first_card_binds_the_color_and_any_order_of_color_and_black_is_reachable():
    """R34: the opening card is colored and binds the bid: gray 4, then black 4, then gray 5 is
    laid card by card (13), and no other color is offered once gray is down."""
    game = go(district_0_auction(seat0=("gray 4", "gray 5", "brown 4", "black 4")))
    assert bids(game) == {"gray 4", "gray 5", "brown 4"}  # no black first
    play(game, "bid gray 4")
    assert bids(game) == {"gray 5", "black 4"}  # no brown now
    play(game, "bid black 4")
    assert bids(game) == {"gray 5"}
    play(game, "bid gray 5", "confirm bid")
    assert game.auc_high == 13 and hand_of(game, 0) == ["brown 4"]


def test_r35_later_turn_adds_to_the_cards_on_the_table_and_pass_returns_them_all():
    """R35: a bidder's confirmed cards stay on the table; in a later turn they add to them (no
    taking back), confirm needs a total strictly above the high bid, and passing returns every
    card this auction, the confirmed ones included."""
    game = go(district_0_auction(seat0=("gray 4", "black 4", "black 5"), seat1=("brown 4", "black 5"),
                                 seat2=("violet 4", "black 4")))
    play(game, "bid gray 4", "confirm bid")  # seat 0: 4
    play(game, "bid brown 4", "bid black 5", "confirm bid")  # seat 1: 9
    play(game, "pass")  # seat 2
    assert game.actor == 0 and game.auc_total[0] == 4 and hand_of(game, 0) == ["black 4", "black 5"]
    assert legal_names(game) == {"bid black 4", "bid black 5", "pass"}  # 4 is not above 9; nothing to withdraw
    play(game, "bid black 4")
    assert game.auc_total[0] == 8 and "confirm bid" not in legal_names(game)  # 8 is not above 9
    play(game, "bid black 5")
    assert game.auc_total[0] == 13 and "confirm bid" in legal_names(game)
    play(game, "confirm bid")  # seat 1's turn: its 9 stays on the table
    assert game.actor == 1 and game.auc_total[1] == 9 and hand_of(game, 1) == []
    assert legal_names(game) == {"pass"}
    play(game, "pass")
    assert hand_of(game, 1) == ["black 5", "brown 4"]  # both cards, confirmed earlier, come back
    assert game.decision == BUILD_DECISION and game.actor == 0


def test_r35_pass_before_laying_any_card_is_legal():
    """R35: pass at any moment of the turn, also before the first card."""
    game = go(district_0_auction())
    assert "pass" in legal_names(game) and "confirm bid" not in legal_names(game)
    play(game, "pass")
    assert game.auc_passed[0] and hand_of(game, 0) == sorted(ALL_HAND)


def test_r37_five_plot_board_one_empty_plot_is_not_full_none_is():
    """R37: one empty colored plot left: not full (only that color, and no stop); all five taken
    by shops or skyscrapers: full."""
    game = district_0_auction()
    put_skyscrapers(game, 1, plot_of(game, 0, "gray"), 1)
    for color in ("brown", "violet", "orange"):
        put_shops(game, plot_of(game, 0, color), "gallery")
    go(game)
    assert not game.auc_full and bids(game) == {"green 4"}
    play(game, "bid green 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"build 0", "build 1", "build 2", "build 3"}  # no stop
    game = district_0_auction()
    put_skyscrapers(game, 1, plot_of(game, 0, "gray"), 1)
    for color in ("brown", "violet", "orange", "green"):
        put_shops(game, plot_of(game, 0, color), "gallery")
    go(game)
    assert game.auc_full and bids(game) == {"brown 4", "violet 4", "orange 4", "green 4"}


def test_r37_six_plot_board_empty_shop_plot_does_not_make_a_district_unfull():
    """R37: with every colored plot taken and the shop plot *empty*, the district is still full:
    the shop plot is never an empty plot to bid on."""
    game = district_0_auction(board=6)
    put_skyscrapers(game, 1, plot_of(game, 0, "gray"), 1)
    for color in ("brown", "violet", "orange", "green"):
        put_shops(game, plot_of(game, 0, color), "gallery")
    assert game.plot_shops[plot_of(game, 0, None)] == []
    go(game)
    assert game.auc_full
    assert bids(game) == {"brown 4", "violet 4", "orange 4", "green 4"}
    play(game, "bid brown 4", "confirm bid", "pass", "pass")
    assert legal_names(game) == {"declare building stop"}


def test_r39_several_cards_of_a_kind_fours_under_first_then_fives_then_sixes():
    """R39: with repeated kinds the order holds per value: bottom of the pile 6, 5, 5, 4, 4 for the
    color; black 6, 4 under the black pile, all face up (R16)."""
    laid = ("green 5", "black 4", "green 4", "green 6", "black 6", "green 4", "green 5")
    game = district_0_auction(seat0=laid)
    green_before, black_before = game.piles[4][:], game.black[:]
    go(game)
    play(game, *(f"bid {c}" for c in laid), "confirm bid", "pass", "pass")
    assert game.decision == BUILD_DECISION
    assert game.piles[4] == [2, 1, 1, 0, 0] + green_before
    face_up = 3 * FACE_UP
    assert game.black == [2 + face_up, 0 + face_up] + black_before
