"""The shop row and shop placement: R9 (groups, the Central Park box) and R17 (placement, special scoring)."""

from fifthave_env.engine.game import DRAW_COLOR_DECISION, GAME_OVER, SHOP_PLOT_DECISION
from rules_helpers import legal_names, play, plot_of, put_shops, put_skyscrapers, start_turn, started_game

B, J, G, P = range(4)  # boutique, jeweler, gallery, perfume


def set_row(game, *types):
    game.row = list(types)
    game.touch()


def take_first_tile(game):
    """Action B, then the first shop type offered (by name)."""
    play(game, "action B")
    play(game, sorted(legal_names(game))[0])


def shop_turn(game, tile, plot_name):
    """The active player takes ``tile`` and places it, draws two cards, moves; returns nothing."""
    play(game, "action B", f"take {tile}", f"place shop on {plot_name}")
    if game.decision == DRAW_COLOR_DECISION:
        first = sorted(legal_names(game))[0]
        play(game, first)
        if game.decision == DRAW_COLOR_DECISION:
            play(game, sorted(legal_names(game))[0])
        play(game, sorted(legal_names(game))[0])


def test_r9_only_the_leftmost_non_empty_group_is_offered():
    game = started_game(3)
    set_row(game, B, B, J, G, P, *([P] * 15))
    play(game, "action B")
    assert legal_names(game) == {"take boutique", "take jeweler"}  # group 1 is B, B, J
    set_row(game, -1, -1, -1, G, P, *([B] * 15))
    start_turn(game, 0)
    play(game, "action B")
    assert legal_names(game) == {"take gallery", "take perfume"}


def test_r9_second_to_last_tile_of_a_group_sends_the_last_to_the_box():
    game = started_game(3)
    set_row(game, B, J, G, P, B, *([J] * 15))
    shop_turn(game, "jeweler", "34th St West gray")
    assert game.row[:5] == [B, -1, G, P, B] and game.box == []
    shop_turn(game, "gallery", "34th St West brown")
    assert game.row[:5] == [-1, -1, -1, P, B] and game.box == [B]  # the boutique left in group 1
    shop_turn(game, "boutique", "34th St West violet")  # group 2 (P, B): its first tile empties it
    assert game.row[:5] == [-1] * 5 and game.box == [B, P]
    assert game.shops_placed == 3


def test_r9_a_full_row_gives_twelve_tiles_to_the_board_and_eight_to_the_box():
    game = started_game(4, board=6)
    plots = [p for p in range(42) if p % 6 < 5]
    turns = 0
    while game.decision != GAME_OVER:
        start_turn(game, turns % 4)
        take_first_tile(game)
        game.apply(50 + plots[turns])  # place the shop on the next plot
        turns += 1
        if game.decision != GAME_OVER:
            assert game.decision == DRAW_COLOR_DECISION
    assert turns == 12 and game.shops_placed == 12 and len(game.box) == 8 and game.row == [-1] * 20


def test_r17_shop_goes_on_empty_or_single_shop_plot_of_an_open_district_never_with_skyscrapers():
    game = started_game(3)
    put_shops(game, plot_of(game, 0, "gray"), "gallery")
    put_shops(game, plot_of(game, 0, "brown"), "gallery", "perfume")
    put_skyscrapers(game, 1, plot_of(game, 0, "violet"), 1)
    game.closed[6] = True
    game.closed_mask = 1 << 6
    game.touch()
    take_first_tile(game)
    legal = legal_names(game)
    assert "place shop on 34th St West gray" in legal  # one shop: a second may join
    assert "place shop on 34th St West brown" not in legal  # two shops: full
    assert "place shop on 34th St West violet" not in legal  # a skyscraper stands there
    assert "place shop on 34th St West orange" in legal
    assert not any(name.startswith("place shop on 52nd St East") for name in legal)  # closed
    assert len(legal) == 5 * 6 - 2  # 30 open plots but the full one and the one with a skyscraper
    assert game.decision == SHOP_PLOT_DECISION


def test_r17_special_scoring_after_third_sixth_and_ninth_tile():
    game = started_game(3)
    # seat 0: 3 districts; seat 1: 2 districts and Central Park (not a district); seat 2: 5 districts
    for d in (0, 1, 2):
        put_skyscrapers(game, 0, plot_of(game, d, "gray"), 1)
    for d in (0, 1):
        put_skyscrapers(game, 1, plot_of(game, d, "brown"), 2)
    game.cp_skyscrapers[1] = 4
    for d in (2, 3, 4, 5, 6):
        put_skyscrapers(game, 2, plot_of(game, d, "green"), 1)
    set_row(game, *([B, J, G, P, B] * 4))
    expected = {3: [4, 0, 4], 6: [4, 0, 10], 9: [4, 0, 18]}
    names = ["34th St West orange", "34th St East orange", "42nd St West orange", "Times Square orange",
             "42nd St East orange", "52nd St West orange", "52nd St East orange", "34th St West violet",
             "34th St East violet"]
    for placed, plot_name in enumerate(names, start=1):
        start_turn(game, (placed - 1) % 3)
        take_first_tile(game)
        play(game, f"place shop on {plot_name}")
        if placed in expected:
            assert game.scores == expected[placed], placed
        elif placed > 3:
            assert game.scores == expected[placed // 3 * 3]
        else:
            assert game.scores == [0, 0, 0]


def test_r17_r27_twelfth_tile_ends_the_game_at_once_without_special_scoring():
    game = started_game(3)
    for d in range(7):
        put_skyscrapers(game, 0, plot_of(game, d, "gray"), 1)
    game.shops_placed = 11
    game.box = [B, J, G, P, B, J, G]
    set_row(game, *([-1] * 18), J, G)
    hand = game.hands[0][:]
    scores = game.scores[:]
    play(game, "action B", "take jeweler", "place shop on 34th St West brown")
    assert game.decision == GAME_OVER and game.terminated and not game.truncated
    assert game.box[-1] == G and len(game.box) == 8
    assert game.hands[0] == hand  # no phase 2: the rest of the turn is skipped
    # final scoring only (R27): 7 lone skyscrapers; the one beside the new jeweler scores 2
    assert game.scores[0] - scores[0] == 6 * 1 + 2
