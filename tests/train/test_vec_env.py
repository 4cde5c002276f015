"""fifthave.train.vec_env: batched policy opponents choose what one-at-a-time ones choose; state survives a round trip."""

import json

import numpy as np
import pytest
from sb3_contrib import MaskablePPO

from fifthave_env.gym_env import FifthAvenueEnv
from fifthave.train.checkpoint import save_checkpoint
from fifthave.train.config import TrainConfig
from fifthave.train.opponents import PoolOpponents, ScriptedOpponents
from fifthave.train.policy_agent import ActorNet
from fifthave.train.vec_env import FifthAvenueVecEnv

ENV = dict(num_players=4, board=5)


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    """Two differently initialised small policies, saved as checkpoints."""
    directory = tmp_path_factory.mktemp("pool")
    paths = []
    for seed in (1, 2):
        model = MaskablePPO("MlpPolicy", FifthAvenueEnv(**ENV), seed=seed, device="cpu", n_steps=64,
                            policy_kwargs={"net_arch": [32]})
        paths.append(str(directory / f"p{seed}.zip"))
        save_checkpoint(model, paths[-1], TrainConfig(num_players=4, net_arch=[32]))
    return paths


def learner_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def play_vec(env, steps, seed=0):
    env.seed(100)
    observations = [env.reset()]
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, rewards, dones, infos = env.step(learner_actions(env.action_masks(), rng))
        observations.append(np.concatenate([obs, rewards[:, None], dones[:, None]], axis=1))
    return np.stack(observations[1:])


def play_one_at_a_time(opponents, n, steps, seed=0):
    envs = [FifthAvenueEnv(**ENV, opponents=opponents) for _ in range(n)]
    obs = [env.reset(seed=100 + i)[0] for i, env in enumerate(envs)]
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(steps):
        actions = learner_actions([env.action_masks() for env in envs], rng)
        row = []
        for env, action in zip(envs, actions):
            obs, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                obs, _ = env.reset()
            row.append(np.concatenate([obs, [reward, terminated or truncated]]))
        rows.append(row)
    return np.array(rows, dtype=np.float32)


def count_policy_batches(monkeypatch):
    """A list that gets the number of observations of every policy forward pass (1 for a single one)."""
    batch_sizes = []
    logits = ActorNet.logits_tracked

    def counting(net, observations, memories):
        batch_sizes.append(len(observations))
        return logits(net, observations, memories)
    monkeypatch.setattr(ActorNet, "logits_tracked", counting)
    return batch_sizes


def test_batched_policy_opponents_choose_as_one_at_a_time(pool, monkeypatch):
    opponents = PoolOpponents(["random"], pool, scripted_fraction=0.2, deterministic=True)
    batch_sizes = count_policy_batches(monkeypatch)
    env = FifthAvenueVecEnv(6, ENV, opponents, workers=0)
    batched = play_vec(env, 300)
    assert max(batch_sizes) >= 3  # the batches are real: several games answered by one pass
    expected = play_one_at_a_time(opponents, 6, 300)
    assert np.array_equal(batched, expected)
    assert batched[:, :, -1].sum() >= 3  # games ended and restarted on the way
    for settings in ({"workers": 2}, {"workers": 1, "local_shard": True}):  # (the second: a shard here)
        workers = FifthAvenueVecEnv(6, ENV, opponents, **settings)
        try:
            assert [type(shard).__name__ for shard in workers.shards][-1] == ("_Local" if len(settings) > 1
                                                                              else "_Worker")
            assert np.array_equal(play_vec(workers, 300), expected)
        finally:
            workers.close()


