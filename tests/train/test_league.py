"""The league: PFSP weights follow the recorded win rates, seeded sampling, a league run, and advisers."""

import os

import numpy as np
import pytest
import torch

from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.gym_env import FifthAvenueEnv
from fifthave.train.checkpoint import export_policy, latest_checkpoint, read_meta
from fifthave.train.config import LeagueConfig, TrainConfig, config_from_dict
from fifthave.train.hints import AdvisedEnv, Advisers
from fifthave.train.league import League, pfsp_weights
from fifthave.train.opponents import LeagueOpponents, ScriptedOpponents
from fifthave.train.policy_agent import PolicyAgent
from fifthave.train.train import build_model, make_vec_env, train


def league_config(run_dir="unused", **league):
    settings = dict(anchors=["heuristic", "greedy", "random"], snapshot_every=0, prior_games=0, window=50,
                    min_weight=0.0)
    settings.update(league)
    return TrainConfig(seed=1, num_players=2, run_dir=str(run_dir), league=LeagueConfig(**settings))


def test_pfsp_weights_favour_the_opponents_the_learner_beats_least():
    weights = pfsp_weights([0.1, 0.5, 0.9], power=2.0, min_weight=0.0)
    assert np.allclose(weights, np.array([0.81, 0.25, 0.01]) / 1.07)
    assert np.allclose(pfsp_weights([0.1, 0.5, 0.9], power=0.0, min_weight=0.0), 1 / 3)
    floored = pfsp_weights([0.0, 1.0], power=2.0, min_weight=0.1)
    assert np.allclose(floored, [1 / 1.1, 0.1 / 1.1])


def test_league_weights_follow_recorded_results():
    league = League(league_config(), "unused")
    for _ in range(40):
        league.record_game(True, {"opponents": ["random"]})     # always beaten
        league.record_game(False, {"opponents": ["heuristic"]})  # never beaten
    for won in [True, False] * 20:
        league.record_game(won, {"opponents": ["greedy"]})
    assert league.win_rate("random") == 1.0 and league.win_rate("heuristic") == 0.0
    assert league.win_rate("greedy") == 0.5
    weights = dict(zip(league.labels(), league.weights()))
    assert weights["heuristic"] == pytest.approx(1 / 1.25) and weights["greedy"] == pytest.approx(0.25 / 1.25)
    assert weights["random"] == 0.0
    # The window forgets old games: 50 losses to random replace the wins.
    for _ in range(50):
        league.record_game(False, {"opponents": ["random"]})
    assert league.win_rate("random") == 0.0


def test_league_prior_shrinks_a_new_entry_toward_the_prior():
    league = League(league_config(prior_games=10, prior_win_rate=0.25), "unused")
    assert league.win_rate("greedy") == 0.25
    for _ in range(10):
        league.record_game(True, {"opponents": ["greedy"]})
    assert league.win_rate("greedy") == pytest.approx((10 + 2.5) / 20)


def test_league_sampling_is_seeded_and_follows_the_weights():
    sampler = LeagueOpponents(["heuristic", "greedy", "random"], ["heuristic", "greedy", "random"], [0.6, 0.3, 0.1])
    draws = [sampler(np.random.default_rng(7), 3) for _ in range(2)]
    assert [a.name for a in draws[0]] == [a.name for a in draws[1]]
    assert len({a.name for a in draws[0]}) == 1 and len({id(a) for a in draws[0]}) == 3  # one entry, 3 agents
    rng = np.random.default_rng(0)
    names = [sampler(rng, 1)[0].name for _ in range(3000)]
    shares = [names.count(label) / len(names) for label in ("heuristic", "greedy", "random")]
    assert np.allclose(shares, [0.6, 0.3, 0.1], atol=0.03)


def test_league_config_rejects_unknown_keys_and_anchors():
    with pytest.raises(ValueError, match="unknown league keys"):
        config_from_dict({"league": {"anchor": ["heuristic"]}})
    with pytest.raises(ValueError, match="league anchors"):
        LeagueConfig(anchors=["nobody"])
    with pytest.raises(ValueError, match="either selfplay or league"):
        config_from_dict({"league": {}, "selfplay": {}})


