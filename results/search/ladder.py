"""The search agent's strength ladder: each agent in one seat against three HeuristicAgents.

    python results/search/ladder.py [--workers 2] [--only NAME ...]
    python results/search/ladder.py --from-records     # the tables again from the saved games

4 players, 5-plot board, seats rotated (every agent plays every seat on the same deals).
For each rung: win rate and mean VP with the tournament's 95% intervals clustered by deal
(the 4 games of a deal share the cards and the board, so they are not independent:
``fifthave.agents.stats``), mean rank, and time per act() call measured separately on 8 games
(process CPU time, and wall time with the load average, because the machine is shared).
Fair share is 0.25. Writes ladder.csv, ladder.json, ladder.md and one tournament record per
rung (<rung>.json/.csv/.png) next to this file, after every rung. ``--from-records``
recomputes the statistics from those records (no game is replayed) and keeps the timings.
"""

import argparse
import csv
import json
from pathlib import Path

from fifthave.agents.tournament import TournamentResult, agent_factory, run_tournament

HERE = Path(__file__).resolve().parent
SEED = 2026
# (agent, games): the cheap rungs get many games; the search rungs as many as CPU allows
RUNGS = [("random", 300), ("greedy", 300), ("heuristic", 300),
         ("search:4:1", 100), ("search:12:1", 300), ("search:32:2", 40)]
TIMING = ("cpu_ms_per_decision", "wall_ms_per_decision", "load_average")
COLUMNS = ("agent", "games", "deals", "win_rate", "win_ci_low", "win_ci_high", "fair_share", "mean_vp", "vp_ci_low",
           "vp_ci_high", "mean_rank") + TIMING


def ladder_row(name, result, timing):
    """One rung's row from its tournament (the agent's row of the table) and its timing."""
    row = result.row(name)
    return {"agent": name, "games": result.settings["games"], "deals": len({r["deal"] for r in result.records}),
            **{k: row[k] for k in ("win_rate", "win_ci_low", "win_ci_high", "fair_share", "mean_vp", "vp_ci_low",
                                   "vp_ci_high", "mean_rank")},
            **{k: timing[k] for k in TIMING}}


def markdown_table(rows):
    """The ladder as a markdown table (ladder.md; README.md quotes it)."""
    lines = ["| agent | games (deals) | win rate (95% CI, clustered by deal) | mean VP (95% CI) | mean rank "
             "| CPU ms / decision | wall ms / decision (load) |",
             "|---|---:|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['agent']} | {r['games']} ({r['deals']}) | {r['win_rate']:.3f} [{r['win_ci_low']:.3f}, "
                     f"{r['win_ci_high']:.3f}] | {r['mean_vp']:.1f} [{r['vp_ci_low']:.1f}, {r['vp_ci_high']:.1f}] | "
                     f"{r['mean_rank']:.2f} | {r['cpu_ms_per_decision']:.1f} | "
                     f"{r['wall_ms_per_decision']:.1f} ({r['load_average']:.0f}) |")
    return "\n".join(lines) + "\n"


def write_ladder(rows):
    ordered = [rows[n] for n, _ in RUNGS if n in rows]
    (HERE / "ladder.json").write_text(json.dumps({"seed": SEED, "opponents": "3 x heuristic", "num_players": 4,
                                                  "board": 5, "rows": ordered}, indent=1) + "\n")
    with open(HERE / "ladder.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, COLUMNS)
        writer.writeheader()
        writer.writerows(ordered)
    (HERE / "ladder.md").write_text(markdown_table(ordered))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="run only these rungs (others are kept from ladder.json)")
    parser.add_argument("--timing-games", type=int, default=8)
    parser.add_argument("--from-records", action="store_true",
                        help="recompute every row from the saved <rung>.json games, keeping the timings")
    args = parser.parse_args()
    path = HERE / "ladder.json"
    rows = {r["agent"]: r for r in json.loads(path.read_text())["rows"]} if path.exists() else {}
    if args.from_records:
        for name, _ in RUNGS:
            stem = str(HERE / name.replace(":", "_"))
            result = TournamentResult.load(stem)
            result.save(stem)
            rows[name] = ladder_row(name, result, rows[name])
        write_ladder(rows)
        print(markdown_table([rows[n] for n, _ in RUNGS]))
        return
    from timing import time_agent

    run_first = ("search:12:1",)  # the target rung first, so it finishes on a busy machine
    for name, games in sorted(RUNGS, key=lambda rung: rung[0] not in run_first):
        if args.only and name not in args.only:
            continue
        result = run_tournament([agent_factory(name)] + [agent_factory("heuristic")] * 3, num_players=4, board=5,
                                games=games, seed=SEED, workers=args.workers)
        result.save(str(HERE / name.replace(":", "_")))
        rows[name] = ladder_row(name, result, time_agent(name, args.timing_games, SEED))
        write_ladder(rows)
        r = rows[name]
        print(f"{name}: win {r['win_rate']:.3f} [{r['win_ci_low']:.3f}, {r['win_ci_high']:.3f}] VP {r['mean_vp']:.1f} "
              f"cpu {r['cpu_ms_per_decision']:.1f} ms/decision (load {r['load_average']:.1f})", flush=True)


if __name__ == "__main__":
    main()
