"""Whether a network's bids lean against passing by a constant: on the bid decisions of RUN's label chunks matching
PATTERN, the mean error of its pass and bid values (each less the decision's mean, against the labels' likewise),
then, for a bonus added to the pass at play time, the label value its choice gives up (regret) and its passes.

    python pass_bonus.py RUN NETWORK PATTERN     (NETWORK: an agent file of the run; PATTERN: e.g. 'dagger_*')"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bid_choices import bid_decisions  # noqa: E402

decisions = [(values, labels, passes) for values, labels, _, passes in bid_decisions(*sys.argv[1:4])]
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