def test_league_run_snapshots_and_records_opponents(tmp_path):
    config = league_config(tmp_path / "league", snapshot_every=512, max_snapshots=1, reweight_every=1)
    config.total_timesteps, config.n_envs, config.workers, config.n_steps = 1024, 2, 0, 256
    config.batch_size, config.n_epochs, config.net_arch, config.eval_every = 128, 1, [32], 0
    config.eval_games, config.eval_opponents, config.checkpoint_every = 2, ["random"], 0
    result = train(config, show_progress=False)
    assert result.steps == 1024
    meta = read_meta(latest_checkpoint(tmp_path / "league"))
    assert [os.path.basename(p) for p in meta["pool"]] == ["snapshot_0000001024.zip"]  # max_snapshots=1
    assert os.path.exists(tmp_path / "league" / "pool" / "snapshot_0000000512.zip")

    # The published policy drops the optimizer state and plays like the checkpoint.
    published = tmp_path / "policy.zip"
    export_policy(latest_checkpoint(tmp_path / "league"), published)
    assert os.path.getsize(published) < os.path.getsize(latest_checkpoint(tmp_path / "league"))
    original, copy = PolicyAgent.load(latest_checkpoint(tmp_path / "league")), PolicyAgent.load(str(published))
    observation = np.random.default_rng(0).random(original.net.layers[0][0].shape[0]).astype(np.float32)
    assert np.array_equal(original.net.logits(observation), copy.net.logits(observation))


def test_advisers_append_the_scripted_choice_and_agree_with_the_agent():
    env = AdvisedEnv(FifthAvenueEnv(num_players=3), ["heuristic", "greedy"])
    observation, info = env.reset(seed=4)
    assert observation.shape == env.observation_space.shape == (FifthAvenueEnv().observation_space.shape[0]
                                                                + 2 * NUM_ACTIONS,)
    for _ in range(60):
        block = observation[-2 * NUM_ACTIONS:].reshape(2, NUM_ACTIONS)
        assert block.sum(axis=1).tolist() == [1.0, 1.0]
        advised = block.argmax(axis=1)
        assert info["action_mask"][advised].all()  # the advice is legal
        observation, _, terminated, truncated, info = env.step(int(advised[0]))
        if terminated or truncated:
            assert not observation[-2 * NUM_ACTIONS:].any()
            break


def test_advisers_drop_a_bid_plan_the_seat_did_not_follow():
    advisers = Advisers(["heuristic"])

    class Planner:
        dropped = 0

        def act(self, observation, mask):
            return 5

        def drop_plan(self):
            self.dropped += 1

    advisers.agents = [Planner()]
    advisers.features(np.zeros(3, np.float32), np.ones(NUM_ACTIONS, bool))
    advisers.record(5)
    assert advisers.agents[0].dropped == 0
    advisers.record(6)
    assert advisers.agents[0].dropped == 1


def test_advised_policy_starts_as_its_first_adviser_and_plays_the_same_in_numpy(tmp_path):
    config = TrainConfig(seed=5, num_players=4, advisers=["heuristic", "greedy"], opponents=["heuristic"],
                         n_envs=1, workers=0, n_steps=64, batch_size=64, net_arch=[32], run_dir=str(tmp_path))
    model = build_model(config, make_vec_env(config))
    agent = PolicyAgent(model.policy, deterministic=True, advisers=config.advisers)
    env = AdvisedEnv(FifthAvenueEnv(num_players=4, opponents=ScriptedOpponents(["heuristic"])), config.advisers)
    observation, info = env.reset(seed=1)
    followed = decisions = 0
    while True:
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.as_tensor(observation[None]),
                                                 action_masks=info["action_mask"][None])
        torch_probs = dist.distribution.probs[0].numpy()
        net = agent.net.logits(observation)
        legal = info["action_mask"]
        numpy_probs = np.exp(net[legal] - net[legal].max())
        assert np.allclose(numpy_probs / numpy_probs.sum(), torch_probs[legal], atol=1e-5)
        advised = int(observation[-2 * NUM_ACTIONS:-NUM_ACTIONS].argmax())
        followed += int(np.argmax(np.where(legal, net, -np.inf))) == advised
        decisions += 1
        observation, _, terminated, truncated, info = env.step(advised)
        if terminated or truncated:
            break
    assert followed == decisions > 50
