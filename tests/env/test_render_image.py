"""The board picture: shape and type, and pixels that must change when the board changes."""

import matplotlib
import numpy as np
import pytest

from fifthave_env import fifth_avenue_v0
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import CHOOSE_ACTION, PLACE_START, SHOP_PLOT, SHOP_TILE
from fifthave_env.engine.auction import building_stop
from fifthave_env.engine.board import PLOTS_PER_DISTRICT
from fifthave_env.render_image import (
    CARD_RGB,
    DISTRICT_CENTERS,
    HEIGHT,
    SEAT_RGB,
    SHOP_RGB,
    WIDTH,
    board_image,
    plot_center,
    render_image,
)


def pixel(frame, x, y):
    return tuple(int(v) for v in frame[round(y), round(x)])


def tower_body(plot, board=5):
    """A point inside a lone skyscraper's block, away from its height label."""
    x, y = plot_center(plot, board)
    return x - 8, y + 12


def shop_body(plot, board=5):
    """A point inside a lone shop tile on an empty plot, away from its letter."""
    x, y = plot_center(plot, board)
    return x - 5, y - 5


def started_game(num_players=4, board=5, seed=0):
    """A game past the starting placements (each seat takes its first legal plot)."""
    game = Game(GameConfig(num_players=num_players, board=board), seed=seed)
    while game.decision == 0:
        game.apply(game.legal_actions()[0])
    return game


