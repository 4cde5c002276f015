"""Training smoke tests: a few thousand steps, checkpoints, loading as an agent, resume, self-play, configs."""

import csv
import dataclasses
import json
import os
import re

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave_env.gym_env import FifthAvenueEnv
from fifthave_env.observation import OBS_SIZES
from fifthave.train import checkpoint as ckpt
from fifthave.train.config import BCConfig, SelfPlayConfig, TrainConfig, load_config, translate_legacy
from fifthave.train.evaluate import best_evaluation, best_evaluation_lines, console_prefix, eval_seed, how_to_use
from fifthave.train.publish import expected_seconds, scale_sets
from fifthave.train.report import cloning_games, write_report
from fifthave.train.policy_agent import PolicyAgent, PolicyFactory
from fifthave.train.search_value import network_search_factory
from fifthave.train.run import main
from fifthave.train.train import build_model, make_vec_env, train


def tiny_config(run_dir, **changes):
    settings = dict(seed=3, num_players=2, opponents=["random"], eval_opponents=["random"], total_timesteps=1024,
                    n_envs=2, workers=0, n_steps=256, batch_size=128, n_epochs=1, net_arch=[32],
                    eval_every=512, eval_games=4, checkpoint_every=512, run_dir=str(run_dir))
    settings.update(changes)
    return TrainConfig(**settings)


def eval_rows(run_dir):
    with open(os.path.join(run_dir, "eval.csv"), newline="") as f:
        return list(csv.DictReader(f))


def test_train_save_load_evaluate_resume(tmp_path, capsys):
    run_dir = tmp_path / "run"
    result = train(tiny_config(run_dir), show_progress=False)
    assert result.steps == 1024 and result.steps_per_second > 0
    latest = ckpt.latest_checkpoint(run_dir)
    assert os.path.basename(latest) == "ckpt_0000001024.zip"
    assert os.path.exists(ckpt.checkpoint_path(run_dir, 512))
    meta = ckpt.read_meta(latest)
    assert meta["num_timesteps"] == 1024 and meta["config"]["seed"] == 3
    assert meta["versions"]["env_version"] == 1 and meta["versions"]["fifthave"]  # layout 1: the default
    assert [int(r["timesteps"]) for r in eval_rows(run_dir)] == [0, 512, 1024]
    # every evaluation's games, with their moves, for the web viewer (tests/train/test_evaluate_games.py)
    assert sorted(os.listdir(run_dir / "eval_games")) == [f"step_{t:09d}_vs_random.json" for t in (0, 512, 1024)]

    # The checkpoint plays as an agent in the tournament, with the probabilities of the torch policy.
    agent = PolicyAgent.load(latest)
    env = FifthAvenueEnv(num_players=2)
    observation, info = env.reset(seed=0)
    model = MaskablePPO.load(latest, device="cpu")
    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(observation[None]),
                                             action_masks=info["action_mask"][None])
    assert np.allclose(agent.action_probabilities(observation, info["action_mask"]),
                       dist.distribution.probs[0].numpy(), atol=1e-5)
    tournament = run_tournament([("ppo", PolicyFactory(latest)), ("random", agent_factory("random"))],
                                games=2, seed=0)
    assert tournament.row("ppo")["seat_games"] == 2
    agent_file = latest.removesuffix(".zip") + ".npz"  # written beside every checkpoint: what commands play
    by_name = agent_factory(f"policy:{agent_file}")()  # how the tournament and play commands name it
    by_name.reset(load_config(None, {"num_players": 2}), 1, np.random.default_rng(0))
    assert by_name.act(observation, info["action_mask"]) in np.flatnonzero(info["action_mask"])
    assert np.array_equal(by_name.action_probabilities(observation, info["action_mask"]),
                          agent.action_probabilities(observation, info["action_mask"]))
    assert not by_name.deterministic and agent_factory(f"policy:{agent_file}:greedy")().deterministic
    greedy = agent_factory(f"policy:{agent_file}:greedy")()
    greedy.reset(load_config(None, {"num_players": 2}), 1, np.random.default_rng(0))
    probabilities = greedy.action_probabilities(observation, info["action_mask"])
    assert greedy.act(observation, info["action_mask"]) == int(np.argmax(probabilities))
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.reset(load_config(None, {"num_players": 4}), 0, np.random.default_rng(0))

    # A new run can start from the checkpoint's policy.
    warm = build_model(tiny_config(tmp_path / "warm", init_from=latest), make_vec_env(tiny_config(tmp_path)))
    assert all(torch.equal(a, b) for a, b in zip(warm.policy.state_dict().values(),
                                                  model.policy.state_dict().values()))

    # A second start on the same directory is refused; --resume continues to a larger budget.
    with pytest.raises(FileExistsError, match="--resume"):
        train(tiny_config(run_dir), show_progress=False)
    with pytest.raises(SystemExit):  # a flag that would change the run is refused, not ignored
        main(["--resume", str(run_dir), "--set", "game.observation_layout=0"])
    assert "--set game.observation_layout would change it" in capsys.readouterr().err
    assert main(["--resume", str(run_dir), "--set", "run.steps=1536", "--no-progress"]) == 0
    assert ckpt.read_meta(ckpt.latest_checkpoint(run_dir))["num_timesteps"] == 1536
    assert [int(r["timesteps"]) for r in eval_rows(run_dir)] == [0, 512, 1024, 1536]
    # the end of the run names the checkpoint of its best evaluation and how to play it on fresh deals
    best = best_evaluation(eval_rows(run_dir), "random")
    out = capsys.readouterr().out
    assert (f"best evaluation vs random: step {best['timesteps']}, win rate {float(best['win_rate']):.3f}" in out
            and ckpt.checkpoint_path(run_dir, int(best["timesteps"])) in out)
    assert f"random*1 --games 1000 --seed {eval_seed(tiny_config(run_dir)) + 1}" in out


