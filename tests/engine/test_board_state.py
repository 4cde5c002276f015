"""The derived board state the engine keeps as plots change (``game.BOARD_STATE_FIELDS``, issue 36) equals
its definition recomputed from the plots after every step of random games in every configuration, in
clones and restored games too, and ``touch`` rebuilds it after an edit by hand."""

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.board import NO_PLOT, NUM_DISTRICTS, NUM_PLOTS, PLOTS_PER_DISTRICT, VP_BY_SHOP_TYPES
from fifthave_env.engine.game import BOARD_STATE_FIELDS
from rules_helpers import CONFIGS, put_shops, put_skyscrapers, started_game


def recomputed(game):
    """Every derived field from its definition (the docstrings in ``Game._rebuild_board_state``)."""
    mask = [sum(1 << t for t in set(shops)) for shops in game.plot_shops]
    room = [2 - len(game.plot_shops[p]) if game.plot_color[p] != NO_PLOT and not game.closed[p // PLOTS_PER_DISTRICT]
            and not game.plot_height[p] and len(game.plot_shops[p]) < 2 else 0 for p in range(NUM_PLOTS)]
    empty = [game.plot_color[p] >= 0 and game.plot_height[p] == 0 and not game.plot_shops[p] for p in range(NUM_PLOTS)]
    beside = [game.neighbors[p] for p in range(NUM_PLOTS)]
    vp = [[0] * game.n for _ in range(NUM_DISTRICTS)]
    for p in range(NUM_PLOTS):
        if 0 <= game.plot_owner[p] < game.n:
            beside_types = set().union(*(game.plot_shops[q] for q in beside[p]))
            vp[p // PLOTS_PER_DISTRICT][game.plot_owner[p]] += VP_BY_SHOP_TYPES[len(beside_types)] * game.plot_height[p]
    return {
        "plot_shop_mask": mask,
        "plot_beside_mask": [mask[q[0]] | mask[q[1]] if q else 0 for q in beside],
        "plot_shop_room": room,
        "plot_beside_room": [room[q[0]] + room[q[1]] if q else 0 for q in beside],
        "plot_empty": empty,
        "district_empty": [sum(empty[d * PLOTS_PER_DISTRICT:(d + 1) * PLOTS_PER_DISTRICT])
                           for d in range(NUM_DISTRICTS)],
        "district_vp": vp,
    }


def kept(game):
    return {name: game.__dict__[name] for name in BOARD_STATE_FIELDS}


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_the_kept_board_state_matches_a_recomputation_after_every_step(num_players, board):
    config = GameConfig(num_players=num_players, board=board)
    changes = 0
    for seed in range(6):
        game = Game(config, seed=seed)
        rng = np.random.default_rng(seed)
        assert kept(game) == recomputed(game)
        while not game.is_over:
            legal = game.legal_actions()
            before = recomputed(game)
            game.apply(legal[rng.integers(len(legal))])
            assert kept(game) == recomputed(game), (seed, game.turn)
            changes += kept(game) != before
        copy = game.clone()
        assert kept(copy) == recomputed(game)
        assert all(copy.__dict__[f] is not game.__dict__[f] for f in BOARD_STATE_FIELDS)
        assert all(a is not b for a, b in zip(copy.district_vp, game.district_vp))
        assert kept(Game.from_dict(game.to_dict())) == recomputed(game)
    assert changes > 50  # the games changed the board state (starts, builds, shops, stops)


def test_touch_rebuilds_the_board_state_after_an_edit_by_hand():
    game = started_game(3)
    put_shops(game, 1, "boutique")  # both helpers call touch()
    put_skyscrapers(game, 0, 3, 2)
    assert kept(game) == recomputed(game)
    assert game.plot_beside_mask[0] == game.plot_beside_mask[2] == 1 and game.plot_shop_room[3] == 0
    game.closed[0] = True
    game.touch()
    assert kept(game) == recomputed(game) and not any(game.plot_shop_room[:PLOTS_PER_DISTRICT])
