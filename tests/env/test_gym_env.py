"""FifthAvenue-v0, the single-agent Gymnasium env: API checks, rewards, opponents, illegal actions, masks."""

import os

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
    """Random, and notes every move it makes in a shared log (passed in a callable: the env copies listed agents)."""

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
        env = FifthAvenueEnv(num_players=4, opponents=lambda rng, count: [LoggingOpponent(log) for _ in range(count)])
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
    env = FifthAvenueEnv(num_players=4, learner_seat=2, observation_layout=0, opponents=lambda rng, count: [LoggingOpponent(log) for _ in range(count)])
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
        assert np.array_equal(obs, Observer(env.config, version=1).observe(game, env.learner_seat))
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
    reads_layout_7 = RandomAgent()
    reads_layout_7.observation_layout = 7
    with pytest.raises(ValueError, match=r"observation_layout of \[0, 1\] \(default 0\), got 7"):
        FifthAvenueEnv(num_players=2, opponents=[reads_layout_7])
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
    with pytest.raises(RuntimeError, match="reset"):
        FifthAvenueEnv(render_mode="ansi").render()


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


def test_render_ansi_shows_the_board_players_and_the_learners_hand():
    from fifthave_env.engine.cards import kind_name

    env = FifthAvenueEnv(num_players=3, learner_seat=1, render_mode="ansi")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
        if terminated or truncated:
            break
    game, text = env.game, env.render()
    assert f"turn {game.turn}" in text
    for p in range(3):
        assert (f"seat {p}: {game.scores[p]:3d} VP  reserve {game.reserve[p]}  supply {game.supply[p]}  "
                f"central park {game.cp_skyscrapers[p]}  cards {sum(game.hands[p])}") in text
    hand_line = next(line for line in text.splitlines() if line.startswith("  hand of seat 1: "))
    for k, count in enumerate(game.hands[1]):
        assert (f"{count}x{kind_name(k)}" in hand_line) == (count > 0)
    built = [h for h in game.plot_height if h]
    assert built and sum(text.count(f"x{h}]") for h in set(built)) == len(built)  # every skyscraper drawn
    assert "hand of seat 0" not in text and "hand of seat 2" not in text
    assert fifthave_env.__version__


def test_both_environments_take_the_same_render_modes():
    from fifthave_env import fifth_avenue_v0

    assert fifth_avenue_v0.raw_env.metadata["render_modes"] == FifthAvenueEnv.metadata["render_modes"]
    frame = FifthAvenueEnv(num_players=3, render_mode="rgb_array")
    frame.reset(seed=0)
    assert frame.render().shape == (720, 1280, 3)


# ---- observations at every step, truncation rewards ------------------------------------------------

@pytest.mark.parametrize("num_players,seat", [(2, 1), (3, 2), (4, 0)])
def test_every_observation_is_the_learners_own_view_the_final_one_too(num_players, seat):
    """Compared with a fresh Observer of the learner's seat after every step, also when the game
    ends on an opponent's move (then game.actor is -1, not the learner)."""
    for seed in range(3):
        env = FifthAvenueEnv(num_players=num_players, learner_seat=seat)
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = 0
        while True:
            assert np.array_equal(obs, Observer(env.config).observe(env.game, seat))
            legal = np.flatnonzero(env.action_masks())
            obs, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if terminated or truncated:
                break
        assert env.game.actor == -1
        assert np.array_equal(obs, Observer(env.config).observe(env.game, seat))
        assert steps > 1


def truncated_scores(reward, seed, learner_seat=1, max_turns=6):
    env = FifthAvenueEnv(num_players=3, reward=reward, learner_seat=learner_seat, max_turns=max_turns)
    rewards, info = play_random(env, seed)
    assert info["truncated"] and env.game.truncated and not env.game.terminated
    return rewards, info["scores"]


def test_a_game_stopped_at_max_turns_is_truncated_not_terminated():
    """R29: Gymnasium's flags at the last step of a truncated game: terminated False, truncated True."""
    env = FifthAvenueEnv(num_players=3, learner_seat=1, max_turns=6)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    terminated = truncated = False
    while not (terminated or truncated):
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]))
    assert (terminated, truncated) == (False, True) and info["truncated"]


