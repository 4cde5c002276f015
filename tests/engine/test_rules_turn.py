"""A turn: actions A-D and their phases, drawing cards, the black pile (R13-R16, R32, R38)."""

from fifthave_env.engine.cards import FACE_UP
from fifthave_env.engine.game import CHOOSE_ACTION_DECISION, DRAW_COLOR_DECISION, MOVE_DECISION
from rules_helpers import (
    CENTRAL_PARK, CITY_HALL, auction_round, hand_of, legal_names, play, plot_of, put_shops, put_skyscrapers,
    set_hand, stack_black, stack_pile, start_turn, started_game)


def test_r13_action_a_takes_three_skyscrapers():
    """R13: action A moves 3 skyscrapers from the general supply to the reserve."""
    game = started_game(3)
    play(game, "action A")
    assert game.supply[0] == 9 and game.reserve[0] == 6
    assert game.decision == DRAW_COLOR_DECISION


def test_r13_action_a_takes_what_is_left_and_is_always_allowed():
    """R13: A takes min(3, supply) and stays legal with an empty supply."""
    game = started_game(3)
    game.supply[0] = 2
    play(game, "action A")
    assert game.supply[0] == 0 and game.reserve[0] == 5
    game = started_game(3)
    game.supply[0] = 0
    game.touch()
    assert "action A" in legal_names(game)
    play(game, "action A")
    assert game.supply[0] == 0 and game.reserve[0] == 3


def test_r13_action_b_needs_a_plot_that_can_take_a_shop():
    """R13: B needs a legal (tile, plot) pair: no plot can take a shop -> no B."""
    game = started_game(3)
    for plot in range(42):
        if game.plot_color[plot] >= 0:
            put_shops(game, plot, "boutique", "jeweler")
    assert legal_names(game) == {"action A", "action C"}
    put_shops(game, plot_of(game, 4, "green"), "gallery")  # one shop only: room for a second
    assert "action B" in legal_names(game)


def test_r13_action_d_needs_a_commissioner_in_an_open_district_markers_do_not_count():
    """R13: D needs an open district holding a commissioner; markers do not count."""
    game = started_game(3)
    game.markers[0][2] = True  # a marker alone is not enough
    game.touch()
    assert "action D" not in legal_names(game)  # both commissioners in City Hall
    game.comm_pos = [CENTRAL_PARK, 3]
    game.touch()
    assert "action D" in legal_names(game)
    play(game, "action D")
    assert legal_names(game) == {"score Times Square"}  # the other commissioner is in Central Park
    game = started_game(3)
    game.comm_pos = [3, 3]
    game.closed[3] = True
    game.closed_mask = 1 << 3
    game.touch()
    assert "action D" not in legal_names(game)  # a closed district is never scored


def test_r14_two_cards_of_different_colors_one_after_the_other():
    """R14: two top cards of two different colored piles, one after the other."""
    game = started_game(3)
    stack_pile(game, "gray", 5, 4)
    stack_pile(game, "green", 6, 4)
    before = game.hands[0][:]
    play(game, "action A", "draw gray")
    assert game.decision == DRAW_COLOR_DECISION and game.actor == 0
    assert "draw gray" not in legal_names(game)  # the second card has another color
    assert {"draw brown", "draw violet", "draw orange", "draw green"} <= legal_names(game)
    play(game, "draw green")
    assert game.decision == MOVE_DECISION
    gained = [game.hands[0][k] - before[k] for k in range(18)]
    assert gained[0 * 3 + 1] == 1 and gained[4 * 3 + 2] == 1 and sum(gained) == 2  # gray 5, green 6
    assert game.piles[0] == [0] and game.piles[4] == [0]


def test_r14_empty_piles_cannot_be_drawn_and_one_pile_gives_one_card():
    """R14: an empty pile cannot be taken; with one non-empty pile, one card only."""
    game = started_game(3)
    for color in ("gray", "brown", "violet", "orange"):
        stack_pile(game, color)
    stack_pile(game, "green", 5, 6)
    play(game, "action A")
    assert legal_names(game) == {"draw green"}
    play(game, "draw green")
    assert game.decision == MOVE_DECISION  # only one card: the other piles are empty
    assert game.piles[4] == [2]


def test_r38_phase_two_skipped_when_every_colored_pile_is_empty():
    """R38, R14: no colored card left: phase 2 gives nothing and is skipped."""
    game = started_game(3)
    for color in ("gray", "brown", "violet", "orange", "green"):
        stack_pile(game, color)
    hand = game.hands[0][:]
    play(game, "action A")
    assert game.decision == MOVE_DECISION and game.hands[0] == hand


