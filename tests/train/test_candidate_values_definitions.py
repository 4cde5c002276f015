"""The candidate-value training's parts by their definitions (train/candidate_values.py): the labels (each
candidate's value minus the heuristic candidate's, or the mean's when the heuristic's is not among them), the
arrays and files of labels, their refusals in full, how games' seeds are drawn, the fit's measures, the
seeds of the evaluation. Fast (fake games and networks, no search): the guard set of the mutation run of
train/candidate_values.py (docs/mutation.md)."""

import dataclasses
import json
import os
import re
import types

import numpy as np
import pytest
import torch

import fifthave.train.candidate_values as cv
from fifthave.agents.registry import AGENT_FACTORIES
from fifthave.agents.learned import CANDIDATE_FEATURES, VALUE_SCALE, candidate_features
from fifthave.agents.view import SeatView, StateView
from fifthave.train.candidate_values import CandidateValueConfig
from fifthave_env.engine import Game, GameConfig
from fifthave_env.engine.actions import BID_PASS
from fifthave_env.engine.game import BID_DECISION
from fifthave_env.observation import OBS_SIZES, Observer

TINY = dict(samples=1, observation_layout=0, games=2, held_out_games=1, workers=1, embedding_width=16, epochs=2,
            ensemble=2, eval_games=0)
OBS = OBS_SIZES[0]
UNPLAYED = types.SimpleNamespace(truncated=True, winners=[])  # the game a mocked play leaves: no one won


def fake_game(config, seed, student=None, searcher=None, generations=(), weights=None):
    """What play_labelled returns, made from the seed alone: (seed % 3) + 1 decisions of 2 candidates, no one in
    the other seats, no win."""
    k = seed % 3 + 1
    rng = np.random.default_rng(seed)
    observations = [rng.random(OBS).astype(np.float32) for _ in range(k)]
    features = [rng.random(CANDIDATE_FEATURES).astype(np.float32) for _ in range(2 * k)]
    owners = [d for d in range(k) for _ in range(2)]
    targets = [float(x) for x in rng.standard_normal(2 * k)]
    return cv.LabelledGame(observations, features, owners, targets, (), 0.0)


def expected_labels(seeds):
    observations, features, owners, targets = [], [], [], []
    for seed in seeds:
        o, f, w, t = fake_game(None, seed)[:4]
        owners += [x + len(observations) for x in w]
        observations += o
        features += f
        targets += t
    return (np.asarray(observations, np.float32), np.asarray(features, np.float32), np.asarray(owners, np.int64),
            np.asarray(targets, np.float32) * np.float32(VALUE_SCALE))


def same(a, b):
    return all(x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b))


def test_collect_draws_every_games_seed_first_and_keeps_the_labels_in_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(cv, "play_labelled", fake_game)
    monkeypatch.setattr(cv, "CHUNK_GAMES", 2)
    config = CandidateValueConfig(**TINY)
    seeds = [int(s) for s in np.random.default_rng(9).integers(2**63, size=5)]
    lines = []
    rng = np.random.default_rng(9)
    data = cv.collect(config, 5, rng, log=lambda *a, **k: lines.append((a, k)), store=str(tmp_path), tag="t")
    assert same(data, expected_labels(seeds))
    assert rng.integers(2**63) == np.random.default_rng(9).integers(2**63, size=6)[5]  # 5 draws taken, no more
    assert sorted(os.listdir(tmp_path)) == ["t_0000.npz", "t_0001.npz", "t_0002.npz"]  # no temporary left
    assert same(cv._load_chunk(str(tmp_path / "t_0001.npz"), config), expected_labels(seeds[2:4]))
    assert [(a[0][:16], k) for a, k in lines] == [(f"  t: {n}/5 games (", {"flush": True}) for n in (2, 4, 5)]
    # seconds since the start (a few)
    assert all(re.fullmatch(r"  t: \d/5 games \(\d{1,2} s\)", a[0]) and len(a) == 1 for a, _ in lines)
    # a rerun loads the files (a changed file shows it) and plays nothing
    monkeypatch.setattr(cv, "play_labelled", None)
    assert same(cv.collect(config, 5, np.random.default_rng(9), log=lambda *a, **k: None, store=str(tmp_path),
                           tag="t"), data)
    monkeypatch.setattr(cv, "play_labelled", fake_game)
    default_tag = cv.collect(config, 1, np.random.default_rng(9), log=lambda *a, **k: None, store=str(tmp_path))
    assert same(default_tag, cv._load_chunk(str(tmp_path / "labels_0000.npz"), config))