def test_the_best_evaluation_is_the_highest_win_rate_of_the_weights_saved_under_its_step():
    def row(step, opponent, win_rate):
        return {"timesteps": str(step), "opponent": opponent, "win_rate": str(win_rate)}

    rows = [row(0, "random", 0.1), row(0, "heuristic", 0.0), row(100, "random", 0.9), row(100, "heuristic", 0.2),
            row(200, "random", 0.5), row(200, "heuristic", 0.3)]
    assert best_evaluation(rows, "random")["timesteps"] == "100"
    assert best_evaluation(rows, "heuristic")["timesteps"] == "200"  # each opponent has its own best
    assert best_evaluation(rows, "greedy") is None
    assert best_evaluation(rows + [row(300, "random", 0.9)], "random")["timesteps"] == "300"  # a tie: more training
    # a run resumed from step 0 evaluated steps 100 and 200 again: their last rows are the weights saved there
    resumed = rows + [row(100, "random", 0.2), row(200, "random", 0.4)]
    assert best_evaluation(resumed, "random") == row(200, "random", 0.4)
    assert best_evaluation([{"iteration": "7", "opponent": "random", "win_rate": "0.5"}], "random",
                           step="iteration")["iteration"] == "7"
    full = {**row(100, "random", 0.9), "ci_low": "0.8", "ci_high": "0.95", "games": "200"}
    greedy, sampling = (best_evaluation_lines(full, "timesteps", "ck.zip", "policy", deterministic, 4, 5)
                        for deterministic in (True, False))
    assert greedy[0] == ("best evaluation vs random: step 100, win rate 0.900 [0.800, 0.950] over 200 games "
                         "(fair share 0.25): ck.zip")
    assert greedy[1].endswith("--agents policy:ck.npz:greedy random*3 --games 1000 --seed 6")  # as evaluated
    assert sampling[1].endswith("--agents policy:ck.npz random*3 --games 1000 --seed 6")  # its agent file
    # spelled as the run's other closing commands are (.venv/bin/fifthave tournament when installed there)
    assert f"fresh deals: {console_prefix()}fifthave tournament --agents" in greedy[1]
    assert how_to_use("ck.zip", 4)[2].split()[1:3] == [f"{console_prefix()}fifthave", "tournament"]


