"""The curve of a candidate-value run (``fifthave.train.candidate_values``): every saved generation's strength
against panel fields and its Bradley-Terry rating head to head, against the run's compute.

A run saves its generations as ``values_first.npz`` (the fit of the first labels), ``values_round1.npz``, ...
(each DAgger round's student) and ``values.npz`` (the final fit); its ``report.json`` records the wall and CPU
seconds at which each was saved, counted from the start of the run: a resumed run continues the clock of the
last generation it keeps, so the time an interrupted process spent on an unfinished round is not counted (runs
before 28 Nov 2026 counted from the start of their last process; older runs record none: the curve then has no
compute axis).

- **Fields**: each generation plays ``games`` seat-rotated games against each field of
  ``fifthave.agents.panel`` (the same deals for every generation: ``seed``); a truncated game is a loss.
- **Final against half the budget**: the final generation's win share minus that of the generation saved at
  half the final's CPU seconds (the last one saved by then; without timings, the middle one), per field,
  paired by deal (``fifthave.agents.stats.paired_difference``).
- **Two generations head to head**: the two at the same tables (``paired_head_to_head``), the later one's win
  share per seat minus the earlier one's, paired by deal: every generation against its predecessor (a generation
  weaker than the one before it shows here) and the final against every earlier one, the half-budget one among
  them (issue 35's curve target). The interval covers the deals, not the fit: two fits of the same labels with
  other seeds can differ head to head as much as two generations (results/training/values_selfplay/README.md).
- **Against references** (``references``, none by default): every generation head to head against each agent
  named (``paired_head_to_head``, the reference as the earlier): a network of another run, which none of the
  generations met in its labelling league as it met its own predecessors, shows whether what the rounds learnt
  holds against an unseen opponent of the same kind.
- **Head to head**: up to ``num_players`` generations, spread from the first to the final, at one table
  (``h2h_games`` seat-rotated games); Bradley-Terry ratings on the Elo scale with intervals over deals.
- **Every generation's rating**: one Bradley-Terry fit (Elo scale) to every game between generations above, the
  pairs' and the one table's (its heuristic seats, if any, rated as a name of their own), with intervals
  resampling whole deals (the pairs share their deals: the same seed), so that the rating per hour of compute
  covers each generation, not only the ``num_players`` seated together.

``python -m fifthave.train.values_curve RUN_DIR --games 1000 --seed 2026 --workers 2 --out STEM`` writes
``STEM.json`` and ``STEM.md`` (default stem: ``RUN_DIR/curve``).
"""

import argparse
import json
import os
import re

import numpy as np

from fifthave.agents.panel import checked_fields, play_field, score_field
from fifthave.agents.stats import bootstrap_elo, bradley_terry_elo, paired_difference
from fifthave.agents.tournament import agent_factory, deal_win_shares, run_tournament
from fifthave_env.engine import safejson
from fifthave_env.runtime import atomic_write_text

from .values_agent import load_values


def saved_generations(run_dir):
    """The run's generations in the order they were saved: ``[{"file", "seconds", "cpu_seconds"}]`` (seconds
    None when the run's report does not record them)."""
    report_path = os.path.join(run_dir, "report.json")
    report = safejson.load(report_path) if os.path.exists(report_path) else {}
    if "generations" in report:
        generations = [dict(g) for g in report["generations"]]
    else:
        rounds = sorted(int(m.group(1)) for name in os.listdir(run_dir)
                        if (m := re.fullmatch(r"values_round(\d+)\.npz", name)))
        names = ["values_first.npz"] * os.path.exists(os.path.join(run_dir, "values_first.npz"))
        names += [f"values_round{r}.npz" for r in rounds] + ["values.npz"]
        generations = [{"file": name, "seconds": None, "cpu_seconds": None} for name in names]
    for g in generations:
        if not os.path.isfile(os.path.join(run_dir, g["file"])):
            raise FileNotFoundError(f"{run_dir} has no {g['file']}: the curve needs every generation the run saved")
    return generations