def test_collect_without_a_store_passes_the_student_and_the_generations_to_every_game(monkeypatch):
    calls = []

    def recording(config, seed, student=None, searcher=None, generations=(), weights=None):
        calls.append((seed, student, searcher, generations, weights))
        return fake_game(config, seed)

    monkeypatch.setattr(cv, "play_labelled", recording)
    config = CandidateValueConfig(**TINY)
    data = cv.collect(config, 3, np.random.default_rng(1), log=lambda *a, **k: None, student="net.npz",
                      generations=["old.npz", "net.npz"])
    seeds = [int(s) for s in np.random.default_rng(1).integers(2**63, size=3)]
    assert calls == [(s, "net.npz", None, ("old.npz", "net.npz"), None) for s in seeds]
    assert same(data, expected_labels(seeds))
    calls.clear()
    cv.collect(config, 1, np.random.default_rng(1), log=lambda *a, **k: None, generations=["old.npz"],
               weights=(0.25, 0.75))
    assert calls == [(seeds[0], None, None, ("old.npz",), (0.25, 0.75))]


def test_arrays_of_labels_have_their_documented_types_and_scale():
    config = CandidateValueConfig(**TINY)
    arrays = cv._as_arrays(config, [], [], [], [])
    assert [a.shape for a in arrays] == [(0, OBS), (0, CANDIDATE_FEATURES), (0,), (0,)]
    assert [a.dtype for a in arrays] == [np.float32, np.float32, np.int64, np.float32]
    o, f, w, t = fake_game(None, 4)[:4]
    arrays = cv._as_arrays(config, o, f, w, t)
    assert arrays[3].tolist() == (np.asarray(t, np.float32) * np.float32(10)).tolist()  # VALUE_SCALE 10
    assert arrays[2].tolist() == w and arrays[0].shape == (2, OBS)


def test_a_chunk_of_other_labels_is_refused_in_full(tmp_path):
    config = CandidateValueConfig(**TINY)
    good = cv._as_arrays(config, *fake_game(None, 5)[:4])  # 3 decisions, 6 candidates
    path = str(tmp_path / "c.npz")
    message = f"{path} does not hold labels of this config; delete it to label those games again"
    for observations, features, owners, targets in (
            (np.zeros((3, OBS + 1)), good[1], good[2], good[3]),  # another observation layout
            (good[0], np.zeros((6, CANDIDATE_FEATURES - 1)), good[2], good[3]),
            (good[0], good[1][:5], good[2], good[3]), (good[0], good[1], good[2][:5], good[3]),
            (good[0], good[1], good[2], good[3][:5]),
            (good[0], good[1], good[2] - 1, good[3]),  # an owner below 0
            (good[0], good[1], np.r_[good[2][:5], 3], good[3])):  # an owner past the last decision
        np.savez(path, observations, features, owners, targets)
        with pytest.raises(ValueError) as raised:
            cv._load_chunk(path, config)
        assert str(raised.value) == message
    np.savez(path, *good)
    assert same(cv._load_chunk(path, config), good)
    np.savez(path, np.zeros((0, OBS), np.float32), np.zeros((0, CANDIDATE_FEATURES), np.float32),
             np.zeros(0, np.int64), np.zeros(0, np.float32))
    assert [len(a) for a in cv._load_chunk(path, config)] == [0, 0, 0, 0]  # no decision: nothing to check


class Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return open, (self.marker, "w")  # unpickling it would create the file


def test_a_chunk_whose_arrays_would_unpickle_code_is_refused_and_nothing_runs(tmp_path):
    config = CandidateValueConfig(**TINY)
    marker = tmp_path / "ran"
    path = str(tmp_path / "c.npz")
    good = cv._as_arrays(config, *fake_game(None, 5)[:4])
    np.savez(path, np.array([Payload(str(marker))], dtype=object), *good[1:])
    with pytest.raises(ValueError, match="allow_pickle=False"):
        cv._load_chunk(path, config)
    assert not marker.exists()


def test_concatenated_parts_renumber_their_owners():
    config = CandidateValueConfig(**TINY)
    parts = [cv._as_arrays(config, *fake_game(None, s)[:4]) for s in (5, 3, 4)]  # 3, 1 and 2 decisions
    data = cv.concatenate(config, parts)
    assert data[2].tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert data[2].dtype == np.int64 and data[3].dtype == np.float32
    assert same(data, expected_labels([5, 3, 4]))


class FixedNet:
    def __init__(self, predictions):
        self.predictions = torch.as_tensor(predictions, dtype=torch.float32)

    def __call__(self, observations, features, owners):
        return self.predictions


