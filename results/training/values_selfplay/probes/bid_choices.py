"""Where a network and its labels choose to pass: on the bid decisions of RUN's label chunks matching PATTERN
(``held_out_*``, the teacher's own games, unless given; ``dagger_*`` are games the network played), how often the
best-labelled candidate and the network's choice pass, where they differ, the label value the network's choice gives
up (regret), and the mean bid total of each when it bids. ``pass_bonus.py`` reads the same decisions.

    python bid_choices.py RUN [NETWORK] [PATTERN]     (NETWORK: an agent file of the run, values_first.npz unless given)"""
import glob
import os
import sys

import numpy as np

from fifthave.agents.learned import _BID
from fifthave.train.candidate_values import CandidateValueConfig, _load_chunk, decision_bounds, with_destinations
from fifthave.train.values_agent import load_values


def bid_decisions(run, network, pattern):
    """(network values, labels, candidate features, which candidates pass) of each bid decision with a choice."""
    net, _, _, meta = load_values(os.path.join(run, network))
    config = CandidateValueConfig(**meta["training"]["config"])
    for path in sorted(glob.glob(os.path.join(run, "labels", pattern))):
        observations, features, owners, targets = with_destinations(config, _load_chunk(path, config))
        for start, end in zip(*decision_bounds(owners)):
            passes = features[start:end, _BID] == 1
            if passes.any() and end - start >= 2:
                yield (net.values(observations[owners[start]], features[start:end]), targets[start:end],
                       features[start:end], passes)


def main(run, network="values_first.npz", pattern="held_out_*"):
    counts = dict.fromkeys(("bid decisions", "best label passes", "network passes", "network bids, label passes",
                            "network passes, label bids", "same candidate"), 0)
    regrets, network_totals, label_totals = [], [], []
    for values, labels, features, passes in bid_decisions(run, network, pattern):
        best, chosen = int(np.argmax(labels)), int(np.argmax(values))
        counts["bid decisions"] += 1
        counts["best label passes"] += bool(passes[best])
        counts["network passes"] += bool(passes[chosen])
        counts["network bids, label passes"] += bool(passes[best] and not passes[chosen])
        counts["network passes, label bids"] += bool(passes[chosen] and not passes[best])
        counts["same candidate"] += best == chosen
        regrets.append(labels[best] - labels[chosen])
        for index, totals in ((chosen, network_totals), (best, label_totals)):
            if not passes[index]:
                totals.append(30 * features[index, _BID + 2])  # the feature is the bid total / 30
    print(counts)
    print(f"mean regret {np.mean(regrets):.4f}; mean bid total: network {np.mean(network_totals):.2f}, "
          f"best label {np.mean(label_totals):.2f}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
