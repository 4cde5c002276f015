"""The advice-free labelling search (4 samples, depth D) in one seat against heuristics in every other seat.

    python expert.py DEPTH GAMES OUT [PLAYERS]     (4 players unless PLAYERS)"""
import functools, sys
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.train.values_agent import AdviceFreeSearchAgent
depth, games, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
players = int(sys.argv[4]) if len(sys.argv) > 4 else 4
lineup = ([(f"expert-d{depth}", functools.partial(AdviceFreeSearchAgent, 4, depth))]
          + [("heuristic", agent_factory("heuristic"))] * (players - 1))
result = run_tournament(lineup, num_players=players, board=5, games=games, seed=2026, workers=1)
result.save(out)
row = result.row(f"expert-d{depth}")
print(depth, row["win_rate"], row["win_ci_low"], row["win_ci_high"], result.act_ms())