def test_the_fits_measures_are_the_squared_error_and_the_share_of_best_candidates_agreed():
    owners = np.array([0, 0, 0, 1, 2, 2, 3, 3], np.int64)
    targets = np.array([1, 2, 0, 5, -1, 0, 3, 2], np.float32)
    predicted = np.array([0, 3, 1, 4, 1, 0, 2, 1], np.float32)  # agrees at decisions 0 and 3, not 2; 1 has one
    data = (np.zeros((4, OBS), np.float32), np.zeros((8, CANDIDATE_FEATURES), np.float32), owners, targets)
    error, best = cv.evaluate_fit(FixedNet(predicted), data)
    assert error == pytest.approx(np.mean((predicted - targets) ** 2)) and best == pytest.approx(2 / 3)
    error, best = cv.evaluate_fit(FixedNet(predicted[3:4]), (data[0][:1], data[1][:1], owners[:1], targets[3:4]))
    assert error == 1.0 and np.isnan(best)  # no decision with a choice


def test_labels_are_each_candidates_value_minus_the_heuristic_candidates_or_the_mean():
    game = Game(GameConfig(num_players=3), seed=2)
    rng = np.random.default_rng(2)
    while game.decision != BID_DECISION:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    seat = game.actor
    observer = Observer(game.config, version=0)
    legal = game.legal_actions()
    candidates = [(BID_PASS,), (legal[0],), (legal[1],)]
    for reads, default, base in ((True, (legal[0],), 5.0), (False, (legal[0], legal[1]), 4.0)):
        searcher = types.SimpleNamespace(reads_view=reads, last_search=None)
        labeller = cv._Labeller(searcher, observer, game.config)
        assert labeller.choose_agent(game, seat, "agent") == "agent"
        labeller.decided(types.SimpleNamespace(agent=searcher, game=game, seat=seat))  # no search ran: no label
        searcher.last_search = (candidates, np.array([2.0, 5.0, 5.0]), default)
        labeller.decided(types.SimpleNamespace(agent="another", game=game, seat=seat))
        assert labeller.observations == []
        labeller.decided(types.SimpleNamespace(agent=searcher, game=game, seat=seat))
        labeller.decided(types.SimpleNamespace(agent=searcher, game=game, seat=seat))
        assert labeller.targets == [2.0 - base, 5.0 - base, 5.0 - base] * 2
        assert labeller.owners == [0, 0, 0, 1, 1, 1]
        observation = observer.observe(game, seat)
        assert len(labeller.observations) == 2 and all(np.array_equal(o, observation) for o in labeller.observations)
        assert labeller.observations[0] is not labeller.observations[1]
        view = StateView(game, seat) if reads else SeatView(observation, game.action_mask(), game.config)
        expected = [candidate_features(view, m, default) for m in candidates]
        assert all(np.array_equal(a, b) for a, b in zip(labeller.features, expected * 2))
        labeller.choose_agent(game, seat, "agent")
        assert searcher.last_search is None


def test_a_run_directory_records_what_its_labels_depend_on(tmp_path):
    config = CandidateValueConfig(**TINY)
    cv._check_store(str(tmp_path), config)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert sorted(saved) == sorted(cv.LABELLING_FIELDS) == sorted(
        ["seed", "num_players", "board", "observation_layout", "groups", "opponents", "samples", "depth", "games",
         "held_out_games", "dagger_games"])
    assert saved["samples"] == 1 and saved["games"] == 2
    other = CandidateValueConfig(**{**TINY, "depth": 3})
    with pytest.raises(ValueError) as raised:
        cv._check_store(str(tmp_path), other)
    assert str(raised.value) == (f"{tmp_path} holds labels of another config ({saved}); use a new run_dir or "
                                 "delete it")


def test_an_advice_free_run_directory_records_it_and_refuses_advised_labels(tmp_path):
    # "advice" is recorded only when false (stores written before the option still match advised configs); an
    # advice-free run never reuses advised labels, nor the reverse
    from fifthave.agents.search import DECISION_GROUPS

    advised, free = tmp_path / "advised", tmp_path / "free"
    advised.mkdir()
    free.mkdir()
    config = CandidateValueConfig(**{**TINY, "groups": list(DECISION_GROUPS), "advice": False})
    cv._check_store(str(free), config)
    saved = json.loads((free / "config.json").read_text())
    assert saved["advice"] is False and sorted(saved) == sorted([*cv.LABELLING_FIELDS, "advice"])
    cv._check_store(str(free), config)  # its own labels are read back
    cv._check_store(str(advised), CandidateValueConfig(**{**TINY, "groups": list(DECISION_GROUPS)}))
    for store, other in ((advised, config), (free, CandidateValueConfig(**{**TINY, "groups": list(DECISION_GROUPS)}))):
        with pytest.raises(ValueError, match="holds labels of another config"):
            cv._check_store(str(store), other)


