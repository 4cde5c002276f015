"""Observations are built only when someone reads them (``Observer.builds`` counts them), by an observer of their configuration."""

import numpy as np

from fifthave.agents import GreedyAgent, RandomAgent
from fifthave_env import fifth_avenue_v0
from fifthave_env.gym_env import FifthAvenueEnv


def play_learner(env, seed):
    """Random legal learner moves until the episode ends; the number of observations returned."""
    env.reset(seed=seed)
    returned = 1
    rng = np.random.default_rng(seed)
    while True:
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        returned += 1
        if terminated or truncated:
            return returned


def test_aec_env_builds_observations_only_in_observe():
    env = fifth_avenue_v0.env(num_players=3)
    env.reset(seed=0)
    observer = env.unwrapped._observer
    rng = np.random.default_rng(0)
    steps = 0
    for _ in env.agent_iter():
        _, _, terminated, truncated, _ = env.last(observe=False)
        if terminated or truncated:
            env.step(None)
            continue
        legal = env.unwrapped.game.legal_actions()
        env.step(legal[rng.integers(len(legal))])
        steps += 1
    assert steps > 100 and observer.builds == 0
    env.reset(seed=1)
    env.last()
    env.observe("player_1")
    assert observer.builds == 2


def test_gym_env_never_builds_observations_for_mask_only_opponents():
    assert RandomAgent.needs_observation is False
    env = FifthAvenueEnv(num_players=4, learner_seat=0)  # RandomAgent opponents by default
    returned = play_learner(env, seed=0)
    assert env._observer.builds == returned  # only the learner's own, one per reset / step


class ObservingGreedy(GreedyAgent):
    reads_view = False  # decides from its observation (act), not from a seat view


def count_observations(opponents):
    env = FifthAvenueEnv(num_players=3, learner_seat=0, opponents=opponents, observation_layout=0)  # the layout they read
    observed = []
    original = env._observer.observe

    def counting(game, seat, out=None):
        observed.append(seat)
        return original(game, seat, out)

    env._observer.observe = counting
    returned = play_learner(env, seed=0)
    assert observed.count(0) == returned
    return observed


def test_gym_env_builds_observations_for_opponents_that_read_them():
    observed = count_observations([ObservingGreedy(), RandomAgent()])
    assert observed.count(1) > 0 and observed.count(2) == 0  # greedy seat 1 reads them, random seat 2 never
    observed = count_observations([GreedyAgent(), RandomAgent()])
    assert observed.count(1) == 0  # a scripted agent reads a seat view of the game instead


def test_an_observer_refuses_a_game_of_another_configuration():
    import pytest

    from fifthave_env.engine import Game, GameConfig
    from fifthave_env.observation import Observer

    observer = Observer(GameConfig(num_players=3))
    observer.observe(Game(GameConfig(num_players=3), seed=0), 0)  # an equal config is fine
    with pytest.raises(ValueError, match="num_players=2"):
        observer.observe(Game(GameConfig(num_players=2), seed=0), 0)
