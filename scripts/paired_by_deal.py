"""Two agents compared on the same deals: the difference of their win rates, paired by deal.

Run: ``PYTHONPATH=. .venv/bin/python scripts/paired_by_deal.py BASELINE_STEM CANDIDATE_STEM``

Each STEM is a ``fifthave tournament --out STEM`` result whose first agent is the one compared (``--agents A
heuristic*3``), both played with the same ``--games`` and ``--seed`` (so the same deals and seat rotations).
Per deal, an agent's value is its win share over the deal's rotations, a truncated game counting as a loss
(issue 35's rule; the tournament's table credits the R28 leaders instead); the difference and its interval come
from ``fifthave.agents.stats.paired_difference`` (bootstrap over deals); the shares from
``fifthave.agents.tournament.deal_win_shares``.
"""

import argparse
import json

import numpy as np

from fifthave.agents.stats import paired_difference
from fifthave.agents.tournament import TournamentResult, deal_win_shares


def shares_and_truncated(stem):
    """({deal: win share of the first agent}, truncated games) of a saved tournament."""
    records = TournamentResult.load(stem).records
    return deal_win_shares(records), sum(record["truncated"] for record in records)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline")
    parser.add_argument("candidate")
    args = parser.parse_args(argv)
    (a, a_truncated), (b, b_truncated) = shares_and_truncated(args.baseline), shares_and_truncated(args.candidate)
    if sorted(a) != sorted(b):
        raise SystemExit("the two tournaments were not played on the same deals (same --games and --seed)")
    deals = sorted(a)
    result = paired_difference(np.array([a[d] for d in deals]), np.array([b[d] for d in deals]))
    result.update(baseline_truncated=a_truncated, candidate_truncated=b_truncated)
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}, indent=1))


if __name__ == "__main__":
    main()