def test_the_evaluation_plays_the_saved_network_against_each_field_on_the_documented_deals(tmp_path, monkeypatch):
    calls = []

    class Result:
        def save(self, stem):
            calls.append(("save", stem))

        def row(self, label):
            return {"label": label}

    def tournament(lineup, **kwargs):
        assert all(factory == ("factory of values:v.npz" if name == "values" else f"factory of {name}")
                   for name, factory in lineup)
        calls.append(([name for name, _ in lineup], kwargs))
        return Result()

    monkeypatch.setattr(cv, "run_tournament", tournament)
    monkeypatch.setattr(cv, "agent_factory", lambda name: f"factory of {name}")
    config = CandidateValueConfig(**{**TINY, "num_players": 3, "eval_games": 6, "run_dir": str(tmp_path)})
    assert cv.evaluate(config, "v.npz", "random") == {"label": "values"}
    assert calls == [(["values", "random", "random"], dict(num_players=3, board=5, games=6, seed=2026, workers=1)),
                     ("save", os.path.join(str(tmp_path), "values_vs_random"))]
    calls.clear()
    cv.evaluate(CandidateValueConfig(**{**TINY, "eval_seed": 7, "run_dir": str(tmp_path)}), "v.npz", "heuristic", 0)
    assert calls[0][1]["seed"] == 0  # a seed passed wins
    calls.clear()
    cv.evaluate(CandidateValueConfig(**{**TINY, "eval_seed": 7, "run_dir": str(tmp_path)}), "v.npz", "heuristic")
    assert calls[0][1]["seed"] == 7 and calls[0][0] == ["values"] + ["heuristic"] * 3


def test_the_ensemble_holds_each_members_own_fit_and_the_thread_count_is_restored(monkeypatch):
    config = CandidateValueConfig(**{**TINY, "epochs": 1, "batch_size": 2})
    data = cv.concatenate(config, [cv._as_arrays(config, *fake_game(None, s)[:4]) for s in (5, 4)])
    threads = torch.get_num_threads()
    seen = []
    real = cv._fit

    def fit_one(config_, member, data_, held_out, log):
        seen.append((member, torch.get_num_threads()))
        return real(config_, member, data_, held_out, log)

    monkeypatch.setattr(cv, "_fit", fit_one)
    torch.set_num_threads(2)
    try:
        ensemble = cv.fit(config, data, data, log=lambda *a, **k: None)
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(threads)
    assert seen == [(0, 1), (1, 1)]
    monkeypatch.setattr(cv, "_fit", real)
    for member, net in enumerate(ensemble.members):
        alone = real(config, member, data, data, lambda *a, **k: None)
        assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), alone.state_dict().values()))
    assert not torch.equal(ensemble.members[0].candidate.weight, ensemble.members[1].candidate.weight)


class InProcessPool:
    """WorkerPool's interface, in this process (a spawned process would not see the test's fakes)."""

    def __init__(self, workers, mp_context=None):
        assert workers == 1 and mp_context.get_start_method() == "spawn"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def map(self, function, *iterables):
        return map(function, *iterables)


