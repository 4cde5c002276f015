"""Whether a network's bids lean against passing by a constant: on the bid decisions of RUN's label chunks matching
PATTERN, the mean error of its pass and bid values (each less the decision's mean, against the labels' likewise),
then, for a bonus added to the pass at play time, the label value its choice gives up (regret) and its passes.

    python pass_bonus.py RUN NETWORK PATTERN     (NETWORK: an agent file of the run; PATTERN: e.g. 'dagger_*')"""
import glob
import os
import sys

import numpy as np

from fifthave.agents.learned import _BID
from fifthave.train.candidate_values import CandidateValueConfig, decision_bounds, with_destinations
from fifthave.train.values_agent import load_values

run, network, pattern = sys.argv[1:4]
net, _, _, meta = load_values(os.path.join(run, network))
config = CandidateValueConfig(**meta["training"]["config"])
decisions = []  # (network values, labels, which candidates pass) of each bid decision
for path in sorted(glob.glob(os.path.join(run, "labels", pattern))):
    with np.load(path, allow_pickle=False) as f:
        observations, features, owners, targets = with_destinations(config, tuple(f[f"arr_{i}"] for i in range(4)))
    for start, end in zip(*decision_bounds(owners)):
        passes = features[start:end, _BID] == 1
        if passes.any() and end - start >= 2:
            decisions.append((net.values(observations[owners[start]], features[start:end]), targets[start:end], passes))
errors = [values - values.mean() - (labels - labels.mean()) for values, labels, _ in decisions]
print(f"{len(decisions)} bid decisions; mean centred error: pass "
      f"{np.mean([e[p].mean() for e, (_, _, p) in zip(errors, decisions)]):.4f}, "
      f"bid {np.mean([e[~p].mean() for e, (_, _, p) in zip(errors, decisions)]):.4f}")
label_passes = sum(p[int(np.argmax(labels))] for _, labels, p in decisions)
for bonus in (0, 0.02, 0.05, 0.1, 0.2):
    chosen = [int(np.argmax(values + bonus * p)) for values, _, p in decisions]
    regret = np.mean([labels.max() - labels[c] for c, (_, labels, _) in zip(chosen, decisions)])
    passes = sum(p[c] for c, (_, _, p) in zip(chosen, decisions))
    print(f"pass bonus {bonus}: regret {regret:.4f}, network passes {passes} (best label {label_passes})")
