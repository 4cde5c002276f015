"""The PettingZoo AEC environment: API conformance, seeding, errors, saving, rewards, rendering."""

import json
import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from fifthave_env import IllegalActionError, fifth_avenue_v0
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import NUM_ACTIONS, action_from_name, action_name
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.engine.scoring import leaders

CONFIGS = [(n, b) for n in (2, 3, 4) for b in (5, 6)]


def play_random(env, seed, max_steps=None):
    """Random legal play to the end (or ``max_steps``); returns the actions taken."""
    rng = np.random.default_rng(seed)
    actions = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if max_steps is not None and len(actions) >= max_steps:
            break
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        actions.append(action)
        env.step(action)
    return actions


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_pettingzoo_api_test(num_players, board):
    api_test(fifth_avenue_v0.env(num_players=num_players, board=board), num_cycles=300)


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_pettingzoo_seed_test_long_run(num_players, board):
    seed_test(lambda: fifth_avenue_v0.env(num_players=num_players, board=board), num_cycles=1000)


def test_metadata_and_spaces_are_the_same_for_every_configuration():
    shapes = set()
    for n, b in CONFIGS:
        env = fifth_avenue_v0.env(num_players=n, board=b)
        assert env.metadata["name"] == "fifth_avenue_v0"
        assert env.metadata["is_parallelizable"] is False
        assert "ansi" in env.metadata["render_modes"]
        assert env.possible_agents == [f"player_{i}" for i in range(n)]
        for agent in env.possible_agents:
            assert env.action_space(agent).n == NUM_ACTIONS
            space = env.observation_space(agent)
            shapes.add((space["observation"].shape, space["action_mask"].shape, space["action_mask"].dtype))
    assert len(shapes) == 1


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_mask_is_zero_exactly_for_agents_not_asked(num_players, board):
    env = fifth_avenue_v0.env(num_players=num_players, board=board)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(400):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        masks = {a: env.observe(a)["action_mask"] for a in env.agents}
        for a, mask in masks.items():
            if a == env.agent_selection:
                assert mask.sum() >= 1
                assert sorted(np.flatnonzero(mask).tolist()) == env.unwrapped.game.legal_actions()
            else:
                assert mask.sum() == 0
        legal = np.flatnonzero(masks[env.agent_selection])
        env.step(int(legal[rng.integers(len(legal))]))


def test_same_seed_and_actions_give_the_same_game_in_every_detail():
    first = fifth_avenue_v0.env(num_players=3)
    first.reset(seed=11)
    actions = play_random(first, seed=5)
    second = fifth_avenue_v0.env(num_players=3)
    second.reset(seed=11)
    for action in actions:
        second.step(action)
    assert first.unwrapped.game.to_dict() == second.unwrapped.game.to_dict()
    fresh = fifth_avenue_v0.env(num_players=3)
    fresh.reset(seed=11)
    changed = fifth_avenue_v0.env(num_players=3)
    changed.reset(seed=12)
    assert fresh.unwrapped.game.to_dict()["state"] != changed.unwrapped.game.to_dict()["state"]


def test_reset_without_seed_continues_the_generator():
    env = fifth_avenue_v0.env()
    env.reset(seed=1)
    a = env.unwrapped.game.to_dict()["state"]
    env.reset()
    b = env.unwrapped.game.to_dict()["state"]
    env.reset(seed=1)
    c = env.unwrapped.game.to_dict()["state"]
    assert a != b and a == c


@pytest.mark.parametrize("num_players,board", [(2, 5), (4, 6)])
def test_illegal_action_raises_names_it_and_leaves_game_untouched(num_players, board):
    env = fifth_avenue_v0.env(num_players=num_players, board=board)
    env.reset(seed=0)
    play_random(env, seed=1, max_steps=60)
    game = env.unwrapped.game
    before = json.dumps(game.to_dict(), sort_keys=True)
    agent = env.agent_selection
    legal = game.legal_actions()
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(IllegalActionError) as err:
        env.step(illegal)
    message = str(err.value)
    assert str(illegal) in message and action_name(illegal, game.plot_color) in message
    assert all(str(a) in message for a in legal)
    for bad in (-1, NUM_ACTIONS, 10**9, "3", 2.5, None, True, np.array([legal[0]]), np.array(2.0)):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    assert json.dumps(game.to_dict(), sort_keys=True) == before
    assert env.agent_selection == agent
    env.step(np.array(legal[0]))  # still playable; a 0-d integer array (a policy's predict()) is an id
    assert json.dumps(game.to_dict(), sort_keys=True) != before