def half_budget(generations):
    """Index of the generation saved at half the final's CPU seconds (the last one saved by then); without
    timings, the middle one."""
    final = generations[-1]["cpu_seconds"]
    if final is None:
        return (len(generations) - 1) // 2
    return max(i for i, g in enumerate(generations) if i == 0 or g["cpu_seconds"] <= final / 2)


def spread(count, size):
    """Up to ``size`` indices of ``count`` items, evenly spread from the first to the last."""
    n = min(size, count)
    return sorted({round(k * (count - 1) / max(n - 1, 1)) for k in range(n)})


def generation_entry(run_dir, name):
    """The lineup entry ``(name, factory)`` of the run's saved generation ``name``."""
    return name, agent_factory(f"values:{os.path.join(run_dir, name)}")


def field_row_and_shares(path, field, num_players, board, games, seed, workers):
    """(panel row, {deal: win share}) of the agent file ``path`` against ``field``."""
    result = play_field(agent_factory(f"values:{path}"), field, num_players, board, games, seed, workers)
    return score_field(result.records, num_players), deal_win_shares(result.records)


def paired_head_to_head(baseline, candidate, num_players, board, games, seed, workers, played=None):
    """Two agents (``(label, factory)`` each) at the same tables, seats alternating between them and rotated
    (with 3 players also the mirror lineup, so that each holds as many seats as the other): the candidate's win
    share per seat minus the baseline's, paired by deal (``fifthave.agents.stats.paired_difference``; the deal
    is the cluster). A truncated game is a loss for both. Two copies of one deterministic agent (a network) differ
    by 0 on every deal. ``played``: a list to which each game's record is added with its seats' ``entries``
    named by the two labels (for ``named_entries`` ratings over several pairs)."""
    pair = (baseline, candidate)
    lineups = [[k % 2 for k in range(num_players)]]
    if num_players % 2:
        lineups.append([1 - k for k in lineups[0]])
    shares, truncated = ({}, {}), 0
    for lineup in lineups:
        result = run_tournament([pair[k] for k in lineup], num_players=num_players, board=board, games=games,
                                seed=seed, workers=workers)
        truncated += sum(record["truncated"] for record in result.records)
        if played is not None:
            played += named_entries(result.records, [pair[k][0] for k in lineup])
        for entry, k in enumerate(lineup):
            for deal, share in deal_win_shares(result.records, entry).items():
                shares[k].setdefault(deal, []).append(share)
    deals = sorted(shares[0])
    per_deal = [[float(np.mean(shares[k][d])) for d in deals] for k in (0, 1)]
    return {**paired_difference(*per_deal, seed=seed), "games": games * len(lineups), "truncated": truncated}


def named_entries(records, labels):
    """Tournament records with each seat's entry index replaced by its label in ``labels`` (the lineup's), so
    that games of different lineups rate together (``bradley_terry_elo`` with each label its own name)."""
    return [{**record, "entries": [labels[entry] for entry in record["entries"]]} for record in records]


def every_generation_rated(games, labels, seed):
    """``{label: {"elo", "elo_low", "elo_high"}}``: one Bradley-Terry fit to ``games`` (``named_entries`` records:
    the one table's, or every game between generations), intervals resampling whole deals."""
    names = {label: label for label in labels}
    elo = bradley_terry_elo(labels, games, names)
    intervals = bootstrap_elo(labels, games, names, resamples=100, seed=seed)
    return {label: {"elo": round(elo[label], 1), "elo_low": round(intervals[label][0], 1),
                    "elo_high": round(intervals[label][1], 1)} for label in labels}


