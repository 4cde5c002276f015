"""fifthave train writes a PPO run's report; fifthave publish copies it with a small playable policy."""

import json
import os
import zipfile

import numpy as np

from fifthave.agents.play import play
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.train.checkpoint import OPTIMIZER_MEMBER, latest_checkpoint, read_meta
from fifthave.train.config import load_config, load_run_config, translate_legacy
from fifthave.train.publish import expected_seconds, publish_run
from fifthave.train.run import main
from fifthave.train.policy_agent import PolicyAgent

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PUBLISHED = os.path.join(ROOT, "results", "training", "policy.npz")


def test_a_run_writes_its_report_and_publishing_copies_it_with_a_small_policy(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    config = {"seed": 1, "num_players": 4, "opponents": ["random"], "eval_opponents": ["random"],
              "total_timesteps": 256, "n_envs": 2, "workers": 0, "n_steps": 128, "batch_size": 128,
              "n_epochs": 1, "net_arch": [32], "eval_every": 256, "eval_games": 4, "checkpoint_every": 256}
    (tmp_path / "tiny.json").write_text(json.dumps(translate_legacy(config)[0]))
    assert main(["tiny.json", "--no-progress"]) == 0
    runs = os.listdir(tmp_path / "runs")
    assert len(runs) == 1
    run_dir = tmp_path / "runs" / runs[0]
    assert {"results.csv", "README.md", "win_rate.png", "run.json"} <= set(os.listdir(run_dir))
    assert not (tmp_path / "results").exists()
    assert "final weights sha256" in capsys.readouterr().out

    publish_run(str(run_dir), str(tmp_path / "published"))
    # The time the next run states is the time this one took (same config, same machine).
    run = json.loads((tmp_path / "published" / "run.json").read_text())
    assert run["command"] == "fifthave train tiny.json --no-progress"
    flat = load_run_config("tiny.json").trainer_config("x")
    stated = expected_seconds(flat, str(tmp_path / "published" / "run.json"))
    assert abs(stated - run["wall_seconds"]) < 1e-6 * run["wall_seconds"] + 1e-9
    policy = tmp_path / "published" / "policy.zip"
    with zipfile.ZipFile(policy) as archive:
        assert OPTIMIZER_MEMBER not in archive.namelist()
    full = latest_checkpoint(str(run_dir))
    assert policy.stat().st_size < 0.6 * os.path.getsize(full)
    meta = read_meta(str(policy))
    assert "run_state" not in meta and meta["weights_sha256"] == read_meta(full)["weights_sha256"]

    # Its agent file plays by name in a tournament and in the terminal game, with the checkpoint's action
    # probabilities.
    agent_file = policy.with_suffix(".npz")
    result = run_tournament([("ppo", agent_factory(f"policy:{agent_file}"))] + [("random", agent_factory("random"))] * 3,
                            games=4, seed=0)
    assert result.row("ppo")["seat_games"] == 4
    scores = play(seat=0, opponents=[str(agent_file)] * 3, seed=2, read=lambda prompt: "1", write=lambda s: None)
    assert scores is not None and len(scores) == 4
    observation = np.zeros(1176, dtype=np.float32)
    mask = np.ones(147, dtype=np.int8)
    expected = PolicyAgent.load(full).action_probabilities(observation, mask)
    assert np.allclose(PolicyAgent.load(str(policy)).action_probabilities(observation, mask), expected)
    assert np.array_equal(agent_factory(str(agent_file))().action_probabilities(observation, mask), expected)


def test_the_published_policy_plays(tmp_path):
    if not os.path.exists(PUBLISHED):
        return  # published by the committed recipe (fifthave publish recipe --write-results)
    assert os.path.getsize(PUBLISHED) < 3_000_000
    result = run_tournament([("ppo", agent_factory(f"policy:{PUBLISHED}"))] + [("random", agent_factory("random"))] * 3,
                            games=4, seed=0)
    assert result.row("ppo")["seat_games"] == 4


def test_the_default_config_is_the_one_results_training_publishes():
    # A bare `fifthave publish recipe --write-results` must reproduce results/training, not overwrite it with
    # another run.
    from fifthave.train.publish import _parser

    default = _parser().parse_args(["recipe"]).config
    with open(os.path.join(ROOT, "results", "training", "run.json")) as f:
        command = json.load(f)["command"].split()
    published = command[command.index("--config") + 1]
    # the published run named the flat config of its time, kept in tests/train/old_configs: same run, new schema
    old = os.path.join(ROOT, "tests", "train", "old_configs", os.path.basename(published))
    assert load_config(old, {"run_dir": "x"}).to_dict() == load_config(default, {"run_dir": "x"}).to_dict()