def test_state_round_trip_through_workers(pool):
    opponents = PoolOpponents(["random", "heuristic"], pool, scripted_fraction=0.5)
    rng = np.random.default_rng(3)
    first = FifthAvenueVecEnv(4, ENV, opponents, workers=2)
    second = FifthAvenueVecEnv(4, ENV, opponents, workers=2)
    try:
        last = play_vec(first, 150)[-1][:, :-2]
        restored = second.set_state(json.loads(json.dumps(first.get_state())))  # JSON data, as checkpoints hold
        assert np.array_equal(restored, last) and np.array_equal(second.action_masks(), first.action_masks())
        for _ in range(100):
            actions = learner_actions(first.action_masks(), rng)
            a, b = first.step(actions), second.step(actions)
            assert all(np.array_equal(x, y) for x, y in zip(a[:3], b[:3]))

        damaged = json.loads(json.dumps(first.get_state()))
        damaged[1]["moves"][-1] = (damaged[1]["moves"][-1] + 1) % 147
        with pytest.raises(RuntimeError, match="does not replay|illegal|not legal|IllegalAction"):
            second.set_state(damaged)
        hostile = json.loads(json.dumps(first.get_state()))
        hostile[0]["opponents"] = __import__("base64").b64encode(
            b"cos\nsystem\n(S'echo hacked'\ntR.").decode()  # a pickle, as checkpoints once held
        with pytest.raises(RuntimeError, match=r"games\[0\].opponents must be a dict"):
            second.set_state(hostile)
    finally:
        first.close()
        second.close()


def test_a_restored_shard_tracks_its_policy_opponents_first_layers_as_the_original_did(pool):
    """The first-layer memories (``ActorNet.logits_tracked``) of a resumed run are the original's, bit for bit:
    its rounding goes on as if the run had not stopped."""
    opponents = PoolOpponents(["random"], pool, scripted_fraction=0.2)
    first, second = FifthAvenueVecEnv(4, ENV, opponents, workers=0), FifthAvenueVecEnv(4, ENV, opponents, workers=0)
    play_vec(first, 120)
    second.set_state(json.loads(json.dumps(first.get_state())))
    original, restored = first.shards[0].shard._memories, second.shards[0].shard._memories
    assert len(original) >= 4 and original.keys() == restored.keys()
    for key, (agent, (observation, product)) in original.items():
        assert restored[key][0].batch_net is agent.batch_net
        assert np.array_equal(restored[key][1][0], observation) and np.array_equal(restored[key][1][1], product)


def test_advisers_in_the_worker_processes_match_the_advised_env_and_survive_a_round_trip():
    """``advisers``: the learner's observations end with the advice block, as ``fifthave.train.hints.AdvisedEnv``
    writes it one game at a time, also from the worker processes and after ``set_state``."""
    from fifthave.train.hints import AdvisedEnv
    from fifthave.train.opponents import ScriptedOpponents

    opponents = ScriptedOpponents(["heuristic", "random"])
    env = FifthAvenueVecEnv(3, ENV, opponents, workers=0, advisers=["heuristic"])
    assert env.observation_space.shape[0] == FifthAvenueEnv(**ENV).observation_space.shape[0] + 147
    batched = play_vec(env, 200)
    one = []
    for i in range(3):
        single = AdvisedEnv(FifthAvenueEnv(**ENV, opponents=opponents), ["heuristic"])
        single.reset(seed=100 + i)
        one.append(single)
    rng = np.random.default_rng(0)
    for t in range(200):
        actions = learner_actions([e.action_masks() for e in one], rng)
        for i, (single, action) in enumerate(zip(one, actions)):
            obs, reward, terminated, truncated, _ = single.step(action)
            if terminated or truncated:
                obs, _ = single.reset()
            assert np.array_equal(batched[t, i, :-2], obs), (t, i)
    assert batched[:, :, -1].sum() >= 1  # a game ended and restarted on the way

    rng = np.random.default_rng(3)
    first = FifthAvenueVecEnv(4, ENV, opponents, workers=2, advisers=["heuristic"])
    second = FifthAvenueVecEnv(4, ENV, opponents, workers=2, advisers=["heuristic"])
    try:
        last = play_vec(first, 120)[-1][:, :-2]
        restored = second.set_state(json.loads(json.dumps(first.get_state())))
        assert np.array_equal(restored, last)
        for _ in range(100):
            actions = learner_actions(first.action_masks(), rng)
            a, b = first.step(actions), second.step(actions)
            assert all(np.array_equal(x, y) for x, y in zip(a[:3], b[:3]))
    finally:
        first.close()
        second.close()