def test_selfplay_snapshots_join_the_pool_and_play(tmp_path):
    config = tiny_config(tmp_path / "sp", selfplay=SelfPlayConfig(snapshot_every=512, promote_window=10,
                                                                  scripted_fraction=0.0), eval_every=0)
    result = train(config, show_progress=False)
    pool = ckpt.read_meta(ckpt.latest_checkpoint(config.run_dir))["pool"]
    assert [os.path.basename(p) for p in pool][:1] == ["snapshot_0000000512.zip"]
    env = result.model.get_env()
    sampler = env.get_attr("opponent_spec")[0]
    assert sampler.pool_paths == pool
    opponents = sampler(np.random.default_rng(0), 1)
    assert isinstance(opponents[0], PolicyAgent)  # scripted_fraction 0: only past policies
    game_env = FifthAvenueEnv(num_players=2)  # and a past policy plays: a legal action for its seat
    observation, info = game_env.reset(seed=0)
    opponents[0].reset(game_env.unwrapped.game.config, 0, np.random.default_rng(0))
    assert info["action_mask"][opponents[0].act(observation, info["action_mask"])]


def test_a_run_on_layout_1_clones_trains_plays_itself_and_is_seated_with_its_layout(tmp_path):
    """observation_layout 1: the network reads the 1409 values of FifthAvenue-v1 (cloning data, PPO, its
    self-play snapshots), the checkpoint says so, and tournaments hand the agent that layout."""
    config = tiny_config(tmp_path / "v1", observation_layout=1, eval_every=0,
                         selfplay=SelfPlayConfig(snapshot_every=512, scripted_fraction=0.0),
                         bc=BCConfig(games=1, held_out_games=1, dagger_rounds=0, epochs=1))
    train(config, show_progress=False)
    latest = ckpt.latest_checkpoint(config.run_dir)
    meta = ckpt.read_meta(latest)
    assert meta["versions"]["gym_env_id"] == "FifthAvenue-v1" and meta["versions"]["env_version"] == 1
    assert meta["pool"]  # the v1 snapshots played as opponents
    agent = PolicyAgent.load(latest)
    assert agent.observation_layout == 1 and agent.net.layers[0][0].shape[0] == OBS_SIZES[1]
    searcher = network_search_factory(latest, rollouts=2, depth=1, rollout_with_policy=True)  # critic, rollouts
    tournament = run_tournament([("ppo", PolicyFactory(latest)), ("search", searcher)], games=2, seed=0)
    assert tournament.row("ppo")["seat_games"] == tournament.row("search")["seat_games"] == 2
    with pytest.raises(ValueError, match="observation_layout must be one of"):
        tiny_config(tmp_path, observation_layout=2)


def test_checkpoint_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.zip"
    ckpt.atomic_write_bytes(str(path), b"old")

    def crash(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        ckpt.atomic_write_bytes(str(path), b"new")
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["ckpt.zip"]
    with pytest.raises(ValueError, match="not a fifthave checkpoint"):
        ckpt.read_meta(str(path))


def test_bad_flat_configs_are_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"learning_rat": 0.1}))
    with pytest.raises(ValueError, match="unknown config keys.*learning_rat"):
        load_config(str(bad))
    with pytest.raises(ValueError, match="agent names"):
        TrainConfig(opponents=["grandmaster"])
    with pytest.raises(ValueError, match="batch_size"):
        TrainConfig(n_envs=2, n_steps=100, batch_size=64)


def scaled(flat, scale):
    """``flat`` (a ``TrainConfig``) as ``fifthave publish recipe --scale`` runs it: ``fifthave train`` of the
    config with ``scale_sets``' options."""
    from fifthave.train.config import parse_set, run_config_from_dict, with_sets

    config = run_config_from_dict(translate_legacy(flat.to_dict())[0])
    sets = [parse_set(text) for text in scale_sets(config, scale)]
    return run_config_from_dict(with_sets(config.to_dict(), sets)).trainer_config(flat.run_dir)