def test_a_run_labels_fits_saves_and_reports_and_dagger_labels_the_students_positions(tmp_path, monkeypatch, capsys):
    students = []

    def game(config, seed, student=None, searcher=None, generations=(), weights=None):
        students.append(student)
        return fake_game(config, seed)

    rows = {"win_rate": 0.5, "win_ci_low": 0.25, "win_ci_high": 0.75, "seat_games": 4, "other": 1}
    evaluated = []
    monkeypatch.setattr(cv, "play_labelled", game)
    monkeypatch.setattr(cv, "WorkerPool", InProcessPool)
    monkeypatch.setattr(cv, "evaluate", lambda config, path, opponents: evaluated.append((path, opponents)) or rows)
    settings = {**TINY, "games": 3, "dagger_games": 2, "epochs": 1, "ensemble": 1, "eval_games": 4}
    config = CandidateValueConfig(**settings, run_dir=str(tmp_path / "run"))
    report = cv.train_values(config)
    run = tmp_path / "run"
    assert json.loads((run / "report.json").read_text()) == report
    assert re.fullmatch("[0-9a-f]{64}", report["weights_sha256"])
    assert students == [None] * 4 + [str(run / "values_first.npz")] * 2  # 1 held out, 3 games, then 2 of DAgger
    data_seeds = [int(s) for s in np.random.default_rng([config.seed, 0xCA]).integers(2**63, size=4)]
    dagger_seeds = [int(s) for s in np.random.default_rng([config.seed, 0xDA]).integers(2**63, size=2)]
    data = expected_labels(data_seeds[1:] + dagger_seeds)
    assert report["decisions"] == len(data[0]) and report["candidates"] == len(data[3])
    assert sorted(report) == ["candidates", "cpu_seconds", "decisions", "first_labels_seconds", "fit_key",
                              "generations", "held_out_best_agrees", "held_out_loss", "seconds", "vs_heuristic",
                              "vs_random", "weights_sha256"]
    assert report["fit_key"] == cv.fit_key(config, data)
    # the curve's x axis: each saved network with the wall and CPU seconds since the start
    assert [g["file"] for g in report["generations"]] == ["values_first.npz", "values.npz"]
    assert report["first_labels_seconds"] <= report["generations"][0]["seconds"] <= report["seconds"]
    assert report["generations"][-1]["seconds"] == report["seconds"]
    assert report["generations"][-1]["cpu_seconds"] == report["cpu_seconds"]
    cpu = [g["cpu_seconds"] for g in report["generations"]]
    assert all(type(c) is float for c in cpu) and 0 <= cpu[0] <= cpu[1] < 1000
    net = cv.load_values(str(run / "values.npz"))[0]
    error, best = cv.evaluate_fit(lambda o, f, w: torch.as_tensor(np.concatenate(
        [net.values(o[d].numpy(), f[w == d].numpy()) for d in range(len(o))])), expected_labels(data_seeds[:1]))
    assert report["held_out_loss"] == pytest.approx(error, abs=2e-4)
    assert report["held_out_best_agrees"] == pytest.approx(best, abs=2e-4)
    for key in ("held_out_loss", "held_out_best_agrees"):  # to 4 decimals (80.5783 and 1/3 here)
        assert report[key] == round(report[key], 4)
    for key in ("first_labels_seconds", "seconds"):  # seconds since the start, to a tenth
        assert type(report[key]) is float and report[key] == round(report[key], 1) and 0 <= report[key] < 1000
    assert report["first_labels_seconds"] <= report["seconds"]
    saved = cv.load_values(str(run / "values.npz"))[3]["training"]["report"]
    assert saved == {k: v for k, v in report.items() if not k.startswith(("vs_", "weights"))}
    first_fit = expected_labels(data_seeds[1:])  # what values_first.npz was fitted on: the first labels
    assert cv.load_values(str(run / "values_first.npz"))[3]["training"]["report"] == {
        "fit_key": cv.fit_key(config, first_fit), "seconds": report["generations"][0]["seconds"],
        "cpu_seconds": report["generations"][0]["cpu_seconds"]}
    assert evaluated == [(str(run / "values.npz"), "heuristic"), (str(run / "values.npz"), "random")]
    keep = {k: rows[k] for k in ("win_rate", "win_ci_low", "win_ci_high", "seat_games")}
    assert report["vs_heuristic"] == report["vs_random"] == keep
    labels = sorted(os.listdir(run / "labels"))
    assert labels[0] == "config.json" and labels[2:] == ["held_out_0000.npz", "train_0000.npz"]
    assert re.fullmatch(r"dagger_[0-9a-f]{12}_0000\.npz", labels[1])
    out = capsys.readouterr().out
    assert f"labelled {len(expected_labels(data_seeds[1:])[0])} decisions" in out
    assert "against heuristic agents: win rate 0.500 (0.250-0.750), 4 games" in out
    saved_line = rf"^saved {re.escape(str(run / 'values.npz'))} \(weights sha256 {report['weights_sha256']}\) after "
    assert re.search(saved_line + r"\d+ s$", out, re.M)
    # the same run again in the same directory: the labels are read back, the weights are the same
    monkeypatch.setattr(cv, "play_labelled", None)
    assert cv.train_values(config)["weights_sha256"] == report["weights_sha256"]


def test_a_members_fit_is_adam_on_the_squared_error_of_whole_decisions_with_a_step_size_falling_to_0():
    """The fit as the module documents it, written out: member m's generator is seeded [seed, 0xF17, m] and seeds
    torch; each epoch draws a permutation of the decisions and takes minibatches of ``batch_size`` whole
    decisions (every candidate of each); the loss is the mean squared error; Adam's step size is
    learning_rate x (1 - step / steps), steps = epochs x minibatches per epoch."""
    config = CandidateValueConfig(**{**TINY, "epochs": 2, "batch_size": 2, "learning_rate": 0.01,
                                     "weight_decay": 0.001})
    data = cv.concatenate(config, [cv._as_arrays(config, *fake_game(None, s)[:4]) for s in (5, 4)])  # 5 decisions
    lines = []
    fitted = cv._fit(config, 1, data, data, lambda *a, **k: lines.append((a, k)))
    rng = np.random.default_rng([config.seed, 0xF17, 1])
    torch.manual_seed(int(rng.integers(2**63)))
    net = cv.CandidateValueNet(OBS, config.embedding_width)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01, weight_decay=0.001)
    observations, features, owners, targets = (torch.as_tensor(a) for a in data)
    steps, step = 2 * 3, 0  # 5 decisions: minibatches of 2, 2 and 1
    train_losses = []
    for epoch in range(2):
        perm = rng.permutation(5)
        total = 0.0
        for start in (0, 2, 4):
            chosen = perm[start:start + 2]
            rows = np.concatenate([np.flatnonzero(owners.numpy() == d) for d in chosen])
            local = torch.as_tensor(np.repeat(np.arange(len(chosen)), 2))  # each decision has 2 candidates
            loss = ((net(observations[chosen], features[rows], local) - targets[rows]) ** 2).mean()
            for group in optimizer.param_groups:
                group["lr"] = 0.01 * (1 - step / steps)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            total += loss.item() * len(rows)
        train_losses.append(total / 10)  # the mean over the epoch's 10 candidates
    for a, b in zip(fitted.state_dict().values(), net.state_dict().values()):
        assert torch.allclose(a, b, atol=1e-6)
    assert not fitted.training  # left in evaluation mode
    assert lines[0] == (("  network 2/2",), {"flush": True})
    error, best = cv.evaluate_fit(fitted, data)
    assert lines[2] == ((f"  epoch 2/2: train loss {train_losses[1]:.4f}, held-out loss {error:.4f}, best candidate "
                         f"agrees {best:.3f}",), {"flush": True})
    assert lines[1][0][0].startswith(f"  epoch 1/2: train loss {train_losses[0]:.4f}, held-out loss ")
    assert len(lines) == 3


