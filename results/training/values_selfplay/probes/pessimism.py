"""Ensemble pessimism at play time: the network agent of an agent file plays the candidate with the largest
``mean - K * std`` over its ensemble's members instead of the largest mean (K 0: the agent as committed).

The optimizer's curse reading of the overbidding (the largest of several close, noisy bid values beats the pass
more often than the labels do) predicts that discounting the values the members disagree on lowers the
overbidding and raises the win rate; the members' spread is only the fit's noise, not the labels'.

    python pessimism.py AGENT_FILE K PLAYERS GAMES OPPONENT OUT [WORKERS]

writes ``OUT.json/.csv/.png`` (a ``fifthave tournament --out`` result, the agent first, seed 2026: pair two of them
with ``scripts/paired_by_deal.py``) and prints the agent's table row. K 0 replays the agent as committed."""
import sys

import numpy as np

from fifthave.agents.learned import AgentFileFactory
from fifthave.agents.tournament import agent_factory, run_tournament


class PessimisticNet:
    """``net``'s values less ``k`` times its members' standard deviation."""

    def __init__(self, net, k):
        self.net, self.k = net, k

    def values(self, observation, candidates):
        members = self.net.member_values(observation, candidates)
        return members.mean(axis=0) - self.k * members.std(axis=0)


class PessimisticFactory:
    def __init__(self, path, k):
        self.files, self.k = AgentFileFactory(path, name=f"values-k{k}"), k

    def __call__(self):
        agent = self.files()
        agent.net = PessimisticNet(agent.net, self.k)
        return agent


def main(argv):
    path, k, players, games, opponent, out = argv[:6]
    workers = int(argv[6]) if len(argv) > 6 else 1
    k, players = float(k), int(players)
    factory = PessimisticFactory(path, k)
    result = run_tournament([(f"values-k{k}", factory)] + [(opponent, agent_factory(opponent))] * (players - 1),
                            num_players=players, board=5, games=int(games), seed=2026, workers=workers)
    result.save(out)
    print(f"K {k}:", result.row(f"values-k{k}"))


if __name__ == "__main__":
    main(sys.argv[1:])
