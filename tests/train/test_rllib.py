"""RLlib and Ray: the MultiAgentEnv adapter, masked modules, a tiny self-play run, tournaments on Ray.

Tests that need Ray skip when it is not installed (the ``distributed`` extra; scripts/setup.sh installs it).
One local Ray (2 CPUs) is shared by the module's tests (and, under xdist, they run in one worker).
"""

import importlib.util
import json
import os
import sys

import numpy as np
import pytest

from fifthave.agents.tournament import agent_factory, main as tournament_main, run_tournament
from fifthave_env.env_common import end_reward
from fifthave_env.observation import OBS_SIZES

HAVE_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAVE_RAY, reason="Ray is not installed (pip install 'fifthave[distributed]')")


@pytest.fixture(scope="module")
def ray_session():
    from fifthave.agents.ray_backend import init_ray

    ray = init_ray(num_cpus=2)
    yield ray
    ray.shutdown()


def _play(env, seed, rng):
    """A whole game with random legal actions; each agent's summed rewards and RLlib's episode returns."""
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    observations, infos = env.reset(seed=seed)
    episode = MultiAgentEpisode(observation_space=env.observation_spaces, action_space=env.action_spaces)
    episode.add_env_reset(observations=observations, infos=infos)
    sums = dict.fromkeys(env.agents, 0.0)
    while True:
        assert len(observations) == 1
        (agent, observation), = observations.items()
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observations, rewards, terminateds, truncateds, infos = env.step({agent: action})
        episode.add_env_step(observations=observations, actions={agent: action}, rewards=rewards, infos=infos,
                             terminateds=terminateds, truncateds=truncateds)
        for name, reward in rewards.items():
            sums[name] += reward
        if terminateds["__all__"] or truncateds["__all__"]:
            assert set(observations) == set(env.agents)  # every RLlib seat sees the end
            returns = {name: e.get_return() for name, e in episode.agent_episodes.items()}
            return sums, returns


# ---- the env adapter ------------------------------------------------------------------------

@needs_ray
@pytest.mark.parametrize("config", [{}, {"opponents": ["random", "heuristic"], "scripted_fraction": 0.5},
                                    {"num_players": 2, "board": 6}])
def test_rllib_env_check_passes_for_many_sampled_actions(config):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    illegal = 0
    for seed in range(40):
        env = FifthAvenueMultiAgentEnv(config)
        for space in env.action_spaces.values():
            space.seed(seed)
        check_multiagent_environments(env)  # reset(seed=42), then an unmasked sampled action
        observations, _ = env.reset(seed=seed)
        (agent, observation), = observations.items()
        action = env.action_spaces[agent].sample()
        after, rewards, terminateds, _, infos = env.step({agent: action})
        if not observation["action_mask"][action]:
            illegal += 1
            assert infos[agent]["illegal_action"] == action and rewards == {agent: 0.0}
            assert set(after) == {agent} and not terminateds["__all__"]
            np.testing.assert_array_equal(after[agent]["observations"], observation["observations"])
    assert illegal > 20  # the check does meet illegal actions


@needs_ray
def test_strict_env_raises_on_an_illegal_action_and_keeps_the_game():
    from fifthave_env.engine.game import IllegalActionError
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    env = FifthAvenueMultiAgentEnv({"strict": True})
    observations, _ = env.reset(seed=0)
    (agent, observation), = observations.items()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    before = env.aec.state_dict()
    with pytest.raises(IllegalActionError, match="legal ids"):
        env.step({agent: illegal})
    assert env.aec.state_dict() == before


@needs_ray
@pytest.mark.parametrize("reward", ["win_loss", "win", "vp_margin", "score_delta"])
@pytest.mark.parametrize("config", [{"num_players": 4}, {"num_players": 3, "opponents": ["greedy", "random"],
                                                          "scripted_fraction": 0.6, "reward_scale": 0.02}])
def test_each_seat_collects_exactly_its_game_outcome(reward, config):
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    env = FifthAvenueMultiAgentEnv(dict(config, reward=reward))
    rng = np.random.default_rng(1)
    scripted_games = 0
    for seed in range(3):
        sums, returns = _play(env, seed, rng)
        game = env.aec.game
        scripted_games += bool(env.scripted)
        for agent, seat in env.seat_of.items():
            expected = game.scores[seat] if reward == "score_delta" else end_reward(reward, game, seat)
            expected *= config.get("reward_scale", 1.0)
            assert sums[agent] == pytest.approx(expected)
            assert returns[agent] == pytest.approx(expected)  # also as RLlib's episodes count it
    if "opponents" in config:
        assert scripted_games > 0 and env.agents[0] == "learner"


