"""Saved games against the rules of the start: without a random start seat 0 begins (the
rulebook's youngest player, our seat 0), so a saved game whose first player is another seat is
no game the engine can reach; with a random start any seat may begin."""

import numpy as np
import pytest

from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.savefile import SavedGameError


def random_start_game(num_players, first_player, moves):
    """A game with a random start whose first player is ``first_player``, after ``moves`` random moves."""
    for seed in range(200):
        game = Game(GameConfig(num_players=num_players, random_start=True), seed=seed)
        if game.first_player == first_player:
            rng = np.random.default_rng(seed)
            for _ in range(moves):
                legal = game.legal_actions()
                game.apply(legal[rng.integers(len(legal))])
            return game
    raise AssertionError("no seed gives that first player")


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("moves", [0, 25])
def test_a_first_player_other_than_seat_0_needs_a_random_start(num_players, moves):
    game = random_start_game(num_players, num_players - 1, moves)
    record = game.to_dict()
    assert Game.from_dict(record).to_dict() == record  # with a random start: a real game
    record["config"]["random_start"] = False
    with pytest.raises(SavedGameError, match=rf"state.first_player must be an int from 0 to 0, got {num_players - 1}"):
        Game.from_dict(record)


def test_seat_0_may_begin_with_or_without_a_random_start():
    game = random_start_game(3, 0, 10)
    record = game.to_dict()
    record["config"]["random_start"] = False
    assert Game.from_dict(record).first_player == 0
    fixed = Game(GameConfig(num_players=4), seed=3)
    assert fixed.first_player == 0 and Game.from_dict(fixed.to_dict()).first_player == 0