def test_publish_scale_and_the_run_report(tmp_path):
    config = tiny_config(tmp_path / "run", total_timesteps=2048, eval_every=1024, checkpoint_every=1024,
                         selfplay=SelfPlayConfig(snapshot_every=512))
    bigger = scaled(config, 2.5)
    assert (bigger.total_timesteps, bigger.eval_every, bigger.checkpoint_every) == (5120, 2560, 2560)
    assert bigger.eval_games == 10 and scaled(config, 0.1).eval_games == config.num_players
    assert bigger.selfplay.snapshot_every == 1280 and config.selfplay.snapshot_every == 512
    # The recipe's budget is its cloning games: --scale scales them, and the time it states with them.
    recipe = dataclasses.replace(config, total_timesteps=0, selfplay=None,
                                 bc=BCConfig(games=300, held_out_games=40, dagger_games=150))
    small = scaled(recipe, 0.1)
    assert (small.bc.games, small.bc.held_out_games, small.bc.dagger_games) == (30, 4, 15)
    published = tmp_path / "published.json"
    published.write_text(json.dumps({"steps": 0, "wall_seconds": 980.0, "eval_seconds": 5.0, "steps_per_second": 0.0,
                                     "cloning_games": cloning_games(recipe)}))
    assert expected_seconds(recipe, str(published)) == 980.0
    assert expected_seconds(small, str(published)) == 98.0
    os.makedirs(config.run_dir)
    with open(os.path.join(config.run_dir, "eval.csv"), "w") as f:
        f.write("timesteps,opponent,games,win_rate,ci_low,ci_high,mean_vp,mean_rank,opponent_mean_vp,truncated\n"
                "1024,random,4,0.5,0.15,0.85,30,2,25,0\n2048,random,4,0.75,0.3,0.95,40,1.5,20,1\n")
    run = {"command": "fifthave train tiny.json", "steps": 2048, "wall_seconds": 10.0,
           "eval_seconds": 2.0, "steps_per_second": 256.0}
    write_report(config, str(tmp_path / "out"), run)
    rows = write_report(config, str(tmp_path / "out"))  # a rewrite keeps the command and timing
    assert [r["win_rate"] for r in rows] == ["0.5", "0.75"]
    report = (tmp_path / "out" / "README.md").read_text()
    assert "`fifthave train tiny.json`" in report and "| 2048 | random | 4 | 0.750 | [0.300, 0.950] | 0.50 |" in report and "| 1.50 | 1 |" in report
    assert "throughput 256 env steps/s" in report
    assert report.startswith("# Training results: MaskablePPO on FifthAvenue-v1\n")
    # A cloning-only run says so in its title (its table has the one row of the cloned policy).
    with open(os.path.join(config.run_dir, "eval.csv"), "w") as f:
        f.write("timesteps,opponent,games,win_rate,ci_low,ci_high,mean_vp,mean_rank,opponent_mean_vp,truncated\n"
                "0,random,4,0.5,0.15,0.85,30,2,25,0\n")
    write_report(recipe, str(tmp_path / "cloned"), dict(run, steps=0))
    assert (tmp_path / "cloned" / "README.md").read_text().startswith(
        "# Training results: behaviour cloning on FifthAvenue-v1\n")
    assert (tmp_path / "out" / "win_rate.png").stat().st_size > 1000


def test_same_config_and_seed_give_the_same_policy_and_training_changes_it(tmp_path):
    configs = [tiny_config(tmp_path / name, total_timesteps=512, eval_every=0, checkpoint_every=0)
               for name in ("a", "b")]
    models = [train(config, show_progress=False).model for config in configs]
    first, second = (m.policy.state_dict() for m in models)
    assert all(torch.equal(first[k], second[k]) for k in first)
    # The same seed builds the same untrained policy; 512 steps of PPO moved every layer away from it.
    untrained = build_model(configs[0], make_vec_env(configs[0])).policy.state_dict()
    again = build_model(configs[1], make_vec_env(configs[1])).policy.state_dict()
    assert all(torch.equal(untrained[k], again[k]) for k in untrained)
    assert all(not torch.equal(first[k], untrained[k]) for k in first if k.startswith(("mlp_extractor.policy_net",
                                                                                       "action_net")))