def _asked(env, seed=0):
    """``env`` reset with ``seed``: the agent asked and one of its legal ids."""
    observations, _ = env.reset(seed=seed)
    (agent, observation), = observations.items()
    return agent, int(np.flatnonzero(observation["action_mask"])[0])


@needs_ray
@pytest.mark.parametrize("make_bad", [lambda legal: legal + 0.9, lambda legal: np.float32(legal), str,
                                      lambda legal: True, lambda legal: np.array([legal]), lambda legal: None,
                                      lambda legal: 147, lambda legal: -1],
                         ids=["4.9", "float32", "str", "bool", "shape-(1,)", "None", "147", "-1"])
def test_rllib_env_refuses_what_is_no_action_id_as_the_aec_env_does_and_changes_nothing(make_bad):
    from fifthave_env import fifth_avenue_v0
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    aec = fifth_avenue_v0.env()
    aec.reset(seed=0)
    legal = int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0])
    with pytest.raises(ValueError) as aec_error:  # IllegalActionError, or ActionTypeError for a wrong type
        aec.step(make_bad(legal))
    env = FifthAvenueMultiAgentEnv()
    agent, legal = _asked(env)
    before = env.aec.state_dict()
    with pytest.raises(type(aec_error.value), match="an action is an int id in \\[0, 147\\)"):
        env.step({agent: make_bad(legal)})
    assert env.aec.state_dict() == before
    env.step({agent: np.array(legal)})  # numpy integers and 0-d integer arrays are ids (what modules output)


@needs_ray
def test_rllib_env_misuse_raises_the_aec_envs_errors():
    from fifthave_env.engine.game import IllegalActionError
    from fifthave_env.env_common import EnvUsageError
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    env = FifthAvenueMultiAgentEnv({"num_players": 2})
    with pytest.raises(EnvUsageError, match="reset"):
        env.step({"player_0": 4})
    agent, legal = _asked(env)
    other = "player_1" if agent == "player_0" else "player_0"
    with pytest.raises(IllegalActionError, match=f"it is {agent}'s decision"):
        env.step({other: legal})
    with pytest.raises(IllegalActionError, match=f"it is {agent}'s decision"):
        env.step({agent: legal, other: legal})
    with pytest.raises(TypeError, match="action_dict must be a dict"):
        env.step(legal)
    _play(env, 1, np.random.default_rng(0))
    with pytest.raises(EnvUsageError, match="episode is over.*reset"):
        env.step({agent: legal})


@needs_ray
def test_rllib_env_observation_layout_picks_the_layout():
    from fifthave_env import fifth_avenue_v0, fifth_avenue_v1
    from fifthave_env.engine.checks import InvalidValueError
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    for config, aec in (({"observation_layout": 0}, fifth_avenue_v0), ({}, fifth_avenue_v1)):
        env = FifthAvenueMultiAgentEnv(dict(config, num_players=3))
        expected = aec.env(num_players=3)
        assert env.observation_spaces["player_0"]["observations"].shape == \
            expected.observation_space("player_0")["observation"].shape == ((1176,) if config else (1409,))
        observations, _ = env.reset(seed=5)
        expected.reset(seed=int(np.random.default_rng(5).integers(2**63)))  # the game the adapter deals
        (agent, observation), = observations.items()
        np.testing.assert_array_equal(observation["observations"], expected.observe(agent)["observation"])
    with pytest.raises(InvalidValueError, match="observation_layout must be one of 0, 1, got 2"):
        FifthAvenueMultiAgentEnv({"observation_layout": 2})


RESULTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "results", "training")


@needs_ray
@pytest.mark.parametrize("version, opponent", [(0, "values:" + os.path.join(RESULTS, "values", "values.npz")),
                                               (1, "policy-4p"),
                                               (1, "search:2:1")])