def test_r15_action_d_scores_then_black_cards_in_turn_order_from_the_active_player():
    """R15: the active player draws 2, then each seat without a skyscraper there draws 1, in turn
    order from the active player (itself included)."""
    game = started_game(3)
    game.comm_pos = [2, 8]
    put_skyscrapers(game, 2, plot_of(game, 2, "gray"), 1)  # only seat 2 builds in 42nd St West
    set_hand(game, 0)
    set_hand(game, 1)
    set_hand(game, 2)
    game.active = game.actor = 1
    game.touch()
    stack_black(game, 4, 5, 6, 4, 5)
    play(game, "action D", "score 42nd St West")
    # active seat 1: 2 cards, then seat 1 (none there) 1, seat 2 has one: skipped, seat 0 1
    assert hand_of(game, 1) == ["black 4", "black 5", "black 6"]
    assert hand_of(game, 2) == []
    assert hand_of(game, 0) == ["black 4"]
    assert game.scores == [0, 0, 1]  # the skyscraper with no shop beside it scores 1
    assert game.decision == MOVE_DECISION and game.final_move


def test_r15_a_skyscraper_on_the_first_plot_of_the_board_counts_too():
    """R15: the owner of plot 0 has a skyscraper in the district and draws nothing."""
    # Plot 0 (34th St West, ring position 0) is a plot id like any other: its owner draws nothing.
    game = started_game(3)
    game.comm_pos = [0, 8]
    assert game.plot_color[0] >= 0
    put_skyscrapers(game, 2, 0, 1)
    sizes = [sum(h) for h in game.hands]
    play(game, "action D", "score 34th St West")
    assert [sum(h) - s for h, s in zip(game.hands, sizes)] == [3, 1, 0]


def test_r15_rulebook_example_blue_takes_three_green_one():
    """R15: the rulebook example."""
    # p. 9, fig. 01: Blue scores a district where he has no skyscraper: 2 + 1 cards; Green, also
    # without one there, 1; Red and Yellow have skyscrapers there and draw nothing.
    blue, red, yellow = 0, 2, 3  # Green is seat 1
    game = started_game(4)
    game.comm_pos = [5, 8]
    put_skyscrapers(game, red, plot_of(game, 5, "gray"), 1)
    put_skyscrapers(game, yellow, plot_of(game, 5, "green"), 2)
    sizes = [sum(h) for h in game.hands]
    play(game, "action D", "score 52nd St West")
    assert [sum(h) - s for h, s in zip(game.hands, sizes)] == [3, 1, 0, 0]
    assert game.actor == blue and game.decision == MOVE_DECISION


def test_r32_action_d_where_nobody_built_active_three_others_one():
    """R32: D where nobody has skyscrapers: the active player draws 3, every other player 1."""
    game = started_game(4)
    game.comm_pos = [8, 6]
    sizes = [sum(h) for h in game.hands]
    play(game, "action D", "score 52nd St East")
    assert [sum(h) - s for h, s in zip(game.hands, sizes)] == [3, 1, 1, 1]
    assert game.scores == [0, 0, 0, 0]


def test_r16_empty_black_pile_gives_nothing():
    game = started_game(3)
    stack_black(game)
    hand = game.hands[0][:]
    play(game, "action C")
    assert game.hands[0] == hand and game.decision == MOVE_DECISION
    game = started_game(3)
    stack_black(game)
    game.comm_pos = [6, 8]
    game.touch()
    hands = [h[:] for h in game.hands]
    play(game, "action D", "score 52nd St East")
    assert game.hands == hands


def test_r16_winner_cards_go_face_up_under_their_piles_and_reshuffle_when_reached():
    game = started_game(3)
    set_hand(game, 0, "gray 4", "black 6")
    set_hand(game, 1)
    set_hand(game, 2)
    stack_black(game, 5)
    stack_pile(game, "gray", 6)
    stack_pile(game, "brown", 5)
    auction_round(game, 0, [])  # Central Park only
    play(game, "bid gray 4", "bid black 6", "confirm bid", "pass", "pass", "build 0")
    # the gray 4 lies face up at the bottom of the gray pile, known to all (R31)
    assert game.piles[0] == [0, 2] and game.pile_known[0] == 1
    # the black 6 lies face up under the single face-down 5
    assert game.black == [2 + 3 * FACE_UP, 1] and game.black_faceup == 1
    assert game.decision == CHOOSE_ACTION_DECISION and game.actor == 1
    play(game, "action C")  # draws the face-down 5
    assert hand_of(game, 1) == ["black 5"] and game.black == [2 + 3 * FACE_UP]
    play(game, "move white -> 34th St West", "draw gray", "draw brown", "move white -> 42nd St West")
    assert hand_of(game, 1) == ["black 5", "brown 5", "gray 6"]
    play(game, "action C")  # the next card is face up: the pile is shuffled face down first
    assert hand_of(game, 2) == ["black 6"]
    assert game.black == [] and game.black_faceup == 0 and game.black_seen == [0, 0, 0]


