"""Fit a candidate-value ensemble again on the labels a run stored, with other fit settings; report the held-out fit.

No game is played: the labels of ``RUN_DIR/labels`` (its first games and every DAgger round's, in the order the
run made them) are fitted with the run's config changed by ``--set`` (fit fields only: ``epochs``,
``learning_rate``, ``embedding_width``, ``ensemble``, ``mse_weight``, ``listwise_weight``,
``listwise_temperature``, ...), and the network is written to ``OUT/values.npz`` (an agent file:
``values:OUT/values.npz``) with ``OUT/report.json``. The report judges the fit on the held-out games by what the
agent does, the argmax: the share of decisions where the network's best candidate is one the labels value most
(ties count: a third of the decisions have all candidates tied), and the regret (label of the labels' best
minus label of the network's choice, in scaled label units); with ``--noise`` (``scripts/label_noise.py``'s
output on the same games), also against the independent, less noisy labels of its searches (the last, 64
samples, by default).

    PYTHONPATH=$PWD python scripts/refit_values.py runs/values-all-4p-r6 --set listwise_weight=1 \\
        --noise build/noise40.npz --out build/refit/listwise
"""

import argparse
import dataclasses
import glob
import json
import os
import time

import numpy as np
import torch

from fifthave.train.candidate_values import (_load_chunk, concatenate, decision_bounds, fit, replay_window,
                                            with_destinations)
from fifthave.train.config import load_run_config
from fifthave.train.values_agent import load_values, save_values
from fifthave_env.engine.actions import NUM_ACTIONS

KINDS = [(142, "build"), (122, "bid"), (115, "score"), (97, "move"), (92, "draw"), (50, "shop_plot"),
         (46, "shop_tile"), (4, "place_start"), (0, "choose")]  # first action id of a decision kind (actions.py)


def kind_of(first_action):
    return next(name for low, name in KINDS if first_action >= low)


def stored_labels(run_dir, config):
    """(training labels in the run's order, those of the latest ``config.replay_rounds`` label sets if it is not 0,
    as the run's last fit reads them; held-out labels) of the run's label store."""
    store = os.path.join(run_dir, "labels")
    sets = [sorted(glob.glob(os.path.join(store, "train_*.npz")))]
    dagger = sorted(glob.glob(os.path.join(store, "dagger_*_0000.npz")), key=os.path.getmtime)  # round order
    for first in dagger:
        sets.append(sorted(glob.glob(first[:-len("0000.npz")] + "*.npz")))
    chosen = replay_window(config, [paths for paths in sets if paths])  # files first: the labels are copied once
    held_out = [_load_chunk(p, config) for p in sorted(glob.glob(os.path.join(store, "held_out_*.npz")))]
    training = concatenate(config, [_load_chunk(p, config) for paths in chosen for p in paths])
    return training, concatenate(config, held_out)


def decision_metrics(predicted, labels, owners, first_actions):
    """Per decision kind and overall: decisions, share where the predicted argmax has the best label (ties
    count), mean regret (best label minus the chosen candidate's), share with any label difference."""
    rows = {}
    for a, b in zip(*decision_bounds(owners)):
        lab = labels[a:b]
        chosen = lab[predicted[a:b].argmax()]
        row = (lab.max() == chosen, lab.max() - chosen, lab.max() > lab.min())
        for kind in ("all", kind_of(int(first_actions[a]))):
            rows.setdefault(kind, []).append(row)
    return {kind: {"decisions": len(r), "best_agrees": round(float(np.mean([x[0] for x in r])), 4),
                   "regret": round(float(np.mean([x[1] for x in r])), 4),
                   "with_signal": round(float(np.mean([x[2] for x in r])), 4)} for kind, r in rows.items()}


def numpy_predictions(net, data):
    """The value a numpy network (``NumpyValueNet`` or alike, as agents play it) gives every candidate of
    ``data`` (observations, candidate features, decision of each candidate, labels), decision by decision."""
    observations, features, owners, _ = data
    return np.concatenate([net.values(observations[d], features[owners == d]) for d in range(len(observations))])


def with_action_head():
    """Experiment (``--action-head``; torch only, no agent file can hold it): each network also gets a linear
    output per action id from the observation's embedding, added to the value of candidates with that first
    action, as a DQN-style Q-head has - a direct way for the observation to value each plot, location or choice.
    """
    from torch import nn

    from fifthave.train import candidate_values, values_agent

    class ActionHeadNet(values_agent.CandidateValueNet):
        def __init__(self, obs_size, hidden=256, head=128):
            super().__init__(obs_size, hidden, head)
            self.action = nn.Linear(hidden, NUM_ACTIONS)

        def forward(self, observations, candidates, owner):
            state = self.state(observations)
            value = self.head(state[owner] + self.candidate(candidates)).squeeze(-1)
            return value + (self.action(state)[owner] * candidates[:, :NUM_ACTIONS]).sum(-1)

    values_agent.CandidateValueNet = candidate_values.CandidateValueNet = ActionHeadNet


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="a candidate_values fit field (repeatable)")
    parser.add_argument("--noise", help="scripts/label_noise.py's output on the run's held-out games")
    parser.add_argument("--noise-search", type=int, default=-1, help="which further search of --noise to judge by")
    parser.add_argument("--action-head", action="store_true", help="experiment: see with_action_head")
    parser.add_argument("--evaluate", metavar="AGENT_FILE", help="judge this network instead of fitting one")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    config = load_run_config(os.path.join(args.run_dir, "run_config.json")).trainer_config(args.out)
    changes = {key: json.loads(value) for key, _, value in (text.partition("=") for text in args.set)}
    config = dataclasses.replace(config, **changes)  # checked again by __post_init__
    os.makedirs(args.out, exist_ok=True)
    started = time.perf_counter()
    data, held_out = stored_labels(args.run_dir, config)
    print(f"{len(data[0])} decisions, {len(data[3])} candidates; held out {len(held_out[0])}", flush=True)
    _, features, owners, targets = held_out
    if args.action_head:
        with_action_head()
        changes["action_head"] = True
    readable = with_destinations(config, held_out)  # the candidates' features as the network reads them
    if args.evaluate:  # an agent file's network, as it plays (numpy)
        predicted = numpy_predictions(load_values(args.evaluate)[0], readable)
        changes = {"evaluated": args.evaluate}
    else:
        net = fit(config, data, held_out)
        with torch.no_grad():
            predicted = net(*(torch.as_tensor(a) for a in readable[:3])).numpy()
    seconds = time.perf_counter() - started
    first_actions = features[:, :NUM_ACTIONS].argmax(axis=1)
    report = {"set": changes, "decisions": len(data[0]), "fit_seconds": round(seconds, 1),
              "held_out_mse": round(float(np.mean((predicted - targets) ** 2)), 4),
              "stored_labels": decision_metrics(predicted, targets, owners, first_actions)}
    if args.noise:
        noise = np.load(args.noise)
        n = len(noise["label"])
        assert np.array_equal(noise["label"], targets[:n]), "--noise is not of these held-out games"
        report["independent_labels"] = decision_metrics(predicted[:n], noise["further"][args.noise_search],
                                                        owners[:n], first_actions[:n])
    if not (args.evaluate or args.action_head):
        report["weights_sha256"] = save_values(os.path.join(args.out, "values.npz"), net,
                                               dataclasses.asdict(config), report)
    with open(os.path.join(args.out, "report.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps({k: report[k] for k in ("set", "fit_seconds", "held_out_mse")}))
    for name in ("stored_labels", "independent_labels"):
        if name in report:
            print(name, json.dumps(report[name]["all"]))


if __name__ == "__main__":
    main()