def test_rllib_env_scripted_opponents_read_their_layout_and_a_search_agent_searches(version, opponent):
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    env = FifthAvenueMultiAgentEnv({"num_players": 4, "observation_layout": version, "opponents": [opponent],
                                    "scripted_fraction": 1.0})
    observations, _ = env.reset(seed=0)
    assert len(env.scripted) == 3
    for _ in range(60):  # a trained network fed the other layout raises (a size mismatch)
        (agent, observation), = observations.items()
        observations, _, terminateds, _, _ = env.step({agent: int(np.flatnonzero(observation["action_mask"])[0])})
        assert not terminateds["__all__"]
    if opponent.startswith("search"):
        assert sum(agent.searched for agent in env.scripted.values()) > 0  # it got its seat's sampler


@needs_ray
def test_masking_module_samples_only_legal_actions_and_numpy_actor_matches_it():
    import torch
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from fifthave.train.policy_agent import ActorNet
    from fifthave.train.rllib.agent import actor_modules
    from fifthave.train.rllib.env import FifthAvenueMultiAgentEnv

    torch.manual_seed(0)
    env = FifthAvenueMultiAgentEnv()
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=env.observation_spaces["player_0"],
                          action_space=env.action_spaces["player_0"],
                          model_config=DefaultModelConfig(fcnet_hiddens=[32, 32], vf_share_layers=False)).build()
    observations, _ = env.reset(seed=4)
    (_, observation), = observations.items()
    batch = {"obs": {key: torch.as_tensor(np.repeat(value[None], 200, axis=0)) for key, value in observation.items()}}
    with torch.no_grad():
        logits = module.forward_exploration(batch)["action_dist_inputs"]
    sampled = torch.distributions.Categorical(logits=logits).sample().numpy()
    legal = np.flatnonzero(observation["action_mask"])
    assert set(sampled) <= set(legal) and len(legal) < 147
    net = ActorNet.from_modules(actor_modules(module))
    np.testing.assert_allclose(net.logits(observation["observations"])[legal], logits[0].numpy()[legal],
                               rtol=1e-4, atol=1e-4)


# ---- training and tournaments on Ray -----------------------------------------------------------

@needs_ray
@pytest.mark.xdist_group("ray")
@pytest.mark.parametrize("version", [0, 1])
def test_tiny_selfplay_run_writes_a_checkpoint_that_plays_a_tournament(ray_session, tmp_path, version):
    from fifthave.train.evaluate import read_eval_log
    from fifthave.train.rllib.config import RLlibConfig
    from fifthave.train.rllib.train import best_checkpoint_lines, checkpoint_dir, train

    config = RLlibConfig(total_env_steps=300, train_batch_size=100, batch_size=50, n_epochs=1,
                         net_arch=[16], snapshot_every=1, pool_size=2, checkpoint_every=2, eval_games=4,
                         eval_opponents=["random"], num_env_runners=1, run_dir=str(tmp_path / "run"),
                         observation_layout=version)
    lines = []
    directory, rows, _ = train(config, log=lines.append)
    agent = agent_factory(f"rllib:{directory}")()
    assert agent.observation_layout == version and agent.net.layers[0][0].shape[0] == OBS_SIZES[version]
    assert os.path.basename(directory) == "iter_000003"
    assert any("pool 2" in line for line in lines)  # snapshots joined, the oldest left
    assert rows and rows[0]["opponent"] == "random" and rows[0]["games"] == 4
    assert "env runners per node" in open(tmp_path / "run" / "cluster.txt").read()
    best_lines = best_checkpoint_lines(config)  # the checkpoint of the best row of eval.csv, which exists
    best = max(reversed(read_eval_log(config.run_dir)), key=lambda row: float(row["win_rate"]))
    best_dir = checkpoint_dir(config.run_dir, int(best["iteration"]))
    assert len(best_lines) == 2 and best_lines[0].endswith(best_dir) and os.path.isdir(best_dir)
    assert f"--agents rllib:{best_dir}:greedy random*3 --games 1000 --seed 2" in best_lines[1]  # evaluations used seed 0 + 1
    lineup = [("rllib", agent_factory(f"rllib:{directory}"))] + [("random", agent_factory("random"))] * 3
    result = run_tournament(lineup, games=4, seed=3)
    assert result.row("rllib")["seat_games"] == 4
    assert run_tournament(lineup, games=4, seed=3).table == result.table  # replays from its seed


