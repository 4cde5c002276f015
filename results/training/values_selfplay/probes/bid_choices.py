"""Where a run's first fit and its labels choose to pass: on the held-out bid decisions of RUN (the searched seat's
own games), how often the best-labelled candidate and the network's choice pass, and where they differ.

    python bid_choices.py RUN [NETWORK]     (NETWORK: an agent file of the run, values_first.npz unless given)"""
import os
import sys

import numpy as np

from fifthave.agents.learned import _BID
from fifthave.train.candidate_values import CandidateValueConfig, decision_bounds, with_destinations
from fifthave.train.values_agent import load_values

run = sys.argv[1]
net, _, _, meta = load_values(os.path.join(run, sys.argv[2] if len(sys.argv) > 2 else "values_first.npz"))
config = CandidateValueConfig(**meta["training"]["config"])
with np.load(os.path.join(run, "labels", "held_out_0000.npz"), allow_pickle=False) as f:
    observations, features, owners, targets = with_destinations(config, tuple(f[f"arr_{i}"] for i in range(4)))
counts = dict.fromkeys(("bid decisions", "best label passes", "network passes", "network bids, label passes",
                        "network passes, label bids", "same candidate"), 0)
for start, end in zip(*decision_bounds(owners)):
    passes = features[start:end, _BID] == 1
    if not passes.any() or end - start < 2:
        continue
    best = int(np.argmax(targets[start:end]))
    chosen = int(np.argmax(net.values(observations[owners[start]], features[start:end])))
    counts["bid decisions"] += 1
    counts["best label passes"] += bool(passes[best])
    counts["network passes"] += bool(passes[chosen])
    counts["network bids, label passes"] += bool(passes[best] and not passes[chosen])
    counts["network passes, label bids"] += bool(passes[chosen] and not passes[best])
    counts["same candidate"] += best == chosen
print(counts)