@pytest.mark.parametrize("scale, shape", [(1.0, (HEIGHT, WIDTH, 3)), (0.5, (HEIGHT // 2, WIDTH // 2, 3))])
def test_shape_and_type(scale, shape):
    frame = render_image(Game(GameConfig(), seed=1), scale=scale)
    assert frame.shape == shape
    assert frame.dtype == np.uint8


def test_the_picture_follows_public_state_only():
    """Same state, same picture; a public change (a score, a pile's top) changes it; hidden parts
    (the black pile's order, the unused tiles, a hand not shown) never do (R30)."""
    game = started_game(seed=3)
    picture = render_image(game, hands="none")
    assert np.array_equal(picture, render_image(game.clone(), hands="none"))
    scored = game.clone()
    scored.scores[1] += 7
    assert not np.array_equal(picture, render_image(scored, hands="none"))
    top = game.clone()
    top.piles[0][-1] = (top.piles[0][-1] + 1) % 3
    assert not np.array_equal(picture, render_image(top, hands="none"))
    hidden = game.clone()
    hidden.black.reverse()
    hidden.unused_tiles.reverse()
    hidden.hands[1][0], hidden.hands[1][1] = hidden.hands[1][1], hidden.hands[1][0]  # same color count
    hidden.touch()
    assert hidden.to_dict() != game.to_dict()
    assert np.array_equal(picture, render_image(hidden, hands="none"))
    assert not np.array_equal(render_image(game, hands=1), render_image(hidden, hands=1))  # seat 1's own hand


def test_starting_skyscraper_appears_in_the_owner_color():
    game = Game(GameConfig(num_players=3), seed=2)
    plot = game.legal_actions()[0] - PLACE_START
    seat = game.actor
    before = render_image(game)
    assert pixel(before, *tower_body(plot)) == CARD_RGB[game.plot_color[plot]]
    game.apply(PLACE_START + plot)
    after = render_image(game)
    assert pixel(after, *tower_body(plot)) == SEAT_RGB[seat]
    # The plot's rim turns to the owner's color too.
    x, y = plot_center(plot)
    assert pixel(after, x + 22, y) == SEAT_RGB[seat]


def test_placed_shop_appears_on_its_plot():
    game = started_game(seed=4)
    game.apply(CHOOSE_ACTION + 1)  # action B
    tile = game.legal_actions()[0] - SHOP_TILE
    game.apply(SHOP_TILE + tile)
    plot = next(a - SHOP_PLOT for a in game.legal_actions() if not game.plot_shops[a - SHOP_PLOT])
    before = render_image(game)
    assert pixel(before, *shop_body(plot)) == CARD_RGB[game.plot_color[plot]]
    game.apply(SHOP_PLOT + plot)
    assert pixel(render_image(game), *shop_body(plot)) == SHOP_RGB[tile]


def test_closed_district_is_grayed_and_labelled():
    game = started_game(seed=5)
    district = 3
    plot = district * PLOTS_PER_DISTRICT + 1
    before = render_image(game)
    building_stop(game, district, declarer=0)
    game.touch()
    after = render_image(game)
    cx, cy = DISTRICT_CENTERS[district]
    assert pixel(after, cx - 42, cy) == (70, 66, 60)  # the CLOSED label
    assert pixel(before, *shop_body(plot)) != pixel(after, *shop_body(plot))
    assert pixel(after, *shop_body(plot)) == (165, 160, 152)


def test_commissioner_move_changes_the_picture_near_the_districts():
    game = started_game(seed=6)
    game.apply(CHOOSE_ACTION + 2)  # action C: move a commissioner first
    before = render_image(game)
    move = game.legal_actions()[0]
    game.apply(move)
    after = render_image(game)
    changed = np.any(before != after, axis=2)
    assert changed[40:, :815].any()  # the board, not only the side panel


def test_six_plot_board_draws_the_shop_plots():
    game = Game(GameConfig(num_players=2, board=6), seed=7)
    shop_plot = 0 * PLOTS_PER_DISTRICT + 5
    x, y = plot_center(shop_plot, board=6)
    frame = render_image(game)
    # Every starting shop sits on the colorless shop plot (R8): a shop tile, not a card color.
    assert pixel(frame, x - 5, y - 5) == SHOP_RGB[game.plot_shops[shop_plot][0]]
    with pytest.raises(ValueError, match="does not exist on the 5-plot board"):
        plot_center(shop_plot, board=5)


@pytest.mark.parametrize("num_players, board", [(2, 6), (3, 5), (4, 5)])
def test_smoke_whole_random_games_render(num_players, board):
    """Smoke test: every kind of moment (auctions with Alea, building, stops, the end) draws without error."""
    game = Game(GameConfig(num_players=num_players, board=board), seed=num_players)
    rng = np.random.default_rng(num_players)
    decisions_drawn = set()
    step = 0
    while not game.is_over:
        if game.decision not in decisions_drawn or step % 97 == 0:
            decisions_drawn.add(game.decision)
            assert render_image(game, scale=0.5).shape == (HEIGHT // 2, WIDTH // 2, 3)
        game.apply(int(rng.choice(game.legal_actions())))
        step += 1
    final = board_image(game, hands="none", caption="the end")
    assert final.size == (WIDTH, HEIGHT)
    assert len(decisions_drawn) >= 8


def test_bad_arguments_are_refused():
    game = Game(GameConfig(num_players=2), seed=0)
    with pytest.raises(ValueError, match="hands must be"):
        render_image(game, hands=3)
    with pytest.raises(ValueError, match="scale must be positive"):
        render_image(game, scale=0)


def test_env_render_modes():
    env = fifth_avenue_v0.env(num_players=3, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (HEIGHT, WIDTH, 3) and frame.dtype == np.uint8
    game = env.unwrapped.game
    assert np.array_equal(frame, render_image(game, hands=game.actor))  # the asked seat's hand is shown
    other = (game.actor + 1) % 3
    if game.hands[other] != game.hands[game.actor]:
        assert not np.array_equal(frame, render_image(game, hands=other))
    text_env = fifth_avenue_v0.env(num_players=3, render_mode="ansi")
    text_env.reset(seed=0)
    assert isinstance(text_env.render(), str)
    assert set(fifth_avenue_v0.raw_env.metadata["render_modes"]) == {"ansi", "rgb_array", "human"}


def test_human_mode_without_a_display_says_what_to_do():
    matplotlib.use("Agg")  # what matplotlib picks on a machine with no display
    env = fifth_avenue_v0.env(num_players=2, render_mode="human")
    env.reset(seed=0)
    with pytest.warns(UserWarning, match="rgb_array"):
        assert env.render() is None
    assert env.render() is None  # warned once
    env.close()
