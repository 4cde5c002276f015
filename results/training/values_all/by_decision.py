"""Where an advice-free network loses: the HeuristicAgent takes over some decision kinds, the network the rest.

    PYTHONPATH=. .venv/bin/python results/training/values_all/by_decision.py runs/values-all-4p/values_first.npz 200 \
        plots bids choose+move board

One seat against three HeuristicAgents (4 players, 5-plot board, seats rotated, seed 2026); one line per
set of decision kinds the heuristic plays: the win rate with its interval clustered by deal.
"""

import functools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))

from fifthave.agents.heuristic import HeuristicAgent  # noqa: E402
from fifthave.agents.learned import AgentFileFactory  # noqa: E402
from fifthave.agents.tournament import agent_factory, run_tournament  # noqa: E402
from fifthave.agents.view import SeatView  # noqa: E402
from fifthave_env.engine import game as G  # noqa: E402

HEURISTIC_PLAYS = {
    "plots": {G.PLACE_START_DECISION, G.SHOP_PLOT_DECISION},
    "bids": {G.BID_DECISION},
    "choose+move": {G.CHOOSE_ACTION_DECISION, G.MOVE_DECISION},
    "board": {G.SHOP_TILE_DECISION, G.BUILD_DECISION, G.DRAW_COLOR_DECISION, G.SCORE_DISTRICT_DECISION},
}


class Hybrid:
    """The network of ``path``, except at the decision ``kinds``, which a HeuristicAgent plays."""

    def __init__(self, path, kinds):
        self.inner = AgentFileFactory(path)()
        self.kinds = kinds
        self.observation_layout = self.inner.observation_layout
        self.name = "hybrid"

    def reset(self, config, seat, rng):
        self.inner.reset(config, seat, rng)
        self.heuristic = HeuristicAgent()
        self.heuristic.reset(config, seat, np.random.default_rng(rng.integers(2**63)))
        self.config = config

    def act(self, observation, mask):
        view = SeatView(observation, mask, self.config)
        if view.decision in self.kinds and not self.inner.plan:
            return self.heuristic.act_view(view)
        return self.inner.act(observation, mask)


def main():
    path, games = sys.argv[1], int(sys.argv[2])
    for label in sys.argv[3:]:
        lineup = [("hybrid", functools.partial(Hybrid, path, HEURISTIC_PLAYS[label]))]
        lineup += [("heuristic", agent_factory("heuristic"))] * 3
        row = run_tournament(lineup, num_players=4, games=games, seed=2026, workers=1).row("hybrid")
        print(f"heuristic plays {label}: {row['win_rate']:.3f} [{row['win_ci_low']:.3f}, {row['win_ci_high']:.3f}], "
              f"{games} games", flush=True)


if __name__ == "__main__":
    main()
