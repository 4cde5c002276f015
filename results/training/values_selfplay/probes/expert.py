"""The advice-free labelling search (4 samples, depth D) in one seat against three heuristics."""
import functools, sys
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.train.values_agent import AdviceFreeSearchAgent
depth, games, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
lineup = [(f"expert-d{depth}", functools.partial(AdviceFreeSearchAgent, 4, depth))] + [("heuristic", agent_factory("heuristic"))] * 3
result = run_tournament(lineup, num_players=4, board=5, games=games, seed=2026, workers=1)
result.save(out)
row = result.row(f"expert-d{depth}")
print(depth, row["win_rate"], row["win_ci_low"], row["win_ci_high"], result.act_ms())
