"""``Game.clone`` copies the state by hand (issue 36): every field, the generator's state, and
no list shared with the original, so that playing or editing the copy leaves the original as it was."""

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine import game as game_module
from fifthave_env.engine.savefile import STATE_FIELDS
from rules_helpers import CONFIGS

GROUPS = (game_module._SHARED_FIELDS, game_module._LIST_FIELDS, game_module._NESTED_LIST_FIELDS)


def positions(num_players, board, seed, every=29):
    """States of one random game: every ``every``-th decision and the end (auctions, builds, the final scoring)."""
    game = Game(GameConfig(num_players=num_players, board=board), seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        step += 1
    yield game


def shared_lists(a, b, path):
    """Paths of the lists ``a`` and ``b`` hold in common (the same object), at any depth."""
    if isinstance(a, list):
        found = [path] if a is b else []
        for i, (x, y) in enumerate(zip(a, b)):
            found += shared_lists(x, y, f"{path}[{i}]")
        return found
    return []


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_the_field_groups_cover_the_whole_state_once(num_players, board):
    names = [name for group in GROUPS for name in group]
    assert len(names) == len(set(names)), "a field is in two of clone's groups"
    game = Game(GameConfig(num_players=num_players, board=board), seed=1)
    assert set(names) | {"rng", "_legal"} == set(game.__dict__), "clone's groups and the game's fields differ"
    assert set(STATE_FIELDS) <= set(names)
    for name in set(game_module._SHARED_FIELDS) & set(STATE_FIELDS):  # state shared: immutable values only
        assert not isinstance(game.__dict__[name], (list, dict, set, np.ndarray)), name


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_a_clone_equals_the_original_and_shares_no_list(num_players, board):
    for game in positions(num_players, board, seed=10 * num_players + board):
        copy = game.clone()
        assert copy.to_dict() == game.to_dict()  # every state field and the generator's state
        assert copy.legal_actions() == game.legal_actions()
        assert (copy.board_token, copy.plots_token, copy.cards_token) == (
            game.board_token, game.plots_token, game.cards_token)
        assert copy.rng is not game.rng and copy.rng.bit_generator is not game.rng.bit_generator
        for name in STATE_FIELDS:
            assert shared_lists(copy.__dict__[name], game.__dict__[name], name) == []


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_playing_and_editing_a_clone_leaves_the_original_untouched(num_players, board):
    seed = 100 + 10 * num_players + board
    for game in positions(num_players, board, seed=seed, every=41):
        before = game.to_dict()
        copy = game.clone()
        twin = Game.from_dict(before)  # the same game, built another way: it must play as the clone does
        rng = np.random.default_rng(seed)
        while not copy.is_over:
            legal = copy.legal_actions()
            assert twin.legal_actions() == legal
            action = legal[rng.integers(len(legal))]
            copy.apply(action)
            twin.apply(action)
        assert copy.to_dict() == twin.to_dict()  # same draws of the generator (reshuffles, Central Park)
        copy.rng.random(5)
        for name in STATE_FIELDS:  # every list the clone holds, edited in place
            value = copy.__dict__[name]
            if isinstance(value, list):
                value.append(-7)
                for item in value:
                    if isinstance(item, list):
                        item.append(-7)
        assert game.to_dict() == before


def test_a_clone_given_a_used_generator_plays_as_a_fresh_clone():
    """``clone(rng)`` (search and effect features reuse the previous copy's generator): the generator is set to
    the original's state, whatever it drew before, so the copy draws what a fresh clone draws."""
    game = next(positions(4, 5, seed=77, every=60))
    used = game.clone()
    used.rng.random(1000)  # a previous copy's generator, far from the original's state
    before = game.to_dict()
    copies = [game.clone(), game.clone(used.rng)]
    assert copies[1].rng is used.rng
    rng = np.random.default_rng(5)
    while not copies[0].is_over:
        legal = copies[0].legal_actions()
        assert copies[1].legal_actions() == legal
        action = legal[rng.integers(len(legal))]
        for copy in copies:
            copy.apply(action)
    assert copies[0].to_dict() == copies[1].to_dict()  # the same draws: reshuffles, Central Park
    assert game.to_dict() == before