class Recorded:
    """A stand-in agent that records how it was made and reset."""

    made = []

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs
        Recorded.made.append(self)

    def reset(self, config, seat, rng):
        self.config, self.seat, self.draw = config, seat, int(rng.integers(2**63))


@pytest.mark.parametrize("student, meta, advice, teacher", [
    (None, None, True, False), (None, None, False, False), (None, None, False, True),
    ("net.npz", {"advice": False}, False, False), ("net.npz", {"advice": False}, False, True),
    ("net.npz", {"advice": False, "effects": True}, False, False),
    ("net.npz", {"advice": False, "effects": True, "destinations": True}, False, False),
    ("net.npz", {"advice": False, "effects": True, "destinations": True, "bid_destinations": True}, False, False),
    ("net.npz", {}, True, False)])  # a file from before the options
def test_a_labelled_game_seats_the_search_or_the_student_once_and_opponents_drawn_from_the_field(
        monkeypatch, student, meta, advice, teacher):
    """play_labelled's draws, in order, from the game's seed: the game's generator, the searched seat, then per
    seat an opponent (from ``opponents``) and the agent's generator. The searched seat: the student as its file
    says (advice, true when the file does not say; effects and destinations, false when it does not say), else
    the search of the config's advice; either labelled by the search the config's ``teacher_advice`` says."""
    from fifthave.agents.search import DECISION_GROUPS

    games = []
    monkeypatch.setattr(cv, "Game", lambda cfg, rng: games.append((cfg, int(rng.integers(2**63)))) or UNPLAYED)
    monkeypatch.setattr(cv, "play", lambda game, players, hooks: None)
    monkeypatch.setattr(cv, "SearchAgent", lambda **kwargs: Recorded("search", **kwargs))
    monkeypatch.setattr(cv, "AdviceFreeSearchAgent", lambda *args: Recorded("advice-free search", *args))
    monkeypatch.setattr(cv, "LabellingValueAgent", lambda *args: Recorded("student", *args))
    monkeypatch.setattr(cv, "load_values", lambda path: (f"net of {path}", ["bid"], 1, meta))
    for name in ("a", "b"):
        monkeypatch.setitem(AGENT_FACTORIES, name, lambda name=name: Recorded(name))
    Recorded.made = []
    advised_network = (advice or bool(student)) and not teacher  # teacher_advice labels advice-free networks only
    groups = ["bid"] if advised_network else list(DECISION_GROUPS)
    config = CandidateValueConfig(**{**TINY, "num_players": 3, "board": 6, "samples": 3, "depth": 7,
                                     "groups": groups, "opponents": ["a", "b"], "advice": advised_network,
                                     "teacher_advice": teacher})
    labelled = cv.play_labelled(config, 12, student)
    assert labelled[:4] == ([], [], [], []) and labelled.win_share == 0
    rng = np.random.default_rng(12)
    game_seed = rng.integers(2**63)
    seat = int(rng.integers(3))
    (cfg, drawn), = games
    assert (cfg.num_players, cfg.board) == (3, 6) and drawn == np.random.default_rng(game_seed).integers(2**63)
    assert len(Recorded.made) == 3
    assert labelled.opponents == tuple(agent.args[0] for s, agent in enumerate(Recorded.made) if s != seat)
    for s, agent in enumerate(Recorded.made):
        if s == seat:
            # the student plays as its file says (advice), the search labels with the config's samples and depth
            if student:
                assert (agent.args, agent.kwargs) == (("student", "net of net.npz", ["bid"], 1, 3, 7, advice,
                                                       meta.get("effects", False),
                                                       meta.get("destinations", False), teacher,
                                                       meta.get("bid_destinations", False)), {})
            elif advice:
                assert (agent.args, agent.kwargs) == (("search",), dict(samples=3, depth=7, groups=["bid"]))
            else:
                assert (agent.args, agent.kwargs) == (("advice-free search", 3, 7, teacher), {})
        else:
            assert agent.args == (("a", "b")[rng.integers(2)],)
        assert (agent.config, agent.seat) == (cfg, s)
        assert agent.draw == np.random.default_rng(rng.integers(2**63)).integers(2**63)