def test_act_rejects_the_wrong_agent_and_accepts_the_right_one():
    env = fifth_avenue_v0.env(num_players=3)
    env.reset(seed=0)
    asked = env.agent_selection
    other = next(a for a in env.agents if a != asked)
    legal = env.unwrapped.game.legal_actions()
    with pytest.raises(IllegalActionError, match=f"it is {asked}'s decision, not {other}'s"):
        env.act(other, legal[0])
    env.act(asked, legal[0])
    assert env.unwrapped.game.plot_height[legal[0] - 4] == 1


def test_using_the_env_before_reset_is_a_clear_error():
    from fifthave_env.env_common import EnvUsageError

    env = fifth_avenue_v0.env()
    for use in (lambda: env.observe("player_0"), env.last, lambda: env.last(observe=False), lambda: env.step(0)):
        with pytest.raises(EnvUsageError, match="call reset"):
            use()


def test_bad_configuration_is_a_clear_error():
    with pytest.raises(ValueError, match="num_players must be one of 2, 3, 4, got 5"):
        fifth_avenue_v0.env(num_players=5)
    with pytest.raises(ValueError, match="board must be one of 5, 6, got 7"):
        fifth_avenue_v0.env(board=7)
    with pytest.raises(ValueError, match="reward must be one of"):
        fifth_avenue_v0.env(reward="points")
    with pytest.raises(ValueError, match="each ring must hold every color exactly once"):
        fifth_avenue_v0.env(layout=[["gray"] * 5] * 7)


def test_truncation_after_max_turns_is_reported_as_truncation():
    env = fifth_avenue_v0.env(num_players=4, max_turns=3)
    env.reset(seed=0)
    play_random(env, seed=0, max_steps=10**6)
    game = env.unwrapped.game
    assert game.truncated and not game.terminated and game.turn == 3
    env2 = fifth_avenue_v0.env(num_players=4, max_turns=3)
    env2.reset(seed=0)
    rewards = {a: 0 for a in env2.possible_agents}
    truncs = {}
    for agent in env2.agent_iter():
        obs, reward, term, trunc, info = env2.last()
        rewards[agent] += reward
        if term or trunc:
            truncs[agent] = (term, trunc, info["truncated"])
            env2.step(None)
            continue
        env2.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert truncs == {a: (False, True, True) for a in env2.possible_agents}
    assert rewards == {a: 0 for a in env2.possible_agents}  # win_loss: a truncated game is a draw
    env3 = fifth_avenue_v0.env(num_players=4, max_turns=3, reward="win")
    env3.reset(seed=0)
    totals, info = collect_rewards(env3, seed=0)
    assert info["truncated"] and totals == {a: 0 for a in env3.possible_agents}  # win: nobody won


def collect_rewards(env, seed):
    totals = {a: 0 for a in env.possible_agents}
    rng = np.random.default_rng(seed)
    info = None
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return totals, info


@pytest.mark.parametrize("seed", range(4))
def test_reward_kinds(seed):
    env = fifth_avenue_v0.env(num_players=3)
    env.reset(seed=seed)
    totals, info = collect_rewards(env, seed)
    scores, winners = info["scores"], info["winners"]
    assert totals == {a: (1 if a in winners else -1) for a in env.possible_agents}

    env = fifth_avenue_v0.env(num_players=3, reward="win")
    env.reset(seed=seed)
    totals, info = collect_rewards(env, seed)
    assert info["scores"] == scores
    assert totals == {a: (1 if a in winners else 0) for a in env.possible_agents}

    env = fifth_avenue_v0.env(num_players=3, reward="vp_margin")
    env.reset(seed=seed)
    totals, info = collect_rewards(env, seed)
    assert info["scores"] == scores
    for i, a in enumerate(env.possible_agents):
        assert totals[a] == scores[i] - max(s for j, s in enumerate(scores) if j != i)

    env = fifth_avenue_v0.env(num_players=3, reward="score_delta")
    env.reset(seed=seed)
    totals, info = collect_rewards(env, seed)
    assert totals == {a: scores[i] for i, a in enumerate(env.possible_agents)}