def test_games_of_one_opponent_list_play_their_own_copies_which_still_share_a_network(pool, monkeypatch):
    """A list of agents (the same objects for every game of the shard) is copied per game, so each game
    plays as with agents of its own; copies of a policy agent share its network, so they still batch."""
    from fifthave.agents import HeuristicAgent
    from fifthave.train.policy_agent import PolicyFactory

    def fresh_agents(*_):
        return [PolicyFactory(pool[0])(), PolicyFactory(pool[0])(), HeuristicAgent()]

    batch_sizes = count_policy_batches(monkeypatch)
    batched = play_vec(FifthAvenueVecEnv(3, ENV, fresh_agents(), workers=0), 200)
    assert max(batch_sizes) >= 2
    assert np.array_equal(batched, play_one_at_a_time(fresh_agents, 3, 200))  # each env builds its own


def pickled_call(module, name, *arguments):
    """A protocol-4 pickle (base64) that calls ``module.name(*arguments)`` when unpickled; ``name`` may be dotted."""
    def text(value):
        data = value.encode() if isinstance(value, str) else value
        return (b"\x8c" if isinstance(value, str) else b"C") + bytes([len(data)]) + data
    body = text(module) + text(name) + b"\x93(" + b"".join(text(a) for a in arguments) + b"tR."
    return __import__("base64").b64encode(b"\x80\x04" + body).decode()


def test_saved_games_with_pickled_or_malformed_samplers_are_refused_untouched_and_run_no_code(tmp_path):
    marker = tmp_path / "PWNED"
    env = FifthAvenueVecEnv(2, ENV, ScriptedOpponents(["random"]), workers=0)
    play_vec(env, 20)
    before = env.get_state()
    hostile = [
        # what the audit found the old allow-list let through: a dotted name, and any function of our modules
        pickled_call("fifthave.train.checkpoint", "os.system", f"touch {marker}"),
        pickled_call("fifthave.train.checkpoint", "atomic_write_bytes", str(marker), b"hello"),
        {"kind": "os.system", "names": ["random"]},
        {"kind": "scripted", "names": ["random"], "factory": "os.system"},
        {"kind": "scripted", "names": ["policy:/tmp/x.zip"]},
        {"kind": "scripted", "names": "random"},
        {"kind": "pool", "scripted_names": ["random"], "pool_paths": ["/etc/passwd"], "scripted_fraction": 0.5,
         "deterministic": False},
        {"kind": "pool", "scripted_names": ["random"], "pool_paths": [], "scripted_fraction": float("nan"),
         "deterministic": False},
        {"kind": "league", "labels": ["random", "greedy"], "specs": ["random", "greedy"], "weights": [0.9, 0.9]},
        {"kind": "league", "labels": ["snapshot@5"], "specs": ["heuristic"], "weights": [1.0]},
    ]
    messages = [" must be a dict"] * 2 + [
        ".kind must be one of 'scripted', 'pool', 'league'", " has the unknown key\\(s\\) 'factory'",
        ".names must be a non-empty list of agent names", ".names must be a non-empty list of agent names",
        ".pool_paths\\[0\\] must be a checkpoint path", ".scripted_fraction must be a finite number",
        ": a league needs at least one entry and weights >= 0 that sum to 1", ".specs\\[0\\] must be a checkpoint path"]
    try:
        for data, message in zip(hostile, messages):
            for key in ("opponents", "current_opponents"):
                saved = json.loads(json.dumps(before))
                saved[1][key] = data
                with pytest.raises(ValueError, match=f"games\\[1\\]\\.{key}{message}"):
                    env.set_state(saved)
                assert env.get_state() == before  # a refusal changes no game
        assert not marker.exists()
        broken = json.loads(json.dumps(before))
        broken[0]["generator"]["state"]["state"] = "x"
        with pytest.raises(ValueError, match="not the state of a PCG64 generator"):
            env.set_state(broken)
        broken = json.loads(json.dumps(before))
        broken[0]["moves"] = [1, "2"]
        with pytest.raises(ValueError, match="games\\[0\\].moves\\[1\\] must be an int"):
            env.set_state(broken)
        assert env.get_state() == before
    finally:
        env.close()
