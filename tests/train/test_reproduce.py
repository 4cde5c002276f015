"""Training reproduces bit for bit: same config and seed, same weights and evaluation table, also across
an interruption and ``--resume``; evaluation rows evaluate exactly the weights saved at their step."""

import csv
import os
import shutil

import pytest

from fifthave.train import checkpoint as ckpt
from fifthave.train import train as train_module
from fifthave.train.config import SelfPlayConfig, TrainConfig
from fifthave.train.evaluate import evaluate_checkpoint
from fifthave.train.run import main
from fifthave.train.train import train


def small_config(run_dir, **changes):
    # Self-play with a pool from step 256 on, so policy opponents (answered in batches) are in the games
    # that a resume must restore (the worker processes are tested in test_vec_env.py).
    settings = dict(seed=5, num_players=3, opponents=["random"], eval_opponents=["random"],
                    total_timesteps=1024, n_envs=4, workers=0, n_steps=64, batch_size=128, n_epochs=1,
                    net_arch=[16], eval_every=512, eval_games=3, checkpoint_every=256, run_dir=str(run_dir),
                    selfplay=SelfPlayConfig(snapshot_every=256, scripted_fraction=0.3, promote_window=20))
    settings.update(changes)
    return TrainConfig(**settings)


def table(run_dir):
    with open(os.path.join(run_dir, "eval.csv"), newline="") as f:
        return list(csv.DictReader(f))


def train_until_interrupted(config, step, monkeypatch):
    """Run ``config`` and interrupt it (KeyboardInterrupt) at the first env step at or past ``step``."""
    on_step = train_module.RunCallback._on_step

    def crash(callback):
        if callback.num_timesteps >= step:
            raise KeyboardInterrupt("interrupted")
        return on_step(callback)
    monkeypatch.setattr(train_module.RunCallback, "_on_step", crash)
    with pytest.raises(KeyboardInterrupt):
        train(config, show_progress=False)
    monkeypatch.setattr(train_module.RunCallback, "_on_step", on_step)


def test_two_runs_and_an_interrupted_resumed_run_give_the_same_weights(tmp_path, monkeypatch):
    # The default config's layout: one worker process and a shard of games in the learner's process.
    processes = dict(workers=1, local_shard=True, torch_threads=2)
    first = train(small_config(tmp_path / "a", **processes), show_progress=False)
    second = train(small_config(tmp_path / "b", **processes), show_progress=False)
    assert first.weights_sha256 == second.weights_sha256
    assert table(tmp_path / "a") == table(tmp_path / "b")
    assert [int(r["timesteps"]) for r in table(tmp_path / "a")] == [0, 512, 1024]

    # Interrupted in the middle of a rollout (after the checkpoint at 512 and a snapshot), then resumed.
    train_until_interrupted(small_config(tmp_path / "c", **processes), 700, monkeypatch)
    assert os.path.basename(ckpt.latest_checkpoint(tmp_path / "c")) == "ckpt_0000000512.zip"
    # A copy resumed elsewhere continues there, with the copy's snapshots, and leaves the original alone
    shutil.copytree(tmp_path / "c", tmp_path / "copy")
    os.rename(tmp_path / "c" / "pool", tmp_path / "pool_aside")  # the copy must not read the original's pool
    assert main(["--resume", str(tmp_path / "copy"), "--no-progress"]) == 0
    os.rename(tmp_path / "pool_aside", tmp_path / "c" / "pool")
    moved = ckpt.read_meta(ckpt.latest_checkpoint(tmp_path / "copy"))
    assert moved["num_timesteps"] == 1024 and moved["weights_sha256"] == first.weights_sha256
    assert moved["pool"] and all(p.startswith(str(tmp_path / "copy" / "pool")) for p in moved["pool"])
    assert table(tmp_path / "copy") == table(tmp_path / "a")
    assert os.path.basename(ckpt.latest_checkpoint(tmp_path / "c")) == "ckpt_0000000512.zip"
    assert main(["--resume", str(tmp_path / "c"), "--no-progress"]) == 0
    final = ckpt.read_meta(ckpt.latest_checkpoint(tmp_path / "c"))
    assert final["num_timesteps"] == 1024 and final["weights_sha256"] == first.weights_sha256
    assert table(tmp_path / "c") == table(tmp_path / "a")


def test_an_evaluation_row_evaluates_the_checkpoint_of_its_step(tmp_path):
    config = small_config(tmp_path / "run", selfplay=None, total_timesteps=512, eval_every=256,
                          checkpoint_every=10_000, workers=0)
    train(config, show_progress=False)
    rows = table(config.run_dir)
    assert [int(r["timesteps"]) for r in rows] == [0, 256, 512]
    for row in rows:
        again, = evaluate_checkpoint(ckpt.checkpoint_path(config.run_dir, int(row["timesteps"])))
        assert {k: str(v) for k, v in again.items()} == row


def test_a_league_run_with_advisers_resumes_bit_for_bit(tmp_path, monkeypatch):
    """The recipe's parts (fifthave.train.hints advisers, fifthave.train.league PFSP league) keep their state across --resume."""
    from fifthave.train.config import LeagueConfig

    changes = dict(selfplay=None, advisers=["heuristic"], eval_every=0, total_timesteps=768,
                   league=LeagueConfig(anchors=["random", "greedy"], snapshot_every=256, reweight_every=3,
                                       prior_games=2, window=20))
    first = train(small_config(tmp_path / "a", **changes), show_progress=False)
    train_until_interrupted(small_config(tmp_path / "b", **changes), 600, monkeypatch)
    assert os.path.basename(ckpt.latest_checkpoint(tmp_path / "b")) == "ckpt_0000000512.zip"
    assert main(["--resume", str(tmp_path / "b"), "--no-progress"]) == 0
    final = ckpt.read_meta(ckpt.latest_checkpoint(tmp_path / "b"))
    assert final["num_timesteps"] == 768 and final["weights_sha256"] == first.weights_sha256