def test_r16_colored_piles_are_never_shuffled():
    game = started_game(3)
    set_hand(game, 0, "violet 5", "violet 6")
    stack_pile(game, "violet", 4, 4)
    auction_round(game, 0, [])
    play(game, "bid violet 5", "bid violet 6", "confirm bid", "pass", "pass", "build 1")
    # bottom first: the cards paid went under the two 4s, in a fixed order (value 5 then 6 inserted)
    assert game.piles[2] == [2, 1, 0, 0] and game.pile_known[2] == 2


def close(game, d):
    game.closed[d] = True
    game.closed_mask |= 1 << d
    game.touch()


def test_r13_action_b_not_legal_when_the_only_free_plot_is_in_a_closed_district():
    """R13 with R17: the (tile, plot) pair must be legal; a plot in a closed district is none."""
    game = started_game(3)
    free = plot_of(game, 5, "orange")
    for plot in range(42):
        if game.plot_color[plot] >= 0 and plot != free:
            put_shops(game, plot, "boutique", "jeweler")
    assert "action B" in legal_names(game)
    close(game, 5)
    assert legal_names(game) == {"action A", "action C"}
    assert game.action_mask().nonzero()[0].tolist() == game.legal_actions()


def test_r13_action_d_offers_exactly_the_open_districts_holding_a_commissioner():
    """R13: D is legal with one commissioner in a closed district and the other in an open one;
    only the open one can be scored. Both in one district: one choice."""
    game = started_game(3)
    game.comm_pos = [4, 6]
    close(game, 6)
    assert "action D" in legal_names(game)
    play(game, "action D")
    assert legal_names(game) == {"score 42nd St East"}
    game = started_game(3)
    game.comm_pos = [2, 2]
    game.touch()
    play(game, "action D")
    assert legal_names(game) == {"score 42nd St West"}


def test_r14_each_pile_with_one_card_both_taken_then_the_move():
    """R14: the first draw empties its pile; a card of another color is still due."""
    game = started_game(3)
    for color in ("gray", "brown", "violet", "orange", "green"):
        stack_pile(game, color)
    stack_pile(game, "brown", 6)
    stack_pile(game, "orange", 5)
    set_hand(game, 0)
    play(game, "action A")
    assert legal_names(game) == {"draw brown", "draw orange"}
    play(game, "draw orange")
    assert game.decision == DRAW_COLOR_DECISION and legal_names(game) == {"draw brown"}
    play(game, "draw brown")
    assert hand_of(game, 0) == ["brown 6", "orange 5"] and game.decision == MOVE_DECISION and game.final_move


def test_r14_second_card_only_from_another_pile_even_if_the_first_has_more():
    """R14: two different colors: with the first color's pile still holding cards but every other
    pile empty, the turn goes on with one card."""
    game = started_game(3)
    for color in ("gray", "brown", "violet", "orange"):
        stack_pile(game, color)
    stack_pile(game, "green", 6, 6, 6)
    set_hand(game, 0)
    play(game, "action A", "draw green")
    assert hand_of(game, 0) == ["green 6"] and game.piles[4] == [2, 2]
    assert game.decision == MOVE_DECISION and game.actor == 0 and game.final_move


def test_r14_phase_two_follows_actions_b_and_c_and_is_skipped_with_no_card_left():
    """R14 (phase 2 of A, B and C) and R38: after B's shop and C's move the active player draws;
    with every colored pile empty the next decision is the phase-3 move, nothing drawn."""
    game = started_game(3)
    play(game, "action B")
    play(game, sorted(legal_names(game))[0], "place shop on 34th St West gray")
    assert game.decision == DRAW_COLOR_DECISION and game.actor == 0
    game = started_game(3)
    play(game, "action C", "move white -> 34th St West")
    assert game.decision == DRAW_COLOR_DECISION and game.actor == 0
    for action in ("B", "C"):
        game = started_game(3)
        for color in ("gray", "brown", "violet", "orange", "green"):
            stack_pile(game, color)
        colored = [sum(game.hands[0][:15])]
        if action == "B":
            play(game, "action B")
            play(game, sorted(legal_names(game))[0], "place shop on 34th St West gray")
        else:
            play(game, "action C", "move white -> 34th St West")
        assert game.decision == MOVE_DECISION and game.final_move and game.actor == 0
        assert all(name.startswith("move ") for name in legal_names(game))
        assert [sum(game.hands[0][:15])] == colored
        play(game, sorted(legal_names(game))[0])
        assert game.decision == CHOOSE_ACTION_DECISION and game.actor == 1  # the turn is over