def curve(run_dir, games=1000, seed=2026, workers=1, fields=("heuristic",), h2h_games=None, log=print,
          references=()):
    """The run's curve as a JSON-ready dict (module docstring); ``references``: agent names
    (``fifthave.agents.tournament.agent_factory``) every generation plays head to head."""
    generations = saved_generations(run_dir)
    reference_entries = [(name, agent_factory(name)) for name in references]  # a bad name fails before any game
    meta = load_values(os.path.join(run_dir, generations[-1]["file"]))[3]
    num_players, board = meta["num_players"], meta["board"]
    fields = checked_fields(fields, num_players)
    shares = {}
    for g in generations:
        path = os.path.join(run_dir, g["file"])
        g["fields"] = {}
        for field in fields:
            g["fields"][field], shares[g["file"], field] = field_row_and_shares(path, field, num_players, board,
                                                                                games, seed, workers)
            log(f"{g['file']} vs {field}: {g['fields'][field]['win_rate']:.3f}", flush=True)
    half, final = generations[half_budget(generations)], generations[-1]
    against_half = {}
    for field in fields:
        a, b = shares[half["file"], field], shares[final["file"], field]
        deals = sorted(a)
        against_half[field] = paired_difference([a[d] for d in deals], [b[d] for d in deals], seed=seed)
    pairs = [(i - 1, i) for i in range(1, len(generations))]
    pairs += [(i, len(generations) - 1) for i in range(len(generations) - 2)]

    between_generations = []  # every game of two or more generations: their ratings

    def seated_together(baseline, candidate, played=None):
        return paired_head_to_head(baseline, candidate, num_players, board, h2h_games or games, seed, workers,
                                   played)

    generation_pairs = []
    for earlier, later in sorted(pairs):
        names = generations[earlier]["file"], generations[later]["file"]
        d = seated_together(*(generation_entry(run_dir, name) for name in names), between_generations)
        generation_pairs.append({"earlier": names[0], "later": names[1], **d})
        log(f"{names[1]} against {names[0]} head to head: {d['difference']:+.3f}", flush=True)
    against_references = {}
    for reference in reference_entries:
        rows = against_references[reference[0]] = []
        for g in generations:
            d = seated_together(reference, generation_entry(run_dir, g["file"]))
            rows.append({"generation": g["file"], **d})
            log(f"{g['file']} against {reference[0]} head to head: {d['difference']:+.3f}", flush=True)
    chosen = [generations[i]["file"] for i in spread(len(generations), num_players)]
    lineup = [generation_entry(run_dir, name) for name in chosen]
    lineup += [("heuristic", agent_factory("heuristic"))] * (num_players - len(lineup))
    labels = list(dict.fromkeys(label for label, _ in lineup))
    result = run_tournament(lineup, num_players=num_players, board=board, games=h2h_games or games, seed=seed,
                            workers=workers)
    table = named_entries(result.records, [label for label, _ in lineup])
    at_table = every_generation_rated(table, labels, seed)
    between_generations += table
    rated = every_generation_rated(between_generations, [g["file"] for g in generations] + labels[len(chosen):], seed)
    for g in generations:
        g["rating"] = rated[g["file"]]
    head_to_head = {}
    for label in labels:  # the generations' own rows; the heuristics filling a table get a rating only
        row = score_field(result.records, num_players, chosen.index(label)) if label in chosen else {}
        head_to_head[label] = {**{k: row.get(k) for k in ("win_rate", "win_ci_low", "win_ci_high", "truncated")},
                               **at_table[label]}
    return {"run_dir": os.path.basename(os.path.normpath(run_dir)), "num_players": num_players, "board": board,
            "games": games, "h2h_games": h2h_games or games, "seed": seed, "generations": generations,
            "half_budget": half["file"], "final_against_half": against_half,
            "generation_pairs": generation_pairs, "head_to_head": head_to_head,
            **({"against_references": against_references} if references else {})}


def pair_cells(d):
    """Table cells of a head-to-head pair: games, truncated, the later's and the earlier's share, the difference."""
    return (f"{d['games']} | {d['truncated']} | {d['candidate']:.3f} | {d['baseline']:.3f} | "
            f"{d['difference']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]")