@needs_ray
@pytest.mark.xdist_group("ray")
def test_resume_continues_a_run_from_its_checkpoint(ray_session, tmp_path, capsys):
    import torch

    from fifthave.train.rllib.agent import ACTOR_FILE, actor_modules
    from fifthave.train.rllib.config import RLlibConfig, load_rllib_config
    from fifthave.train.rllib.train import build, read_checkpoint_meta, train

    config = RLlibConfig(total_env_steps=200, train_batch_size=100, batch_size=50, n_epochs=1, net_arch=[16],
                         snapshot_every=1, pool_size=3, checkpoint_every=0, eval_games=0, num_env_runners=0,
                         run_dir=str(tmp_path / "run"))
    first, _, _ = train(config, log=lambda line: None)
    meta = read_checkpoint_meta(first)
    assert meta["iteration"] == 2 and meta["pool"] == ["main_v1", "main_v2"]
    assert os.path.isfile(os.path.join(first, "MANIFEST.sha256"))  # issue 39: resume checks it
    with pytest.raises(FileExistsError, match="holds the files of another run"):  # issue 40: never reused
        train(config, log=lambda line: None)

    algo, pool = build(load_rllib_config(base=meta["config"]), resume=first)
    try:  # the restored module is the checkpoint's, not a fresh initialisation
        saved = torch.load(os.path.join(first, ACTOR_FILE), weights_only=True)
        restored = [p for m in actor_modules(algo.get_module("main")) for p in m.state_dict().values()]
        assert all(torch.equal(a, b) for a, b in zip(saved.values(), restored)) and len(restored) == len(saved)
        assert algo.iteration == 2 and pool.ids == ["main_v1", "main_v2"]
        assert all(algo.get_module(module_id) is not None for module_id in pool.ids)
    finally:
        algo.stop()

    lines = []
    resumed = load_rllib_config(base=meta["config"], overrides={"total_env_steps": 400})
    last, _, _ = train(resumed, log=lines.append, resume=first)
    assert os.path.basename(last) == "iter_000004"
    iterations = [line for line in lines if line.startswith("iter")]
    assert iterations[0].split()[1] == "3" and int(iterations[0].split()[4]) > meta["env_steps"]
    assert read_checkpoint_meta(last)["pool"] == ["main_v2", "main_v3", "main_v4"]
    with pytest.raises(ValueError, match="no RLlib algorithm state"):
        import shutil
        shutil.rmtree(os.path.join(first, "algorithm"))
        read_checkpoint_meta(first)


@needs_ray
@pytest.mark.xdist_group("ray")
def test_a_local_ray_listens_on_the_loopback_interface_only(ray_session):
    """issue 40: Ray's default binds its services (GCS, raylet, metrics) on every interface, unauthenticated."""
    import ipaddress

    import psutil

    ours = psutil.Process()
    pids = {p.pid for p in [ours, *ours.children(recursive=True)]}
    listening = [(c.laddr.ip, psutil.Process(c.pid).name()) for c in psutil.net_connections(kind="inet")
                 if c.status == psutil.CONN_LISTEN and c.pid in pids]
    assert any(name in ("gcs_server", "raylet") for _, name in listening)  # Ray's services are among them

    def loopback(ip):
        address = ipaddress.ip_address(ip.split("%")[0])
        return (getattr(address, "ipv4_mapped", None) or address).is_loopback
    assert all(loopback(ip) for ip, _ in listening), [entry for entry in listening if not loopback(entry[0])]
    assert ray_session.util.get_node_ip_address() == "127.0.0.1"
    from ray._private import ray_constants

    assert ray_constants.ENABLE_RAY_CLUSTER  # put back: this process can still join a cluster


@needs_ray
def test_snapshot_draws_repeat_for_a_seed_and_differ_between_env_runners(monkeypatch):
    from fifthave.train.rllib import env as rllib_env
    from fifthave.train.rllib.train import MAIN, SelfPlayMapping

    pool = ["main_v5", "main_v10"]

    def choices(runner, seed=0, mapping_pool=pool):
        monkeypatch.setattr(rllib_env, "_runner_index", runner)
        mapping = SelfPlayMapping(mapping_pool, pool_fraction=0.5, seed=seed)
        return [mapping(f"opponent_{1 + k % 3}", episode=None) for k in range(200)]

    first = choices(runner=1)
    assert choices(runner=1) == first  # RLlib's episode ids (random uuid4s) play no part
    assert choices(runner=2) != first and choices(runner=1, seed=1) != first
    assert choices(runner=1, mapping_pool=pool[::-1]) != first  # a new pool draws anew
    assert 70 < first.count(MAIN) < 130 and set(first) == {MAIN, *pool}  # pool_fraction 0.5, both snapshots
    assert SelfPlayMapping(pool, seed=0)("learner", episode=None) == MAIN


