"""Where the search agent's gain lies: search only one kind of decision, HeuristicAgent's move elsewhere.

    PYTHONPATH=. .venv/bin/python results/search/by_decision.py [--groups bid board choose move]
        [--games 200] [--seed 11] [--rollouts 4] [--depth 1] [--workers 2]

Each group plays one seat against three HeuristicAgents (4 players, 5-plot board, seats rotated);
prints one line per group: win rate with its interval clustered by deal, mean VP, auctions won.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from fifthave.agents.search import DECISION_GROUPS, SearchAgent  # noqa: E402
from fifthave.agents.tournament import agent_factory, run_tournament  # noqa: E402


class PartialSearchFactory:
    """Picklable factory for the tournament's worker processes: a SearchAgent searching one group only."""

    def __init__(self, group, rollouts, depth):
        self.group, self.rollouts, self.depth = group, rollouts, depth

    def __call__(self):
        return SearchAgent(rollouts=self.rollouts, depth=self.depth, groups=[self.group],
                           name=f"search-{self.group}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", nargs="+", choices=sorted(DECISION_GROUPS), default=list(DECISION_GROUPS))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--rollouts", type=int, default=4)
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    for group in args.groups:
        label = f"search-{group}"
        entries = [(label, PartialSearchFactory(group, args.rollouts, args.depth))]
        entries += [("heuristic", agent_factory("heuristic"))] * 3
        row = run_tournament(entries, games=args.games, seed=args.seed, num_players=4,
                             workers=args.workers).row(label)
        print(f"{group:7s} win rate {row['win_rate']:.3f} ({row['win_ci_low']:.3f}-{row['win_ci_high']:.3f}), "
              f"mean VP {row['mean_vp']:.1f}, auctions won {row['auctions_won']:.2f}, {row['seat_games']} games",
              flush=True)


if __name__ == "__main__":
    main()