def test_truncation_rewards_of_every_kind():
    """At truncation (R29, R38): win_loss and win give 0, vp_margin the margin, score_delta the VP gained."""
    margins = set()
    for seed in range(8):
        for kind in ("win_loss", "win"):
            rewards, scores = truncated_scores(kind, seed)
            assert all(r == 0.0 for r in rewards)
        rewards, scores = truncated_scores("vp_margin", seed)
        assert rewards[-1] == scores[1] - max(scores[0], scores[2]) and all(r == 0.0 for r in rewards[:-1])
        margins.add(rewards[-1])
        rewards, scores = truncated_scores("score_delta", seed)
        assert sum(rewards) == scores[1]
    assert len(margins) > 1  # not all zero: the margin is really computed


# ---- actions that are no action id, opponents that fail --------------------------------------------

NOT_ACTION_IDS = [4.9, 4.0, np.float32(4), np.float64(4), "4", True, False, np.bool_(True), None, [4], (4,),
                  np.array([4]), np.array(4.0), float("nan"), float("inf"), -1, 147, 10**30, np.int64(-3),
                  complex(4, 0)]


@pytest.mark.parametrize("action", NOT_ACTION_IDS, ids=repr)
def test_gym_step_refuses_what_is_no_action_id_and_changes_nothing(action):
    from fifthave_env.engine.actions import ActionTypeError
    from fifthave_env.engine.game import IllegalActionError

    env = FifthAvenueEnv(num_players=3, learner_seat=0)
    env.reset(seed=2)
    before = env.game.to_dict()
    with pytest.raises(IllegalActionError, match=r"an action is an int id in \[0, 147\)") as refused:
        env.step(action)
    if not isinstance(action, (int, np.integer)) or isinstance(action, (bool, np.bool_)):
        assert isinstance(refused.value, (ActionTypeError, TypeError))
    assert env.game.to_dict() == before
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(np.int64(legal))  # the episode goes on: a refused call is no illegal move
    assert env.game.to_dict() != before


@pytest.mark.parametrize("legal_id", [lambda a: np.int32(a), lambda a: np.array(a), lambda a: np.uint8(a)])
def test_gym_step_takes_numpy_integers_and_0d_integer_arrays(legal_id):
    env = FifthAvenueEnv(num_players=2, learner_seat=0)
    env.reset(seed=0)
    first = int(np.flatnonzero(env.action_masks())[0])
    env.step(legal_id(first))
    assert env.game.plot_height[first - 4] == 1


class FailingOpponent(RandomAgent):
    """Plays randomly, then at its ``fail_at``-th move raises or returns ``bad``."""

    name = "failing"

    def __init__(self, fail_at, bad=None):
        super().__init__()
        self.fail_at, self.bad, self.moves = fail_at, bad, 0

    def act(self, observation, action_mask):
        self.moves += 1
        if self.moves == self.fail_at:
            if self.bad is None:
                raise ZeroDivisionError("the opponent's own bug")
            return self.bad(action_mask) if callable(self.bad) else self.bad
        return super().act(observation, action_mask)


@pytest.mark.parametrize("bad", [None, 3.9, "pass", lambda mask: int(np.flatnonzero(mask == 0)[0]), 999],
                         ids=["raises", "float", "str", "illegal-id", "out-of-range"])
def test_an_opponent_that_fails_breaks_the_env_until_reset(bad):
    from fifthave_env.env_common import EnvUsageError, OpponentError

    env = FifthAvenueEnv(num_players=3, learner_seat=0, opponents=[RandomAgent(), FailingOpponent(3, bad)])
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    with pytest.raises(OpponentError) as failed:
        for _ in range(500):
            legal = np.flatnonzero(env.action_masks())
            env.step(int(legal[rng.integers(len(legal))]))
    message = str(failed.value)
    seat = 2  # the seat after the learner's next seat
    assert f"opponent 'failing' at seat {seat}" in message and "reset" in message
    assert "legal:" not in message and "legal actions" not in message  # the opponent's options stay hidden
    assert env.game.actor == seat
    before = env.game.to_dict()
    assert not env.action_masks().any()
    for action in range(NUM_ACTIONS_FOR_TESTS):
        with pytest.raises(EnvUsageError, match=f"broken since opponent 'failing' at seat {seat}"):
            env.step(action)
    assert env.game.to_dict() == before  # nothing was played for the opponent's seat
    env.set_opponents(None)
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))