@needs_ray
@pytest.mark.xdist_group("ray")
def test_the_command_repeats_a_run_bit_for_bit(tmp_path):
    """Two runs of `fifthave train` of the same RLlib config and seed, each in a new process whose string hashes are
    salted (Python's default: the command starts itself again with PYTHONHASHSEED fixed), with a snapshot pool
    in play, end with the same weights."""
    import json
    import subprocess

    config = {"method": "rllib", "game": {"num_players": 2}, "evaluation": {"games": 0},
              "run": {"seed": 5, "workers": 1, "steps": 2000, "checkpoint_every": 0},
              "rllib": {"train_batch_size": 250, "batch_size": 125, "n_epochs": 1, "net_arch": [16],
                        "snapshot_every": 1, "pool_size": 2, "scripted_fraction": 0.0,
                        "num_envs_per_env_runner": 1}}  # games of a few hundred steps: new ones start while the pool is full
    (tmp_path / "config.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    hashes = []
    for run in ("a", "b"):
        out = subprocess.run([sys.executable, "-m", "fifthave.cli", "train", str(tmp_path / "config.json"), "--out",
                              str(tmp_path / run)], capture_output=True, text=True, env=env, timeout=600)
        assert out.returncode == 0, out.stderr[-2000:]
        assert "pool 2" in out.stdout  # the snapshots played
        hashes += [line.split()[-1] for line in out.stdout.splitlines() if line.startswith("final weights sha256")]
    assert len(hashes) == 2 and hashes[0] == hashes[1]


@needs_ray
@pytest.mark.xdist_group("ray")
def test_ray_backend_gives_the_local_table(ray_session):
    lineup = [(name, agent_factory(name)) for name in ("heuristic", "greedy", "random")]
    local = run_tournament(lineup, games=12, seed=7)
    on_ray = run_tournament(lineup, games=12, seed=7, backend="ray")
    assert on_ray.table == local.table
    timing = ("act_seconds", "act_calls", "node")
    assert [{k: v for k, v in r.items() if k not in timing} for r in on_ray.records] == \
        [{k: v for k, v in r.items() if k not in timing} for r in local.records]
    assert all(r["node"] for r in on_ray.records)


@needs_ray
def test_unreachable_address_says_what_to_check(capsys):
    from fifthave.agents.ray_backend import init_ray

    with pytest.raises(ConnectionError, match="ray start --head"):
        init_ray("127.0.0.1:9")
    with pytest.raises(SystemExit):
        tournament_main(["--agents", "random*2", "--games", "2", "--backend", "ray", "--address", "127.0.0.1:9"])
    assert "no Ray cluster answers at 127.0.0.1:9" in capsys.readouterr().err
    with pytest.raises(ValueError, match="HOST:PORT"):
        init_ray("my-head-node")


def test_missing_ray_says_how_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    from fifthave.agents.ray_backend import require_ray

    with pytest.raises(ImportError, match=r"fifthave\[distributed\]"):
        require_ray()
    with pytest.raises(SystemExit):
        tournament_main(["--agents", "random*2", "--games", "2", "--backend", "ray"])
    assert "fifthave[distributed]" in capsys.readouterr().err


def test_bad_rllib_config_and_checkpoint_are_refused(tmp_path):
    from fifthave.train.rllib.agent import RLlibFactory
    from fifthave.train.rllib.config import RLlibConfig, load_rllib_config

    with pytest.raises(ValueError, match="eval_games"):
        RLlibConfig(eval_games=10)
    with pytest.raises(ValueError, match="opponents"):
        RLlibConfig(opponents=["nobody"])
    with pytest.raises(ValueError, match="observation_layout must be one of 0, 1, got 2"):
        RLlibConfig(observation_layout=2)
    with pytest.raises(ValueError, match="unknown config keys"):
        load_rllib_config(None, {"learning_rat": 0.1})
    with pytest.raises(ValueError, match="not a fifthave.train.rllib checkpoint"):
        RLlibFactory(str(tmp_path))()


@needs_ray
def test_ppo_settings_reach_rllib_and_bad_ones_are_refused():
    from fifthave.train.rllib.config import RLlibConfig
    from fifthave.train.rllib.train import ppo_config

    config = ppo_config(RLlibConfig(vf_clip_param=3.0, use_kl_loss=True, batch_mode="complete_episodes", seed=7,
                                    num_envs_per_env_runner=2))
    assert (config.vf_clip_param, config.use_kl_loss, config.batch_mode) == (3.0, True, "complete_episodes")
    assert config.num_envs_per_env_runner == 2
    assert config.seed is None  # RLlib would replay the same seeded games at every complete-episodes sample
    defaults = ppo_config(RLlibConfig(seed=7))
    assert (defaults.vf_clip_param, defaults.use_kl_loss, defaults.batch_mode, defaults.seed) == (
        10.0, False, "truncate_episodes", 7)
    # the rllib section names PPO's settings as the ppo section does; ppo_config translates them to RLlib's
    named = ppo_config(RLlibConfig(batch_size=250, n_epochs=3, learning_rate=0.002, gae_lambda=0.8, clip_range=0.3,
                                   ent_coef=0.05, vf_coef=0.25, max_grad_norm=0.7))
    assert (named.minibatch_size, named.num_epochs, named.lr, named.lambda_, named.clip_param, named.entropy_coeff,
            named.vf_loss_coeff, named.grad_clip) == (250, 3, 0.002, 0.8, 0.3, 0.05, 0.25, 0.7)
    with pytest.raises(ValueError, match="vf_clip_param must be a number above 0"):
        RLlibConfig(vf_clip_param=0)
    with pytest.raises(ValueError, match="batch_mode must be"):
        RLlibConfig(batch_mode="whole_games")


@needs_ray
def test_fifthave_train_gives_the_rllib_trainer_the_config_and_the_cluster(monkeypatch, tmp_path):
    from fifthave.train import run
    from fifthave.train.rllib import agent as rllib_agent
    from fifthave.train.rllib import train as rllib_train

    seen = []
    monkeypatch.setattr(rllib_train, "train", lambda config, **kwargs: seen.append((config, kwargs)) or ("CKPT", [], 1.0))
    monkeypatch.setattr(rllib_train, "best_checkpoint_lines", lambda config: [])
    monkeypatch.setattr(rllib_agent, "actor_weights_hash", lambda directory: "HASH")
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.7:6379")
    path = tmp_path / "rllib.json"
    path.write_text(json.dumps({"method": "rllib", "rllib": {}}))
    assert run.main([str(path), "--out", str(tmp_path / "run"), "--set", "rllib.num_envs_per_env_runner=2",
                     "--set", "run.workers=3", "--set", "run.seed=5", "--set", "run.steps=800",
                     "--set", "rllib.gae_lambda=0.9"]) == 0
    (config, kwargs), = seen
    assert (config.num_envs_per_env_runner, config.num_env_runners, config.seed, config.total_env_steps,
            config.gae_lambda, config.run_dir) == (2, 3, 5, 800, 0.9, str(tmp_path / "run"))
    assert kwargs["address"] == "10.0.0.7:6379" and kwargs["resume"] is None


def test_default_config_trains_as_the_committed_run_that_learned():
    """The RLlib defaults train as the committed run whose table the README quotes: the budget, evaluation, run
    directory and env runners may differ, nothing that shapes learning but the observation layout (new runs read
    layout 1, issue 34; the committed run read layout 0, which its config says)."""
    from fifthave.train.config import load_run_config
    from fifthave.train.rllib.config import RLlibConfig

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "train",
                        "configs", "rllib_vs_random.json")
    committed = load_run_config(path).trainer_config("x").to_dict()
    assert committed["observation_layout"] == 0
    defaults = RLlibConfig().to_dict()
    run_only = {"total_env_steps", "max_seconds", "num_env_runners", "checkpoint_every", "eval_games",
                "eval_opponents", "run_dir", "observation_layout"}
    differing = {name: (defaults[name], value) for name, value in committed.items()
                 if name not in run_only and defaults[name] != value}
    assert not differing