def test_truncation_rewards_of_vp_margin_and_score_delta():
    """At truncation (R29, R38: no final scoring) vp_margin still pays the margin and score_delta
    the VP gained; win_loss pays 0 (test above)."""
    margins = set()
    for seed in range(6):
        env = fifth_avenue_v0.env(num_players=3, reward="vp_margin", max_turns=8)
        env.reset(seed=seed)
        totals, info = collect_rewards(env, seed)
        assert info["truncated"] and env.unwrapped.game.truncated
        scores = info["scores"]
        for i, a in enumerate(env.possible_agents):
            assert totals[a] == scores[i] - max(s for j, s in enumerate(scores) if j != i)
            margins.add(totals[a])
        env = fifth_avenue_v0.env(num_players=3, reward="score_delta", max_turns=8)
        env.reset(seed=seed)
        totals, info = collect_rewards(env, seed)
        assert info["truncated"] and info["scores"] == scores
        assert totals == {a: scores[i] for i, a in enumerate(env.possible_agents)}
    assert len(margins) > 1  # the margins are really computed (not all 0)


def test_shared_win_gives_every_sharer_plus_one():
    env = fifth_avenue_v0.env(num_players=3)
    env.reset(seed=0)
    game = env.unwrapped.game
    game.scores[:] = [10, 10, 4]
    for p in range(3):
        game.hands[p] = [0] * 18
    game.hands[0][15] = game.hands[1][16] = 1
    game.winners = leaders(game)
    game.terminated = True
    env._finish(game)
    assert game.winners == [0, 1]
    assert env.rewards == {"player_0": 1, "player_1": 1, "player_2": -1}


@pytest.mark.parametrize("num_players,board", [(2, 6), (3, 5), (4, 5)])
def test_pickled_env_continues_identically(num_players, board):
    env = fifth_avenue_v0.env(num_players=num_players, board=board)
    env.reset(seed=4)
    play_random(env, seed=4, max_steps=150)
    copy = pickle.loads(pickle.dumps(env))
    rng = np.random.default_rng(9)
    while not env.terminations[env.agent_selection] and not env.truncations[env.agent_selection]:
        obs, copy_obs = env.observe(env.agent_selection), copy.observe(copy.agent_selection)
        assert np.array_equal(obs["observation"], copy_obs["observation"])
        assert np.array_equal(obs["action_mask"], copy_obs["action_mask"])
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        copy.step(action)
    assert env.unwrapped.game.to_dict() == copy.unwrapped.game.to_dict()


PICKLE_IN_A_FRESH_PROCESS = """
import pickle, sys
from fifthave_env import fifth_avenue_v0
env = fifth_avenue_v0.env(num_players=2)
env.reset(seed=1)
env.last()  # the observer caches the board of this state
sys.stdout.buffer.write(pickle.dumps(env))
"""

PLAY_AFTER_UNPICKLING_IN_A_FRESH_PROCESS = """
import pickle, sys
import numpy as np
from fifthave_env.observation import Observer
env = pickle.loads(sys.stdin.buffer.read())
for _ in range(3):  # a starting skyscraper each: the board changes at every step
    seat = env.unwrapped.game.actor
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    for agent in env.agents:
        fresh = Observer(env.unwrapped.config, version=env.unwrapped.observation_layout).observe(
            env.unwrapped.game, env._agent_seat[agent])
        assert np.array_equal(env.observe(agent)["observation"], fresh), f"stale observation of {agent}"
print("ok")
"""