def test_each_dagger_round_seats_the_latest_fit_on_its_own_deals_and_no_games_means_no_rounds(tmp_path, monkeypatch):
    played = []

    def game(config, seed, student=None, searcher=None, generations=(), weights=None):
        played.append((seed, student and os.path.basename(student)))
        return fake_game(config, seed)

    monkeypatch.setattr(cv, "play_labelled", game)
    settings = {**TINY, "games": 2, "epochs": 1, "ensemble": 1}
    cv.train_values(CandidateValueConfig(**settings, dagger_games=2, dagger_rounds=3, run_dir=str(tmp_path / "a")))
    seed = CandidateValueConfig().seed
    # round 0 keeps the seeds it had before there were several rounds (the committed runs reproduce); round r > 0
    # plays deals of its own, seeded [seed, 0xDA, r]
    round_seeds = [[int(s) for s in np.random.default_rng(key).integers(2**63, size=2)]
                   for key in ([seed, 0xDA], [seed, 0xDA, 1], [seed, 0xDA, 2])]
    assert played[3:] == [(s, student) for seeds, student in zip(
        round_seeds, ["values_first.npz", "values_round1.npz", "values_round2.npz"]) for s in seeds]
    # rounds of no games would only refit on the same labels: none is run, no student saved
    played.clear()
    cv.train_values(CandidateValueConfig(**settings, dagger_games=0, dagger_rounds=2, run_dir=str(tmp_path / "b")))
    assert [student for _, student in played] == [None] * 3
    assert sorted(os.listdir(tmp_path / "b")) == ["labels", "report.json", "values.npz"]


def test_a_given_searcher_is_seated_instead_of_the_search_with_the_same_draws(monkeypatch):
    seated = []
    monkeypatch.setattr(cv, "Game", lambda cfg, rng: UNPLAYED)
    monkeypatch.setattr(cv, "play", lambda game, players, hooks: seated.extend(players))
    monkeypatch.setattr(cv, "AdviceFreeSearchAgent", lambda *args: pytest.fail("the config's search was built"))
    monkeypatch.setitem(AGENT_FACTORIES, "a", lambda: Recorded("a"))
    from fifthave.agents.search import DECISION_GROUPS

    config = CandidateValueConfig(**{**TINY, "num_players": 3, "opponents": ["a"], "advice": False,
                                     "groups": list(DECISION_GROUPS)})
    given = Recorded("given")
    assert cv.play_labelled(config, 12, searcher=given) == ([], [], [], [], ("a", "a"), 0.0)
    rng = np.random.default_rng(12)
    rng.integers(2**63)  # the game's generator
    seat = int(rng.integers(3))
    assert seated[seat] is given and given.seat == seat
    assert [agent.args for agent in seated if agent is not given] == [("a",), ("a",)]


@pytest.mark.parametrize("truncated, winners, share", [(False, [1], 1.0), (False, [0, 1, 2], 1 / 3), (False, [0], 0.0),
                                                       (True, [1], 0.0)])
def test_a_labelled_game_reports_the_searched_seats_win_share_and_who_sat_in_the_other_seats(monkeypatch, truncated,
                                                                                            winners, share):
    monkeypatch.setattr(cv, "Game", lambda cfg, rng: types.SimpleNamespace(truncated=truncated, winners=winners))
    monkeypatch.setattr(cv, "play", lambda game, players, hooks: None)
    monkeypatch.setattr(cv, "AdviceFreeSearchAgent", lambda *args: Recorded("search"))
    for name in ("a", "b"):
        monkeypatch.setitem(AGENT_FACTORIES, name, lambda name=name: Recorded(name))
    from fifthave.agents.search import DECISION_GROUPS

    config = CandidateValueConfig(**{**TINY, "num_players": 3, "opponents": ["a", "b"], "advice": False,
                                     "groups": list(DECISION_GROUPS)})
    seed = next(s for s in range(50) if _searched_seat(s, 3) == 1)
    Recorded.made = []
    labelled = cv.play_labelled(config, seed)
    assert labelled.win_share == pytest.approx(share)
    assert labelled.opponents == tuple(Recorded.made[s].args[0] for s in (0, 2))