@pytest.mark.parametrize("field,value,message", [
    ("num_players", 7, "num_players must be one of 2, 3, 4, got 7"),
    ("num_players", "4", "num_players must be one of 2, 3, 4, got '4' of type str"),
    ("board", 9, "board must be one of 5, 6"),
    ("max_turns", -3, "max_turns must be an int from 1 to 1000000, got -3"),
    ("reward", "bogus", "reward must be one of 'win_loss', 'win', 'vp_margin', 'score_delta'"),
    ("learner_seat", 4, "learner_seat .* must be an int from 0 to 3"),
    ("gamma", "abc", "gamma must be a finite number"),
    ("gamma", 1.5, "gamma must be a number from 0.0 to 1.0, got 1.5"),
    ("learning_rate", -1, "learning_rate must be a number above 0.0, got -1.0"),
    ("clip_range", float("nan"), "clip_range must be a finite number"),
    ("eval_games", -1, "eval_games must be an int >= 1, got -1"),
    ("batch_size", 0, "batch_size must be an int >= 2, got 0"),
    ("net_arch", [-5], "net_arch\\[0\\] must be an int from 1 to 4096, got -5"),
    ("net_arch", 64, "net_arch must be a list"),
    ("opponents", "random", "opponents must be a non-empty list of agent names"),
    ("advisers", [3], "advisers must be a list of agent names"),
    ("eval_deterministic", "yes", "eval_deterministic must be True or False"),
    ("run_dir", "", "run_dir must be a non-empty path"),
    ("selfplay", [1], "selfplay must be None or an object of SelfPlayConfig's fields"),
    ("selfplay", {"pool_size": 0}, "selfplay.pool_size must be an int >= 1, got 0"),
    ("selfplay", {"scripted_fraction": 2}, "selfplay.scripted_fraction must be a number from 0.0 to 1.0"),
    ("league", {"pfsp_power": -1}, "league.pfsp_power must be a number from 0.0"),
    ("bc", {"learning_rate": 0}, "bc.learning_rate must be a number above 0.0"),
    ("bc", {"teacher": 3}, "bc.teacher must be a non-empty list of agent names"),
])
def test_every_config_field_is_checked_naming_it_and_what_is_allowed(field, value, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**{field: value})


@pytest.mark.parametrize("args,message", [
    (["--set", "run.steps=-5"], "run.steps .* must be an int >= 1, got -5"),
    (["--set", "ppo.n_envs=0"], "ppo.n_envs must be an int from 1 to 1024, got 0"),
    (["--set", "ppo.n_envs=100000"], "ppo.n_envs must be an int from 1 to 1024, got 100000"),  # issue 40: took 3 GB
    (["--set", "run.seed=4294967296"], "run.seed must be an int from 0 to 4294967295"),
    (["--resume", "RUN"], "--resume DIR continues the run in DIR with its saved config: give no CONFIG"),
    (["--set", "evaluation.games=-1"], "evaluation.games must be an int >= 1, got -1"),
    (["--set", "ppo.opponents=[\"foo\"]"], "ppo.opponents must be a non-empty list of agent names"),
    (["--set", "ppo.init_from=nope.zip"], "cannot read the checkpoint nope.zip: No such file or directory"),
])
def test_bad_values_end_with_one_line_before_anything_is_created(tmp_path, capsys, args, message):
    config = tmp_path / "tiny.json"
    config.write_text(json.dumps(translate_legacy(tiny_config(tmp_path / "unused").to_dict())[0]))
    with pytest.raises(SystemExit) as exit_:
        main([str(config), "--out", str(tmp_path / "run"), "--no-progress",
              *[str(tmp_path / "run") if a == "RUN" else a for a in args]])
    error = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in error
    assert re.search(f"fifthave train: error: {message}", error), error
    assert not (tmp_path / "run").exists()
    with pytest.raises(SystemExit):
        main(["nope.json", "--out", str(tmp_path / "run")])
    assert re.search("No such file or directory: 'nope.json'", capsys.readouterr().err)
    with pytest.raises(SystemExit):
        main(["--resume", str(tmp_path / "run")])
    assert "it holds neither run_config.json nor config.json" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_config_file_that_is_not_a_config_is_refused_in_one_line(tmp_path, capsys):
    for text, message in (("{not json", "the config file .* is not valid JSON"), ("[1, 2]", "the config in .* must be a dict")):
        path = tmp_path / "bad.json"
        path.write_text(text)
        with pytest.raises(SystemExit):
            main([str(path), "--out", str(tmp_path / "run")])
        assert re.search(message, capsys.readouterr().err)
