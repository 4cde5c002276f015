"""The advice-free labelling search (4 samples unless SAMPLES, depth D) in one seat against heuristics (or OPPONENT)
in every other seat; with ``advised``, the plain ``SearchAgent`` at the same samples and depth instead (the
heuristic's bid among its candidates and its prior for the heuristic's choice: its default, or PRIOR); with
``teacher``, the labelling search of ``teacher_advice`` (the advice-free candidates, advised as ``SearchAgent``).

    python expert.py DEPTH GAMES OUT [PLAYERS [OPPONENT [SAMPLES [advised[:PRIOR]|teacher]]]]   (4 players unless
    PLAYERS; OPPONENT: an agent name)"""
import functools, sys
from fifthave.agents.search import SearchAgent
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.train.values_agent import AdviceFreeSearchAgent
depth, games, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
players = int(sys.argv[4]) if len(sys.argv) > 4 else 4
opponent = sys.argv[5] if len(sys.argv) > 5 else "heuristic"
samples = int(sys.argv[6]) if len(sys.argv) > 6 else 4
advised = len(sys.argv) > 7 and sys.argv[7].startswith("advised")
teacher = len(sys.argv) > 7 and sys.argv[7] == "teacher"
prior = sys.argv[7].partition(":")[2] if advised else ""
name = ("advised" if advised else "teacher" if teacher else "expert") + f"-d{depth}" + (f"-s{samples}" if samples != 4 else "")
name += f"-p{float(prior):g}" if prior else ""
player = (functools.partial(SearchAgent, depth=depth, samples=samples, name=name,
                            **({"prior": float(prior)} if prior else {})) if advised
          else functools.partial(AdviceFreeSearchAgent, samples, depth, teacher))
lineup = [(name, player)] + [(opponent, agent_factory(opponent))] * (players - 1)
result = run_tournament(lineup, num_players=players, board=5, games=games, seed=2026, workers=1)
result.save(out)
row = result.row(name)
print(depth, row["win_rate"], row["win_ci_low"], row["win_ci_high"], result.act_ms())
