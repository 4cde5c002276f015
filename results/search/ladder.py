"""The search agent's strength ladder: each agent in one seat against three HeuristicAgents.

    python results/search/ladder.py [--workers 2] [--only NAME ...]

4 players, 5-plot board, seats rotated (every agent plays every seat on the same deals).
For each rung: win rate with a 95% interval clustered by deal (the 4 games of a deal share
the cards and the board, so they are not independent: the interval uses the spread of
per-deal win shares), the tournament's Wilson interval over seat-games for comparison,
mean VP, and time per act() call measured separately on 8 games (process CPU time, and
wall time with the load average, because the machine is shared). Fair share is 0.25.
Writes ladder.csv, ladder.json and one tournament record per rung (<rung>.json/.csv/.png)
next to this file, after every rung.
"""

import argparse
import csv
import json
import math
import os
from pathlib import Path

from agents.tournament import agent_factory, run_tournament

HERE = Path(__file__).resolve().parent
SEED = 2026
# (agent, games): the cheap rungs get many games; the search rungs as many as CPU allows
RUNGS = [("random", 300), ("greedy", 300), ("heuristic", 300),
         ("search:4:1", 100), ("search:12:1", 300), ("search:32:2", 40)]
COLUMNS = ("agent", "games", "win_rate", "ci_low_deal", "ci_high_deal", "wilson_low", "wilson_high", "fair_share",
           "mean_vp", "mean_rank", "cpu_ms_per_decision", "wall_ms_per_decision", "load_average")


def deal_clustered_interval(records, entry=0, z=1.96):
    """Mean win share of ``entry`` with a normal interval over per-deal means."""
    deals = {}
    for record in records:
        seat = record["entries"].index(entry)
        share = 1 / len(record["winners"]) if seat in record["winners"] else 0.0
        deals.setdefault(record["deal"], []).append(share)
    means = [sum(v) / len(v) for v in deals.values()]
    k = len(means)
    mean = sum(means) / k
    sd = math.sqrt(sum((m - mean) ** 2 for m in means) / (k - 1)) if k > 1 else 0.0
    half = z * sd / math.sqrt(k)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def markdown_table(rows):
    """The ladder as a markdown table (ladder.md; README.md quotes it)."""
    lines = ["| agent | games | win rate | 95% CI (by deal) | 95% CI (Wilson) | mean VP | mean rank "
             "| CPU ms / decision | wall ms / decision (load) |",
             "|---|---:|---:|---|---|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['agent']} | {r['games']} | {r['win_rate']:.3f} | [{r['ci_low_deal']:.3f}, "
                     f"{r['ci_high_deal']:.3f}] | [{r['wilson_low']:.3f}, {r['wilson_high']:.3f}] | "
                     f"{r['mean_vp']:.1f} | {r['mean_rank']:.2f} | {r['cpu_ms_per_decision']:.1f} | "
                     f"{r['wall_ms_per_decision']:.1f} ({r['load_average']:.0f}) |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", nargs="*", help="run only these rungs (others are kept from ladder.json)")
    parser.add_argument("--timing-games", type=int, default=8)
    args = parser.parse_args()
    from timing import time_agent

    path = HERE / "ladder.json"
    rows = {r["agent"]: r for r in json.loads(path.read_text())["rows"]} if path.exists() else {}
    run_first = ("search:12:1",)  # the target rung first, so it finishes on a busy machine
    for name, games in sorted(RUNGS, key=lambda rung: rung[0] not in run_first):
        if args.only and name not in args.only:
            continue
        result = run_tournament([agent_factory(name)] + [agent_factory("heuristic")] * 3, num_players=4, board=5,
                                games=games, seed=SEED, workers=args.workers)
        stem = name.replace(":", "_")
        result.save(str(HERE / stem))
        row = next(r for r in result.table if r["agent"] == name)
        if name == "heuristic":  # four copies share the label: the interval is for any one of them
            mean, low, high = row["win_rate"], row["win_ci_low"], row["win_ci_high"]
        else:
            mean, low, high = deal_clustered_interval(result.records)
        timing = time_agent(name, args.timing_games, SEED)
        rows[name] = {"agent": name, "games": games, "win_rate": mean, "ci_low_deal": low, "ci_high_deal": high,
                      "wilson_low": row["win_ci_low"], "wilson_high": row["win_ci_high"], "fair_share": 0.25,
                      "mean_vp": row["mean_vp"], "mean_rank": row["mean_rank"],
                      **{k: timing[k] for k in ("cpu_ms_per_decision", "wall_ms_per_decision", "load_average")}}
        ordered = [rows[n] for n, _ in RUNGS if n in rows]
        path.write_text(json.dumps({"seed": SEED, "opponents": "3 x heuristic", "num_players": 4, "board": 5,
                                    "rows": ordered}, indent=1) + "\n")
        with open(HERE / "ladder.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, COLUMNS)
            writer.writeheader()
            writer.writerows(ordered)
        (HERE / "ladder.md").write_text(markdown_table(ordered))
        print(f"{name}: win {mean:.3f} [{low:.3f}, {high:.3f}] VP {row['mean_vp']:.1f} "
              f"cpu {timing['cpu_ms_per_decision']:.1f} ms/decision (load {timing['load_average']:.1f})", flush=True)


if __name__ == "__main__":
    main()
