"""Two agents at the same tables: the candidate's win share per seat minus the baseline's, paired by deal.

Run: ``PYTHONPATH=. .venv/bin/python scripts/head_to_head.py BASELINE CANDIDATE --players 2 --games 1000
--seed 2026 --workers 2 --out FILE.json``

BASELINE and CANDIDATE are agent names (``fifthave.agents.tournament.agent_factory``: a committed model,
``values:FILE.npz``, ``heuristic``, ...). Seats alternate between the two and rotate, with 3 players also the
mirror lineup; a truncated game is a loss for both (``fifthave.train.values_curve.paired_head_to_head``, what a
run's curve plays between its generations). The JSON has the form of the ``*_head_to_head.json`` files under
``results/training/values_selfplay/probes/``.
"""

import argparse
import json

from fifthave.agents.tournament import agent_factory
from fifthave.train.values_curve import paired_head_to_head
from fifthave_env.runtime import atomic_write_text


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline")
    parser.add_argument("candidate")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--board", type=int, choices=(5, 6), default=5)
    parser.add_argument("--games", type=int, default=1000, help="games per lineup, a multiple of --players")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default=None, help="write the result to this JSON file")
    args = parser.parse_args(argv)
    baseline, candidate = ((name, agent_factory(name)) for name in (args.baseline, args.candidate))
    result = paired_head_to_head(baseline, candidate, args.players, args.board, args.games, args.seed, args.workers)
    report = {"baseline": args.baseline, "candidate": args.candidate,
              "command": f"scripts/head_to_head.py {args.baseline} {args.candidate} --players {args.players} "
                         f"--board {args.board} --games {args.games} --seed {args.seed}",
              "result": {k: round(v, 4) if isinstance(v, float) else v for k, v in result.items()}}
    text = json.dumps(report, indent=1) + "\n"
    if args.out:
        atomic_write_text(args.out, text)
    print(text, end="")
    return report


if __name__ == "__main__":
    main()