def test_r15_empty_black_pile_mid_distribution_later_seats_in_turn_order_get_nothing():
    """R15 with R16: the cards are dealt in turn order from the active player, so when the pile
    runs out the seats furthest from the active one go without."""
    game = started_game(4)
    game.comm_pos = [1, CITY_HALL]
    for p in range(4):
        set_hand(game, p)
    start_turn(game, 2)
    stack_black(game, 4, 5, 6, 5)
    play(game, "action D", "score 34th St East")
    assert hand_of(game, 2) == ["black 4", "black 5", "black 6"]
    assert hand_of(game, 3) == ["black 5"]
    assert hand_of(game, 0) == [] and hand_of(game, 1) == []
    assert game.black == [] and game.decision == MOVE_DECISION


def test_r15_face_up_cards_reached_mid_distribution_are_shuffled_first():
    """R15 with R16: the face-up cards under the pile are shuffled into a new face-down pile as
    soon as the next card to draw is face up, in the middle of the deal too."""
    game = started_game(3)
    game.comm_pos = [3, CITY_HALL]
    for p in range(3):
        set_hand(game, p)
    put_skyscrapers(game, 1, plot_of(game, 3, "gray"), 1)  # seat 1 draws nothing
    face_up = [2, 2, 1, 1, 0, 0]  # 6, 6, 5, 5, 4, 4 face up, bottom first
    game.black = [v + 3 * FACE_UP for v in face_up] + [0]  # one face-down 4 on top
    game.black_seen = [2, 2, 2]
    game.black_faceup = 6
    game.touch()
    play(game, "action D", "score Times Square")
    # seat 0: the face-down 4, then two cards after the shuffle; seat 2: one; seat 1: none
    assert "black 4" in hand_of(game, 0) and len(hand_of(game, 0)) == 3
    assert len(hand_of(game, 2)) == 1 and hand_of(game, 1) == []
    assert game.black_faceup == 0 and len(game.black) == 3
    assert all(entry < 3 for entry in game.black)  # face down now
    drawn = [n for p in (0, 2) for n in hand_of(game, p)]
    left = [f"black {(4, 5, 6)[e]}" for e in game.black]
    assert sorted(drawn + left) == sorted(["black 4"] * 3 + ["black 5"] * 2 + ["black 6"] * 2)


def test_r32_active_draws_three_in_a_row_then_the_others_in_turn_order():
    """R32 (with R15): nobody has skyscrapers: the active player's 2 + 1 come first, then one each
    for the next seats in turn order; with two players Alea draws nothing."""
    game = started_game(3)
    game.comm_pos = [CITY_HALL, 0]
    for p in range(3):
        set_hand(game, p)
    start_turn(game, 1)
    stack_black(game, 4, 4, 4, 5, 6)
    play(game, "action D", "score 34th St West")
    assert [hand_of(game, p) for p in range(3)] == [["black 6"], ["black 4"] * 3, ["black 5"]]
    game = started_game(2)
    game.comm_pos = [CITY_HALL, 0]
    sizes = [sum(h) for h in game.hands]
    black = len(game.black)
    play(game, "action D", "score 34th St West")
    assert [sum(h) - s for h, s in zip(game.hands, sizes)] == [3, 1] and len(game.black) == black - 4


def test_r15_active_player_with_a_skyscraper_there_draws_only_the_two():
    """R15: the extra black card goes only to players with no skyscraper in the district; the
    active player who has one there gets just its 2."""
    game = started_game(3)
    game.comm_pos = [5, CITY_HALL]
    for p in range(3):
        set_hand(game, p)
    put_skyscrapers(game, 0, plot_of(game, 5, "violet"), 1)
    stack_black(game, 4, 5, 6, 6, 4)
    play(game, "action D", "score 52nd St West")
    assert [hand_of(game, p) for p in range(3)] == [["black 4", "black 5"], ["black 6"], ["black 6"]]
    assert game.black == [0] and game.scores == [1, 0, 0]