def format_markdown(result):
    """The curve as markdown tables."""
    fields = list(result["generations"][0]["fields"])
    fair = 1 / result["num_players"]
    rated = all("rating" in g for g in result["generations"])  # curves written before 7 Dec 2026 have none
    lines = [f"Curve of `{result['run_dir']}`: {result['num_players']} players, {result['board']}-plot board, "
             f"{result['games']} seat-rotated games per generation and field, seed {result['seed']}; a truncated "
             "game is a loss; intervals clustered by deal."
             + (" Elo: one Bradley-Terry fit to every game between generations below." if rated else ""), "",
             "| generation | wall h | CPU h | " + " | ".join(f"vs {f} (fair {fair:.2f})" for f in fields)
             + (" | Elo [95% CI]" if rated else "") + " |",
             "|---" * (3 + len(fields) + rated) + "|"]
    for g in result["generations"]:
        hours = ["" if g[k] is None else f"{g[k] / 3600:.2f}" for k in ("seconds", "cpu_seconds")]
        cells = [f"{r['win_rate']:.3f} [{r['win_ci_low']:.3f}, {r['win_ci_high']:.3f}]"
                 + (f", {r['truncated']} truncated" if r["truncated"] else "") for r in g["fields"].values()]
        if rated:
            cells.append("{elo:.0f} [{elo_low:.0f}, {elo_high:.0f}]".format(**g["rating"]))
        lines.append(f"| {g['file']} | " + " | ".join(hours + cells) + " |")
    lines += ["", f"Final against half the budget (`{result['half_budget']}`), paired by deal:"]
    for field, d in result["final_against_half"].items():
        lines.append(f"- vs {field}: {d['difference']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]")
    pairs = result.get("generation_pairs", [])
    final_and_half = (result["half_budget"], result["generations"][-1]["file"])
    for d in (d for d in pairs if (d["earlier"], d["later"]) == final_and_half):
        lines.append(f"- head to head (the two at the same tables, {d['games']} games): win share per seat "
                     f"{d['candidate']:.3f} against {d['baseline']:.3f}, "
                     f"{d['difference']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]")
    if pairs:
        lines += ["", "Two generations head to head (at the same tables, seats alternating; the later one's win share "
                  "per seat minus the earlier one's, paired by deal):", "",
                  "| later | earlier | games | truncated | later's share | earlier's share | difference [95% CI] |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {d['later']} | {d['earlier']} | {pair_cells(d)} |" for d in pairs]
    for reference, rows in result.get("against_references", {}).items():
        lines += ["", f"Each generation head to head against `{reference}` (at the same tables, seats alternating; "
                  "the generation's win share per seat minus the reference's, paired by deal):", "",
                  "| generation | games | truncated | its share | reference's share | difference [95% CI] |",
                  "|---|---|---|---|---|---|"]
        lines += [f"| {d['generation']} | {pair_cells(d)} |" for d in rows]
    lines += ["", f"Head to head at one table ({result['h2h_games']} games):", "",
              "| generation | win rate [95% CI] | truncated | Elo [95% CI] |", "|---|---|---|---|"]
    for label, r in result["head_to_head"].items():
        rate = "" if r["win_rate"] is None else f"{r['win_rate']:.3f} [{r['win_ci_low']:.3f}, {r['win_ci_high']:.3f}]"
        lines.append(f"| {label} | {rate} | {'' if r['truncated'] is None else r['truncated']} | "
                     f"{r['elo']:.0f} [{r['elo_low']:.0f}, {r['elo_high']:.0f}] |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run_dir")
    parser.add_argument("--games", type=int, default=1000, help="games per generation and field")
    parser.add_argument("--h2h-games", type=int, default=None, help="head-to-head games (default: --games)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--fields", nargs="+", default=["heuristic"])
    parser.add_argument("--references", nargs="+", default=[], metavar="AGENT",
                        help="agents every generation plays head to head (e.g. values:OTHER_RUN/values.npz)")
    parser.add_argument("--out", default=None, help="output stem (default RUN_DIR/curve)")
    args = parser.parse_args(argv)
    result = curve(args.run_dir, args.games, args.seed, args.workers, args.fields, args.h2h_games,
                   references=args.references)
    stem = args.out or os.path.join(args.run_dir, "curve")
    atomic_write_text(f"{stem}.json", json.dumps(result, indent=1) + "\n")
    atomic_write_text(f"{stem}.md", format_markdown(result))
    print(format_markdown(result))


if __name__ == "__main__":
    main()
