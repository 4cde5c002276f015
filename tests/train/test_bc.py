"""Behaviour cloning: the records a game yields, a fit that learns the teacher, and a run that starts with it."""

import json
import os

import numpy as np
import pytest
import torch

from fifthave.train.bc import Records, agreement, collect, fit, play_recorded
from fifthave.train.config import BCConfig, TrainConfig
from fifthave.train.train import build_model, make_vec_env, train


def bc_config(run_dir, advisers=("heuristic",), **bc):
    settings = dict(games=2, held_out_games=1, dagger_rounds=1, dagger_games=1, epochs=2, batch_size=64)
    settings.update(bc)
    return TrainConfig(seed=2, num_players=3, advisers=list(advisers), opponents=["heuristic"],
                       eval_opponents=["heuristic"], total_timesteps=256, n_envs=1, workers=0, n_steps=256,
                       batch_size=128, n_epochs=1, net_arch=[64], eval_every=0, eval_games=3, checkpoint_every=0,
                       run_dir=str(run_dir), bc=BCConfig(**settings))


def test_recorded_game_labels_every_seat_with_legal_teacher_actions_and_discounted_outcomes():
    config = bc_config("unused")
    features, masks, actions, returns = play_recorded(config, np.random.default_rng(0))
    assert len(features) == len(masks) == len(actions) == len(returns) > 100
    masks = np.asarray(masks)
    assert masks[np.arange(len(actions)), actions].all()
    # With the heuristic as adviser and teacher, the advice block holds the teacher's choice almost always.
    advice = np.asarray(features)[:, -masks.shape[1]:].argmax(axis=1)
    assert np.mean(advice == np.asarray(actions)) > 0.9
    returns = np.asarray(returns)
    assert set(np.sign(returns)) <= {-1.0, 1.0} and np.abs(returns).max() == 1.0  # a seat's last decision
    assert np.all((np.abs(returns) <= 1.0) & (np.abs(returns) >= config.gamma ** 400))


def test_fit_learns_the_teacher_and_the_outcome():
    config = bc_config("unused", advisers=(), epochs=6)  # a bare network: the advice prior would copy already
    records = Records()
    rng = np.random.default_rng(1)
    for _ in range(2):
        records.extend(*play_recorded(config, rng))
    data = records.arrays()
    model = build_model(config, make_vec_env(config))

    def value_error():
        with torch.no_grad():
            values = model.policy.predict_values(torch.as_tensor(data[0])).flatten().numpy()
        return float(np.mean((values - data[3]) ** 2))
    before, error_before = agreement(model, data), value_error()
    after = fit(model, data, config.bc, rng, data, log=lambda *_: None)
    assert after > before + 0.25
    assert value_error() < 0.8 * error_before


def test_a_run_with_bc_starts_from_the_clone(tmp_path):
    config = bc_config(tmp_path / "bc")
    train(config, show_progress=False)
    with open(os.path.join(config.run_dir, "bc.json")) as f:
        report = json.load(f)
    assert [r["decisions"] for r in report["rounds"]][0] < report["rounds"][1]["decisions"]  # DAgger added some
    assert all(0.0 <= r["held_out_agreement"] <= 1.0 for r in report["rounds"])


def test_a_search_teacher_in_one_seat_records_only_that_seat_the_same_with_any_number_of_workers():
    """Expert iteration's data: search labels one seat per game, heuristics play the others; the records
    come from per-game generators drawn first, so 0 and 2 worker processes give the same arrays."""
    config = bc_config("unused", teacher="search:2:0", teacher_seats="one")
    features, masks, actions, _ = play_recorded(config, np.random.default_rng(0))
    everyone = play_recorded(bc_config("unused"), np.random.default_rng(0))[0]
    assert 30 < len(actions) < len(everyone) / 2  # one seat of three
    assert np.asarray(masks)[np.arange(len(actions)), actions].all()
    serial = collect(config, 2, np.random.default_rng(5)).arrays()
    config.workers = 2
    parallel = collect(config, 2, np.random.default_rng(5)).arrays()
    for a, b in zip(serial, parallel):
        np.testing.assert_array_equal(a, b)


def test_bc_config_refuses_unknown_teachers_and_seat_modes():
    for bad in (dict(teacher="oracle"), dict(teacher="search:x"), dict(teacher_seats="two"), dict(games=0)):
        with pytest.raises(ValueError, match="teacher|search|games"):
            BCConfig(**bad)


def test_a_run_of_cloning_alone_evaluates_and_saves_the_clone_at_step_0(tmp_path):
    config = bc_config(tmp_path / "clone", dagger_rounds=0)
    config.total_timesteps, config.eval_every = 0, 1000
    result = train(config, show_progress=False)
    assert result.steps == 0 and os.path.exists(os.path.join(config.run_dir, "bc.json"))
    with open(os.path.join(config.run_dir, "eval.csv")) as f:
        rows = f.read().splitlines()
    assert len(rows) == 2 and rows[1].startswith("0,")  # header and the clone's row at step 0
    assert os.listdir(os.path.join(config.run_dir, "checkpoints"))
    with pytest.raises(ValueError, match="total_timesteps"):
        TrainConfig(total_timesteps=0)  # without cloning there would be nothing to train
