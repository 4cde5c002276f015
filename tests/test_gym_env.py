"""FifthAvenue-v0, the single-agent Gymnasium env: API checks, rewards, opponents, illegal actions, masks."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import fifthave_env
from fifthave_env import fifth_avenue_v0
from fifthave_env.gym_env import FifthAvenueEnv
from fifthave_env.random_agent import RandomAgent
from fifthave_env.observation import Observer


class LoggingOpponent(RandomAgent):
    """Random, and notes every move it makes in a shared log."""

    def __init__(self, log):
        super().__init__()
        self.log = log

    def reset(self, config, seat, rng):
        super().reset(config, seat, rng)
        self.seat = seat

    def act(self, observation, action_mask):
        action = super().act(observation, action_mask)
        self.log.append((self.seat, action))
        return action


def play_random(env, seed, log=None):
    """Play one game with uniformly random learner moves; returns the rewards and the last info."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    rewards = []
    while True:
        legal = np.flatnonzero(env.action_masks())
        action = int(legal[rng.integers(len(legal))])
        if log is not None:
            log.append((env.learner_seat, action))
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            return rewards, info


def test_registered_and_passes_check_env():
    env = gymnasium.make("FifthAvenue-v0", num_players=3, board=6)
    assert env.unwrapped.config.num_players == 3 and env.unwrapped.config.board == 6
    check_env(env.unwrapped)
    assert env.get_wrapper_attr("action_masks")().any()
    assert env.observation_space.shape == (1176,) and env.action_space.n == 147


def test_unmasked_illegal_action_ends_the_game_with_the_penalty_and_leaves_it_unchanged():
    env = FifthAvenueEnv(num_players=2, learner_seat=0, illegal_action_reward=-5.0)
    env.reset(seed=3)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    before = env.game.to_dict()
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-5.0, True, False)
    assert "is not legal" in info["illegal_action"] and env.game.to_dict() == before
    with pytest.raises(RuntimeError, match="reset"):
        env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_terminal_win_loss_reward_reaches_the_learner_also_when_an_opponent_moves_last():
    ended_by_opponent = 0
    for seed in range(6):
        log = []
        env = FifthAvenueEnv(num_players=4, opponents=[LoggingOpponent(log) for _ in range(3)])
        rewards, info = play_random(env, seed, log)
        assert not info["truncated"]
        expected = 1.0 if env.learner_seat in info["winners"] else -1.0
        assert rewards[-1] == expected and all(r == 0.0 for r in rewards[:-1])
        ended_by_opponent += log[-1][0] != env.learner_seat
    assert ended_by_opponent > 0  # the case that matters was exercised


def test_score_delta_rewards_add_up_to_the_final_score_and_vp_margin_is_the_final_margin():
    env = FifthAvenueEnv(num_players=3, reward="score_delta", learner_seat=1)
    rewards, info = play_random(env, 11)
    assert sum(rewards) == info["scores"][1]
    env = FifthAvenueEnv(num_players=3, reward="vp_margin", learner_seat=2)
    rewards, info = play_random(env, 11)
    assert rewards[-1] == info["scores"][2] - max(info["scores"][:2])


def test_same_seed_same_game_and_observations_match_the_pettingzoo_env():
    """With a fixed learner seat the gym env deals the same game as fifth_avenue_v0 for the same seed."""
    log = []
    env = FifthAvenueEnv(num_players=4, learner_seat=2, opponents=[LoggingOpponent(log) for _ in range(3)])
    learner_obs = []
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=42)
    done = False
    while not done:
        learner_obs.append(obs)
        legal = np.flatnonzero(info["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        log.append((2, action))
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    final_scores = info["scores"]
    aec = fifth_avenue_v0.env(num_players=4)
    aec.reset(seed=42)
    replayed = []
    for seat, action in log:
        assert aec.agent_selection == f"player_{seat}"
        if seat == 2:
            replayed.append(aec.observe("player_2")["observation"])
        aec.step(action)
    assert aec.unwrapped.game.scores == final_scores
    assert len(replayed) == len(learner_obs)
    assert all(np.array_equal(a, b) for a, b in zip(replayed, learner_obs))


def test_reset_with_a_seed_replays_the_game():
    env = FifthAvenueEnv(num_players=2)
    first = play_random(env, 5)
    second = play_random(env, 5)
    assert first[0] == second[0] and first[1]["scores"] == second[1]["scores"]


def test_observation_and_mask_are_the_learners_own():
    env = FifthAvenueEnv(num_players=3, learner_seat=None)
    seats = set()
    for seed in range(12):
        obs, info = env.reset(seed=seed)
        seats.add(info["learner_seat"])
        game = env.game
        assert game.actor == env.learner_seat
        assert np.array_equal(obs, Observer(env.config).observe(game, env.learner_seat))
        assert np.array_equal(np.flatnonzero(env.action_masks()), game.legal_actions())
        assert np.array_equal(info["action_mask"], env.action_masks())
    assert seats == {0, 1, 2}


def test_opponents_are_checked_and_a_sampler_is_called_at_every_reset():
    with pytest.raises(ValueError, match="3 agents"):
        FifthAvenueEnv(num_players=4, opponents=[RandomAgent()])
    with pytest.raises(TypeError, match="reset"):
        FifthAvenueEnv(num_players=2, opponents=[object()])
    shared = RandomAgent()
    with pytest.raises(ValueError, match="distinct"):
        FifthAvenueEnv(num_players=3, opponents=[shared, shared])
    calls = []

    def sampler(rng, count):
        calls.append(count)
        return [RandomAgent() for _ in range(count)]

    env = FifthAvenueEnv(num_players=3, opponents=sampler)
    env.reset(seed=0)
    env.reset(seed=1)
    assert calls == [2, 2]


def test_bad_arguments_and_misuse_raise_clear_errors():
    with pytest.raises(ValueError, match="learner_seat"):
        FifthAvenueEnv(num_players=2, learner_seat=2)
    with pytest.raises(ValueError, match="reward"):
        FifthAvenueEnv(reward="points")
    env = FifthAvenueEnv()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_masks_through_subproc_vec_env_for_maskable_ppo():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = SubprocVecEnv([lambda: FifthAvenueEnv(num_players=2, learner_seat=0)] * 2)
    try:
        vec.seed(7)
        vec.reset()
        masks = get_action_masks(vec)
        local = FifthAvenueEnv(num_players=2, learner_seat=0)
        local.reset(seed=7)
        assert masks.shape == (2, 147) and masks.dtype == bool
        assert np.array_equal(masks[0], local.action_masks())
    finally:
        vec.close()


def test_render_ansi_shows_the_board():
    env = FifthAvenueEnv(render_mode="ansi")
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render()
    assert fifthave_env.__version__


def test_both_environments_take_the_same_render_modes():
    from fifthave_env import fifth_avenue_v0

    assert fifth_avenue_v0.raw_env.metadata["render_modes"] == FifthAvenueEnv.metadata["render_modes"]
    frame = FifthAvenueEnv(num_players=3, render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().shape == (720, 1280, 3)