def test_observation_is_fresh_after_unpickling_in_another_process():
    """The observer's board cache must not take a board of the other process for this one."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    environ = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    pickled = subprocess.run([sys.executable, "-c", PICKLE_IN_A_FRESH_PROCESS], capture_output=True,
                             env=environ, check=True).stdout
    played = subprocess.run([sys.executable, "-c", PLAY_AFTER_UNPICKLING_IN_A_FRESH_PROCESS], input=pickled,
                            capture_output=True, env=environ)
    assert played.returncode == 0 and played.stdout.strip() == b"ok", played.stderr.decode()


def test_step_after_every_agent_stepped_out_is_an_illegal_action_error():
    env = fifth_avenue_v0.env(num_players=2, max_turns=1)
    env.reset(seed=0)
    play_random(env, seed=0)  # to the end, every agent stepping out with None
    assert env.agents == []
    before = env.unwrapped.game.to_dict()
    for action in (None, 0, 4.9):
        with pytest.raises(IllegalActionError, match="every agent has stepped out.*call reset"):
            env.step(action)
    assert env.unwrapped.game.to_dict() == before


def test_last_after_every_agent_stepped_out_is_a_clear_error():
    from fifthave_env.env_common import EnvUsageError

    env = fifth_avenue_v0.env(num_players=3)
    env.reset(seed=0)
    play_random(env, seed=0)
    assert env.agents == []
    for observe in (True, False):
        with pytest.raises(EnvUsageError, match="every agent has stepped out: call reset"):
            env.last(observe)
    env.reset(seed=0)
    assert env.last()[0]["action_mask"].any()  # a new game answers again


@pytest.mark.parametrize("num_players,board", CONFIGS)
def test_saved_game_restores_to_an_identical_game_hidden_parts_included(num_players, board):
    game = Game(GameConfig(num_players=num_players, board=board), seed=21)
    rng = np.random.default_rng(21)
    for _ in range(300):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    saved = json.loads(json.dumps(game.to_dict()))
    restored = Game.from_dict(saved)
    clone = game.clone()
    assert restored.to_dict() == game.to_dict() == clone.to_dict()
    # the three continue identically, random draws included (Alea, black shuffles, Central Park)
    for g in (game, restored, clone):
        r = np.random.default_rng(5)
        while not g.is_over:
            legal = g.legal_actions()
            g.apply(legal[r.integers(len(legal))])
    assert restored.to_dict() == game.to_dict() == clone.to_dict()


def test_clone_is_independent():
    game = Game(GameConfig(num_players=4), seed=2)
    clone = game.clone()
    clone.apply(clone.legal_actions()[0])
    assert game.to_dict() != clone.to_dict()
    assert sum(game.plot_height) == 0 and sum(clone.plot_height) == 1


def test_unknown_saved_format_is_rejected():
    data = Game(GameConfig(), seed=0).to_dict()
    data["format"] = 99
    with pytest.raises(ValueError, match="unknown saved-game format 99"):
        Game.from_dict(data)


def test_action_names_round_trip_and_are_unique():
    game = Game(GameConfig(num_players=4, board=6), seed=0)
    names = [action_name(a, game.plot_color) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    for a, name in enumerate(names):
        assert action_from_name(name, game.plot_color) == a
    assert action_name(140) == "confirm bid" and action_name(141) == "pass"
    assert action_name(97 + 9 + 3) == "move beige -> Times Square"
    with pytest.raises(ValueError, match="no action is named"):
        action_from_name("dance")


def test_ansi_render_shows_only_the_asked_seats_hand():
    env = fifth_avenue_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    play_random(env, seed=0, max_steps=40)
    text = env.render()
    seat = env.unwrapped.game.actor
    assert f"hand of seat {seat}:" in text
    assert sum(f"hand of seat {p}:" in text for p in range(3)) == 1
    assert "34th St West" in text and "VP" in text


def test_ansi_render_shows_the_auction_in_progress():
    env = fifth_avenue_v0.env(num_players=4, render_mode="ansi")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    game = env.unwrapped.game
    while game.decision != BID_DECISION:
        legal = game.legal_actions()
        env.step(legal[rng.integers(len(legal))])
    assert "AUCTION in" in env.render()


def test_render_without_mode_is_a_clear_error():
    env = fifth_avenue_v0.env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="render_mode"):
        env.render()