NUM_ACTIONS_FOR_TESTS = 147


def test_human_render_mode_and_check_env_work_without_matplotlib():
    """The core and train/dev installs have no matplotlib: "human" warns and shows nothing."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = """
import sys, warnings
sys.modules["matplotlib"] = None  # as if it were not installed
sys.modules["matplotlib.pyplot"] = None
import os

import gymnasium
import fifthave_env
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test
check_env(gymnasium.make("FifthAvenue-v0").unwrapped)
env = gymnasium.make("FifthAvenue-v0", render_mode="human").unwrapped
env.reset(seed=0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert env.render() is None
assert any("matplotlib" in str(w.message) and "rgb_array" in str(w.message) for w in caught)
render_test(lambda render_mode=None: fifthave_env.fifth_avenue_v0.env(num_players=2, render_mode=render_mode))
print("ok")
"""
    environ = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, env=environ, text=True)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr


def test_bad_constructor_arguments_and_reset_arguments_name_the_parameter():
    from fifthave_env.engine.checks import InvalidTypeError, InvalidValueError

    for kwargs, message in [
        (dict(learner_seat=1.0), r"learner_seat .* must be an int from 0 to 3, got 1.0 of type float"),
        (dict(learner_seat=True), r"learner_seat .*got True of type bool"),
        (dict(learner_seat=-1), r"learner_seat .*got -1"),
        (dict(illegal_action_reward="-1"), r"illegal_action_reward must be a finite number"),
        (dict(illegal_action_reward=float("nan")), r"illegal_action_reward must be a finite number.*nan"),
        (dict(illegal_action_reward=True), r"illegal_action_reward must be a finite number.*bool"),
        (dict(opponents=RandomAgent()), r"opponents \(None, a list"),
        (dict(opponents="abc"), r"opponents \(None, a list"),
        (dict(reward=None), r"reward must be one of"),
        (dict(render_mode="window"), r"render_mode must be one of 'ansi', 'rgb_array', 'human', None"),
        (dict(num_players=4.0), r"num_players must be one of 2, 3, 4, got 4.0 of type float"),
    ]:
        with pytest.raises(InvalidValueError, match=message):
            FifthAvenueEnv(**kwargs)
    env = FifthAvenueEnv(num_players=2)
    for kwargs, error, message in [
        (dict(seed=-1), InvalidValueError, r"seed must be None or an int >= 0, got -1"),
        (dict(seed=1.5), InvalidTypeError, r"seed must be None or an int >= 0, got 1.5 of type float"),
        (dict(seed="1"), InvalidTypeError, r"seed must be None or an int >= 0, got '1' of type str"),
        (dict(seed=True), InvalidTypeError, r"seed .*bool"),
        (dict(options=[1]), InvalidTypeError, r"options must be None or a dict, got \[1\] of type list"),
        (dict(options="x"), InvalidTypeError, r"options must be None or a dict"),
    ]:
        with pytest.raises(error, match=message):
            env.reset(**kwargs)
        assert env.game is None  # refused before anything was built
    env.reset(seed=np.int64(3), options={})
    assert env.game is not None


def test_a_reset_refused_by_the_opponents_sampler_leaves_the_env_as_it_was():
    from fifthave_env.engine.checks import InvalidValueError
    from fifthave_env.env_common import OpponentError

    calls = []

    def sampler(rng, count):
        calls.append(count)
        return [RandomAgent() for _ in range(count + (len(calls) > 1))]  # one too many the second time

    env = FifthAvenueEnv(num_players=3, learner_seat=0, opponents=sampler)
    env.reset(seed=0)
    game, opponents = env.game, dict(env._opponents)
    before = game.to_dict()
    with pytest.raises(InvalidValueError, match="the list returned by the opponents callable must hold 2 agents"):
        env.reset(seed=1)
    assert env.game is game and env._opponents == opponents and game.to_dict() == before
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # the game goes on

    class BrokenReset(RandomAgent):
        name = "broken-reset"

        def reset(self, config, seat, rng):
            raise KeyError("no weights")

    env.set_opponents([RandomAgent(), BrokenReset()])
    with pytest.raises(OpponentError, match="opponent 'broken-reset' at seat 2 raised KeyError in reset"):
        env.reset(seed=2)


# ---- opponents seated as in a tournament: their own layout, a sampler, their own copies ----------



def play_first_legal(env, seed, steps):
    """The learner's observations while it plays its first legal action, for up to ``steps`` steps."""
    observation, _ = env.reset(seed=seed)
    observations = [observation]
    for _ in range(steps):
        observation, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        observations.append(observation)
        if terminated or truncated:
            break
    return observations


@pytest.mark.parametrize("env_id, opponent, layout", [
    ("FifthAvenue-v0", "values-4p", 1),
    ("FifthAvenue-v1", "policy-4p", 0),
])
def test_opponents_get_the_observation_layout_they_read_whatever_the_envs(env_id, opponent, layout):
    from fifthave.agents.tournament import agent_factory
    from fifthave_env.observation import OBS_SIZES

    opponents = [agent_factory(opponent)() for _ in range(3)]
    assert getattr(opponents[0], "observation_layout", 0) == layout
    env = gymnasium.make(env_id, num_players=4, learner_seat=3, opponents=opponents).unwrapped
    # a trained network fed the other layout raises (a size mismatch): each opponent moves many times here
    observations = play_first_legal(env, seed=0, steps=150)
    assert {len(o) for o in observations} == {OBS_SIZES[int(env_id[-1])]}  # the learner's stays the env's
    moved = env._opponents.values()
    if layout == 1:
        assert sum(agent.decided for agent in moved) > 0  # its network chose, from layout-1 observations
    else:
        assert all(agent.net is opponents[0].net for agent in moved)  # copies share the frozen network


def test_a_search_opponent_gets_its_seats_sampler_and_searches():
    from fifthave.agents.search import SearchAgent

    env = FifthAvenueEnv(num_players=2, learner_seat=1, opponents=[SearchAgent(rollouts=2, depth=1)],
                         observation_layout=1)
    play_first_legal(env, seed=0, steps=20)
    searcher = env._opponents[0]
    assert searcher.sampler is not None and searcher.searched > 0  # without a sampler it never searches


def test_envs_made_from_one_opponent_list_play_their_own_copies():
    from fifthave.agents import GreedyAgent, HeuristicAgent
    from stable_baselines3.common.env_util import make_vec_env

    def first_game(opponents):
        return play_first_legal(FifthAvenueEnv(num_players=3, opponents=opponents), seed=0, steps=400)

    opponents = [HeuristicAgent(), GreedyAgent()]
    single = first_game(opponents)
    assert len(single) < 400  # a whole game
    assert np.array_equal(np.stack(first_game(opponents)), np.stack(single))  # the list is still as it was
    vec = make_vec_env(FifthAvenueEnv, n_envs=2, seed=0, env_kwargs=dict(num_players=3, opponents=opponents))
    played = [agent for env in vec.envs for agent in env.unwrapped.opponent_spec]
    assert len({id(agent) for agent in played + opponents}) == 6
    observation = vec.reset()
    replayed = [observation[0]]
    for _ in range(len(single) - 2):  # the last step of sub-env 0 resets it (sb3's auto-reset)
        masks = np.stack(vec.env_method("action_masks"))
        observation, *_ = vec.step(np.array([np.flatnonzero(mask)[0] for mask in masks]))
        replayed.append(observation[0])
    assert np.array_equal(np.stack(replayed), np.stack(single[:-1]))


def test_an_opponent_that_cannot_be_copied_is_refused_with_a_clear_error():
    import threading

    from fifthave_env.engine.checks import InvalidValueError

    class Locked(RandomAgent):
        def __init__(self):
            super().__init__()
            self.lock = threading.Lock()

    with pytest.raises(InvalidValueError, match="cannot be copied .*pass a callable"):
        FifthAvenueEnv(num_players=2, opponents=[Locked()])
    env = FifthAvenueEnv(num_players=2, opponents=lambda rng, count: [Locked() for _ in range(count)])
    env.reset(seed=0)  # a callable's agents are played as built
