"""Probe (issue 35): do features of what a candidate does help the advice-free candidate-value network fit its labels?

The stored labels of a candidate-value run hold each candidate's action one-hot and bid summary
(``candidate_features``) only. This script replays labelled games from their seeds (the first ``--train-games``
training games, drawn from ``collect``'s seeds, and the first ``--held-out-games`` held-out games; the stored
observations, features and labels are checked to come back bit for bit) and computes, per candidate, a few
*effect* features (``effect_features``) on a determinization the seat's own sampler draws (so from what the seat
may know only) with a generator of its own (the game and the search are not disturbed). It then fits one network
on the old features and one on old + effect features, same subset, same fit settings and seed, and reports
held-out agreement (ties count) and regret per decision kind (``scripts/refit_values.py``'s measures):

    PYTHONPATH=$PWD python scripts/candidate_effects.py runs/values-all-4p-r6 --train-games 300 \\
        --replayed build/effects300.npz --out build/effects300

``--replayed``: the replay's arrays are written there, and read back instead of replaying when it exists.
The six effect features became the library's (``effects: true`` in a candidate-value config); the follow-up
columns are this probe's only.
"""

import argparse
import dataclasses
import json
import multiprocessing
import os
import time

import numpy as np
import torch

from fifthave.agents.search import projected_scores, projected_value
from fifthave.train import candidate_values, values_agent
from fifthave.train.candidate_values import _as_arrays, _load_chunk, concatenate, fit
from fifthave.train.config import load_run_config
from fifthave.train.values_agent import AdviceFreeSearchAgent
from fifthave_env.runtime import WorkerPool
from fifthave_env.seat_view import StateView
from fifthave.agents.registry import AGENT_FACTORIES
from fifthave.agents import learned
from fifthave.agents.agentfile import EFFECT_FEATURES
from fifthave.agents.learned import CANDIDATE_FEATURES

from refit_values import decision_metrics  # noqa: E402  (scripts/ is on sys.path when run as a script)

FOLLOW_UP = 2  # more with a follow-up agent


def effect_features(root, seat, candidates, follow_up=None):
    """``fifthave.agents.learned.effect_features`` of the candidates (6 columns; the library's since the probe)
    and, with ``follow_up`` (an agent reset for ``seat``), 2 more: the evaluator's value (x10, minus the
    candidates' mean) and the change of the seat's projected margin after that agent has played the rest of the
    seat's own decisions (until another seat acts; no other seat plays)."""
    x = learned.effect_features(root, seat, candidates)
    if follow_up is None:
        return x
    before = projected_scores(root)
    margin_before = before[seat] - max(before[q] for q in range(root.n) if q != seat)
    later = np.empty((len(candidates), 2))
    for i, macro in enumerate(candidates):
        g = root.clone()
        for action in macro:
            g.apply(action)
        for _ in range(40):
            if g.is_over or g.actor != seat:
                break
            g.apply(int(follow_up.act_view(StateView(g, seat))))
        scores = projected_scores(g)
        later[i] = (projected_value(g, seat) * 10.0,
                    (scores[seat] - max(scores[q] for q in range(g.n) if q != seat) - margin_before) / 10.0)
    return np.column_stack([x, later[:, 0] - later[:, 0].mean(), later[:, 1]]).astype(np.float32)


class EffectSearch(AdviceFreeSearchAgent):
    """The labelling search, which also records ``effect_features`` of each searched decision on one
    determinization of its own generator (its game and its own generator are left as they were)."""

    def __init__(self, samples, depth, rng, follow_up):
        super().__init__(samples, depth)
        self.effect_rng, self.effects = rng, []
        self.follow_up = AGENT_FACTORIES["heuristic"]() if follow_up else None

    def reset(self, config, seat, rng):
        super().reset(config, seat, rng)
        if self.follow_up is not None:
            self.follow_up.reset(config, seat, np.random.default_rng(self.effect_rng.integers(2**63)))

    def _choose(self, view, candidates, default):
        chosen = super()._choose(view, candidates, default)
        self.effects.append(effect_features(self.sampler(self.effect_rng), self.seat, candidates, self.follow_up))
        return chosen


def replay(config, seed, follow_up):
    """``play_labelled``'s game of ``seed`` (advice-free, no student): its labelled arrays and effect features."""
    searcher = EffectSearch(config.samples, config.depth, np.random.default_rng([0xEF, seed]), follow_up)
    observations, features, owners, targets = candidate_values.play_labelled(config, seed, searcher=searcher)[:4]
    effects = searcher.effects
    assert len(effects) == len(observations), "a search without a label"
    return (observations, features, owners, targets,
            np.concatenate(effects) if effects else np.zeros((0, EFFECT_FEATURES + FOLLOW_UP * follow_up), np.float32))


def _replay(job):
    return replay(*job)