def test_a_labelled_games_opponents_are_drawn_by_the_weights_given(monkeypatch):
    monkeypatch.setattr(cv, "Game", lambda cfg, rng: UNPLAYED)
    monkeypatch.setattr(cv, "play", lambda game, players, hooks: None)
    monkeypatch.setattr(cv, "AdviceFreeSearchAgent", lambda *args: Recorded("search"))
    for name in ("a", "b"):
        monkeypatch.setitem(AGENT_FACTORIES, name, lambda name=name: Recorded(name))
    from fifthave.agents.search import DECISION_GROUPS

    config = CandidateValueConfig(**{**TINY, "opponents": ["a", "b"], "advice": False,
                                     "groups": list(DECISION_GROUPS)})
    assert {cv.play_labelled(config, seed, weights=(0.0, 1.0)).opponents for seed in range(5)} == {("b",) * 3}
    assert {cv.play_labelled(config, seed, weights=(1.0, 0.0)).opponents for seed in range(5)} == {("a",) * 3}
    seen = {name for seed in range(5) for name in cv.play_labelled(config, seed).opponents}
    assert seen == {"a", "b"}  # without weights, both


def _searched_seat(seed, num_players):
    rng = np.random.default_rng(seed)
    rng.integers(2**63)  # the game's generator
    return int(rng.integers(num_players))


def test_league_results_count_each_seat_an_entry_held_and_league_weights_follow_pfsp(tmp_path):
    np.savez(tmp_path / "a.npz", *cv._as_arrays(CandidateValueConfig(**TINY), [], [], [], []),
             np.array([["x", "y", "x"], ["y", "y", "z"]]), np.array([1.0, 0.5]))
    np.savez(tmp_path / "b.npz", *cv._as_arrays(CandidateValueConfig(**TINY), [], [], [], []),
             np.array([["x", "z", "z"]]), np.array([0.0]))
    assert cv.league_results([str(tmp_path / "a.npz"), str(tmp_path / "b.npz")]) == {
        "x": [2.0, 3], "y": [2.0, 3], "z": [0.5, 3]}
    np.savez(tmp_path / "old.npz", *cv._as_arrays(CandidateValueConfig(**TINY), [], [], [], []))
    with pytest.raises(ValueError, match=r"old.npz was saved before the labels kept who sat where; delete it"):
        cv.league_results([str(tmp_path / "old.npz")])
    # 4 players (fair share 0.25); the heuristic listed twice, greedy never met; two generations keep 1/6 each
    config = CandidateValueConfig(**{**TINY, "opponents": ["heuristic", "heuristic", "random", "greedy"],
                                     "pfsp_power": 2.0, "pfsp_min_weight": 0.05})
    weights = cv.league_weights(config, {"heuristic": [0.6, 2], "random": [3.0, 3], "values:g.npz": [0.0, 5]}, 2)
    raw = np.array([0.7 ** 2, 0.7 ** 2, 0.05, 0.75 ** 2])  # random always beaten: the floor
    assert np.allclose(weights, np.concatenate([raw / raw.sum() * 4 / 6, [1 / 6, 1 / 6]]))
    assert weights.sum() == pytest.approx(1.0)


def test_a_generation_share_gives_the_generations_that_share_of_the_draws_with_or_without_pfsp():
    config = CandidateValueConfig(**{**TINY, "opponents": ["heuristic", "heuristic", "random", "greedy"],
                                     "past_generations": 3, "generation_share": 0.6})
    assert np.allclose(cv.league_weights(config, None, 2), [0.1, 0.1, 0.1, 0.1, 0.3, 0.3])
    assert np.allclose(cv.league_weights(config, None, 0), [0.25] * 4)  # no generation saved yet: no share to give
    pfsp = dataclasses.replace(config, pfsp_power=2.0, pfsp_min_weight=0.05)
    raw = np.array([0.7 ** 2, 0.7 ** 2, 0.05, 0.75 ** 2])
    assert np.allclose(cv.league_weights(pfsp, {"heuristic": [0.6, 2], "random": [3.0, 3]}, 3),
                       np.concatenate([raw / raw.sum() * 0.4, [0.2, 0.2, 0.2]]))
    # without a share, the generations are entries like the names (the committed runs' draws, unchanged)
    assert np.allclose(cv.league_weights(dataclasses.replace(config, generation_share=0.0), None, 2), 1 / 6)


def test_a_generation_share_is_checked():
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"generation_share must be a number from 0.0 to 1.0, got {bad}"):
            CandidateValueConfig(**{**TINY, "past_generations": 1, "generation_share": bad})
    with pytest.raises(ValueError, match="generation_share 0.5 needs past_generations above 0"):
        CandidateValueConfig(**{**TINY, "generation_share": 0.5})


def test_pfsp_settings_are_checked():
    with pytest.raises(ValueError, match="pfsp_power must be a number from 0.0, got -1.0"):
        CandidateValueConfig(**{**TINY, "pfsp_power": -1.0})
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError, match=f"pfsp_min_weight must be a number above 0.0 to 1.0, got {bad}"):
            CandidateValueConfig(**{**TINY, "pfsp_min_weight": bad})