def replay_games(config, seeds, workers, follow_up):
    jobs = [(config, seed, follow_up) for seed in seeds]
    if workers > 1:
        with WorkerPool(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            games = list(pool.map(_replay, jobs, chunksize=4))
    else:
        games = list(map(_replay, jobs))
    observations, features, owners, targets, effects = [], [], [], [], []
    for obs, feats, own, tgt, eff in games:
        owners += [o + len(observations) for o in own]
        observations += obs
        features += feats
        targets += tgt
        effects.append(eff)
    return (*_as_arrays(config, observations, features, owners, targets), np.concatenate(effects))


def check_reproduced(replayed, stored, name):
    """The replayed arrays are the stored ones' first rows, bit for bit."""
    n_obs, n_rows = len(replayed[0]), len(replayed[3])
    same = (np.array_equal(replayed[0], stored[0][:n_obs]) and np.array_equal(replayed[1], stored[1][:n_rows])
            and np.array_equal(replayed[2], stored[2][:n_rows]) and np.array_equal(replayed[3], stored[3][:n_rows]))
    print(f"{name}: {n_obs} decisions, {n_rows} candidates; stored labels reproduced: {same}", flush=True)
    if not same:
        raise SystemExit(f"{name}: the replay does not reproduce the stored labels")


def fit_and_judge(config, data, held_out, extra):
    """Fit on ``data`` (features widened by ``extra`` columns); held-out measures of the fitted network."""
    width = values_agent.candidate_width
    values_agent.candidate_width = lambda effects: CANDIDATE_FEATURES + extra  # the torch net's candidate input
    try:
        started = time.perf_counter()
        net = fit(config, data, held_out)
        with torch.no_grad():
            predicted = net(*(torch.as_tensor(a) for a in held_out[:3])).numpy()
    finally:
        values_agent.candidate_width = width
    observations, features, owners, targets = held_out
    first_actions = features[:, :147].argmax(axis=1)
    return {"fit_seconds": round(time.perf_counter() - started, 1),
            "held_out_mse": round(float(np.mean((predicted - targets) ** 2)), 4),
            "held_out": decision_metrics(predicted, targets, owners, first_actions),
            "train": decision_metrics(_predict(net, data), data[3], data[2], data[1][:, :147].argmax(axis=1))}


def _predict(net, data):
    with torch.no_grad():
        return net(*(torch.as_tensor(a) for a in data[:3])).numpy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--train-games", type=int, default=300, help="first N training games to replay")
    parser.add_argument("--held-out-games", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a fit field")
    parser.add_argument("--fit-seeds", type=int, nargs="+", default=[0],
                        help="fit seeds (the run's seed only chooses the replayed games); one pair of fits each")
    parser.add_argument("--follow-up", action="store_true",
                        help="also the features after the heuristic plays the rest of the seat's decisions")
    parser.add_argument("--replayed", required=True, help="npz of the replay (written, or read if it exists)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    config = load_run_config(os.path.join(args.run_dir, "run_config.json")).trainer_config(args.out)
    changes = {"ensemble": 1, **{k: json.loads(v) for k, _, v in (t.partition("=") for t in args.set)}}
    config = dataclasses.replace(config, **changes)
    assert not config.advice and config.depth == 1
    os.makedirs(args.out, exist_ok=True)
    if os.path.exists(args.replayed):
        with np.load(args.replayed) as f:
            train, held = (tuple(f[f"{part}_{i}"] for i in range(5)) for part in ("train", "held"))
    else:
        rng = np.random.default_rng([config.seed, 0xCA])  # train_values' order: held-out seeds, then training
        held_seeds = [int(s) for s in rng.integers(2**63, size=config.held_out_games)][:args.held_out_games]
        train_seeds = [int(s) for s in rng.integers(2**63, size=config.games)][:args.train_games]
        started = time.perf_counter()
        held = replay_games(config, held_seeds, args.workers, args.follow_up)
        train = replay_games(config, train_seeds, args.workers, args.follow_up)
        print(f"replayed {len(held_seeds) + len(train_seeds)} games in {time.perf_counter() - started:.0f} s")
        store = os.path.join(args.run_dir, "labels")
        check_reproduced(held, _load_chunk(os.path.join(store, "held_out_0000.npz"), config), "held out")
        stored = concatenate(config, [_load_chunk(os.path.join(store, f"train_{k:04d}.npz"), config)
                                      for k in range(-(-args.train_games // 50))])
        check_reproduced(train, stored, "train")
        np.savez_compressed(args.replayed, **{f"{part}_{i}": a for part, arrays in (("train", train), ("held", held))
                                              for i, a in enumerate(arrays)})
    report = {"set": changes, "train_games": args.train_games, "held_out_games": args.held_out_games,
              "train_decisions": len(train[0]), "held_out_decisions": len(held[0])}
    widen = lambda d: (d[0], np.concatenate([d[1], d[4]], axis=1), d[2], d[3])  # noqa: E731
    for fit_seed in args.fit_seeds:
        fit_config = dataclasses.replace(config, seed=fit_seed)
        report[f"old_{fit_seed}"] = fit_and_judge(fit_config, train[:4], held[:4], 0)
        report[f"effects_{fit_seed}"] = fit_and_judge(fit_config, widen(train), widen(held), train[4].shape[1])
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(table(report))


def table(report):
    """Markdown rows: per decision kind, held-out agreement and regret of each fit."""
    fits = [k for k in report if k.startswith(("old_", "effects_"))]
    lines = ["| kind | held-out decisions | " + " | ".join(f"{k} agree / regret" for k in fits) + " |",
             "|---|---|" + "---|" * len(fits)]
    for kind, row in report[fits[0]]["held_out"].items():
        cells = [f"{report[k]['held_out'][kind]['best_agrees']:.3f} / {report[k]['held_out'][kind]['regret']:.3f}"
                 for k in fits]
        lines.append(f"| {kind} | {row['decisions']} | " + " | ".join(cells) + " |")
    cells = [f"{report[k]['train']['all']['best_agrees']:.3f} / {report[k]['train']['all']['regret']:.3f}"
             for k in fits]
    lines.append(f"| (training decisions, all) | {report['train_decisions']} | " + " | ".join(cells) + " |")
    cells = [f"{report[k]['held_out_mse']:.3f}" for k in fits]
    lines.append("| (held-out MSE) | | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
