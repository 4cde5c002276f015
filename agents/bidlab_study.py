"""The committed bidding study (``python -m fifthave.agents.bidlab_cli study --out results/bidding``).

For 3 and 4 players: every bidding strategy in ``BIDDING_STRATEGIES`` against
``value`` in paired comparisons (focus entry vs ``heuristic`` opponents), the
variance reduction of each method, per-auction effects and bid regrets on
auction positions saved from the baseline games, and alpha-Rank plus
Bradley-Terry ratings (bootstrap intervals) from games between every pair of
strategies in every mix of seats. Sizes are in ``SIZES``; ``--quick`` shrinks
them to a smoke test. Writes ``study.json``, ``tables.md`` and the plots.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from . import stats
from .bidding import BIDDING_STRATEGIES
from fifthave_env.runtime import atomic_write_text

from .bidlab import auction_effects, compare_many, write_json
from .tournament import agent_factory, run_tournament

SIZES = {  # per player count: paired deals, auction positions, deals per alpha-Rank lineup
    "full": {3: (50, 80, 6), 4: (40, 60, 4)},
    "quick": {3: (2, 2, 1), 4: (2, 2, 1)},
}
STUDY_SEED = 2026
ALPHAS = (100.0, 1.0, 0.1)  # alpha-Rank selection intensities reported (100: the usual; smaller: a full order)
METHODS = ("paired", "paired_luck_corrected", "paired_field_corrected", "paired_field_and_luck_corrected",
           "unpaired_luck_corrected")


def _pair_lineups(num_players, names):
    """Every lineup of exactly two strategies (k of one, the rest of the other): what alpha-Rank reads."""
    lineups = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for k in range(1, num_players):
                lineups.append([a] * k + [b] * (num_players - k))
    return lineups


def population(num_players: int, deals: int, workers: int, seed: int) -> dict[str, Any]:
    """alpha-Rank and Bradley-Terry (bootstrap over deals) of all strategies from two-strategy lineups."""
    names = list(BIDDING_STRATEGIES)
    matches: list[tuple[list[str], list[float]]] = []
    records: list[dict[str, Any]] = []
    label_of_entry: list[str] = []
    lineups = _pair_lineups(num_players, names)
    for index, lineup in enumerate(lineups):
        result = run_tournament([(name, agent_factory(f"heuristic-{name}")) for name in lineup],
                                games=deals * num_players, seed=seed + index, workers=workers)
        offset = len(label_of_entry)
        label_of_entry += lineup
        for r in result.records:
            seats = [lineup[e] for e in r["entries"]]
            matches.append((seats, [-rank for rank in stats.seat_ranks(r)]))
            records.append(dict(r, entries=[offset + e for e in r["entries"]], deal=(index, r["deal"])))
    elo = stats.bradley_terry_elo(names, records, label_of_entry)
    elo_ci = stats.bootstrap_elo(names, records, label_of_entry, resamples=200, seed=seed)
    try:
        rank = {str(alpha): stats.alpha_rank(matches, names, alpha=alpha) for alpha in ALPHAS}
    except ImportError as error:
        rank = {"error": str(error)}
    return {"games": len(records), "lineups": len(lineups),
            "deals_per_lineup": deals, "alpha_rank": rank,
            "elo": {n: {"elo": elo[n], "ci_low": elo_ci[n][0], "ci_high": elo_ci[n][1]} for n in names}}


def run_study(out: str, workers: int = 2, quick: bool = False) -> None:
    """Run the committed bidding study into ``out`` (``study.json``, ``tables.md``, the plots); ``quick``: small
    sizes for a smoke run."""
    sizes = SIZES["quick" if quick else "full"]
    os.makedirs(out, exist_ok=True)
    names = list(BIDDING_STRATEGIES)
    candidates = [f"heuristic-{n}" for n in names if n != "value"]
    study: dict[str, Any] = {"seed": STUDY_SEED, "players": {}}
    for num_players in (3, 4):
        deals, num_positions, alpha_deals = sizes[num_players]
        start = time.perf_counter()
        results, positions = compare_many("heuristic", candidates, num_players=num_players, deals=deals,
                                          seed=STUDY_SEED, workers=workers, position_every=4)
        pick = np.random.default_rng([STUDY_SEED, num_players]).choice(
            len(positions), size=min(num_positions, len(positions)), replace=False)
        chosen = [positions[i] for i in sorted(pick.tolist())]
        compare_seconds = time.perf_counter() - start
        print(f"{num_players} players: paired comparisons done ({compare_seconds:.0f} s)", flush=True)
        effects = auction_effects(chosen, names, seed=STUDY_SEED, workers=workers)
        auction_seconds = time.perf_counter() - start - compare_seconds
        print(f"{num_players} players: auction replays done ({auction_seconds:.0f} s)", flush=True)
        pop = population(num_players, alpha_deals, workers, STUDY_SEED)
        study["players"][str(num_players)] = {
            "paired": {r["settings"]["candidate"]: r for r in results},
            "auctions": effects, "population": pop,
            "seconds": {"paired": round(compare_seconds), "auctions": round(auction_seconds),
                        "population": round(time.perf_counter() - start - compare_seconds - auction_seconds)},
        }
        print(f"{num_players} players done: {study['players'][str(num_players)]['seconds']}", flush=True)
        write_json(os.path.join(out, "study.json"), study)  # after each player count: a partial result survives
    atomic_write_text(os.path.join(out, "tables.md"), tables(study))
    plot(study, out)
    print(tables(study))


def _ci(low, high, digits=3):
    return f"[{low:+.{digits}f}, {high:+.{digits}f}]"


def _x(value):
    return "n/a" if value is None else f"{value:.2f}x"


METRIC_LABELS = {"win": ("win share", 3), "vp": ("VP", 2), "margin": ("VP margin over the others' mean", 2)}


def tables(study: Mapping[str, Any]) -> str:
    """The study's tables as markdown (``tables.md``)."""
    lines = ["# Bidding study: tables", "", "Generated by `python -m fifthave.agents.bidlab_cli study` (see README.md).", ""]
    for n, part in study["players"].items():
        paired = part["paired"]
        any_result = next(iter(paired.values()))
        lines += [f"## {n} players", "",
                  f"Paired comparisons: the candidate in one seat against {int(n) - 1} x `heuristic` (value) "
                  f"opponents, baseline `heuristic`; {any_result['deals']} deals x "
                  f"{any_result['settings']['games_per_deal']} cyclic seat orders per arm. Difference = candidate "
                  f"minus baseline; 95% expanded percentile bootstrap over deals.", ""]
        for metric, (label, digits) in METRIC_LABELS.items():
            lines += [f"{label}:", "", "| candidate | candidate (baseline) | difference | paired CI | unpaired CI | "
                      "field + luck corrected |", "|---|---|---|---|---|---|"]
            for name, r in paired.items():
                m = r[metric]
                c = m["field_and_luck_corrected"]
                lines.append(f"| {name} | {m['candidate']:.{digits}f} ({m['baseline']:.{digits}f}) | "
                             f"{m['difference']:+.{digits}f} | {_ci(m['ci_low'], m['ci_high'], digits)} | "
                             f"{_ci(m['unpaired_ci_low'], m['unpaired_ci_high'], digits)} | "
                             f"{c['difference']:+.{digits}f} {_ci(c['ci_low'], c['ci_high'], digits)} |")
            lines.append("")
        lines += ["Variance reduction (unpaired variance of the difference / variance with the method; "
                  "= how many times fewer deals for the same interval width):", "",
                  "| candidate | metric | " + " | ".join(m.replace("_", " ") for m in METHODS) + " |",
                  "|---|---|" + "---|" * len(METHODS)]
        for name, r in paired.items():
            for metric in METRIC_LABELS:
                vr = r[metric]["variance_reduction_by_method"]
                lines.append(f"| {name} | {metric} | " + " | ".join(_x(vr[m]) for m in METHODS) + " |")
        a = part["auctions"]
        lines += ["", f"Auction level: {a['positions']} auction start positions from {a['source_games']} baseline "
                  f"games of {a['source_deals']} deals; focus seat bids with the strategy in that auction only, everything else `heuristic` "
                  f"with common random numbers. Effect = focus VP minus with `value`; regret = best of the "
                  f"bids {', '.join(a['bids'])} minus its own. 95% expanded percentile bootstrap over source deals.", "",
                  "| strategy | effect VP | CI | regret VP | CI | positions changed | variance reduction |",
                  "|---|---|---|---|---|---|---|"]
        for name, s in a["strategies"].items():
            lines.append(f"| {name} | {s['effect_vp']:+.2f} | {_ci(s['effect_ci_low'], s['effect_ci_high'], 2)} | "
                         f"{s['regret_vp']:.2f} | {_ci(s['regret_ci_low'], s['regret_ci_high'], 2)} | "
                         f"{s['changed']:.2f} | {_x(s['variance_reduction'])} |")
        p = part["population"]
        rank = p["alpha_rank"]
        alphas = [a for a in rank if a != "error"]
        lines += ["", f"Population: {p['games']} games over every two-strategy lineup ({p['deals_per_lineup']} "
                  f"deals x {n} seat orders each). alpha-Rank stationary mass at selection intensity alpha, "
                  f"Bradley-Terry Elo with a 95% expanded percentile bootstrap-over-deals interval.", "",
                  "| strategy | " + " | ".join(f"alpha-Rank (alpha={float(a):g})" for a in alphas)
                  + " | Elo (BT) | 95% CI |", "|---|" + "---|" * (len(alphas) + 2)]
        order = list(rank[alphas[-1]]) if alphas else sorted(p["elo"], key=lambda k: -p["elo"][k]["elo"])
        for name in order:
            e = p["elo"][name]
            masses = " | ".join(f"{rank[a][name]:.3f}" for a in alphas)
            lines.append(f"| {name} | {masses}{' | ' if alphas else ''}{e['elo']:.0f} | "
                         f"[{e['ci_low']:.0f}, {e['ci_high']:.0f}] |")
        if "error" in rank:
            lines.append(f"\nalpha-Rank not computed: {rank['error']}")
        lines.append("")
    return "\n".join(lines)


def plot(study: Mapping[str, Any], out: str) -> None:
    """Draw the study's figures into ``out`` (``paired.png``, ``methods_auctions_alpharank.png``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    parts = study["players"]
    fig, axes = plt.subplots(2, 3, figsize=(16, 7))
    for row, (n, part) in enumerate(parts.items()):
        names = list(part["paired"])
        y = np.arange(len(names))
        for col, (metric, (label, _)) in enumerate(METRIC_LABELS.items()):
            ax = axes[row, col]
            for offset, (lo, hi, color, what) in enumerate((("ci_low", "ci_high", "tab:blue", "paired"),
                                                            ("unpaired_ci_low", "unpaired_ci_high", "tab:gray",
                                                             "unpaired"),
                                                            ("ci_low", "ci_high", "tab:red", "field + luck"))):
                r = [part["paired"][name][metric] for name in names]
                if what == "field + luck":
                    r = [x["field_and_luck_corrected"] for x in r]
                centre = [x["difference"] for x in r]
                err = [[c - x[lo] for c, x in zip(centre, r)], [x[hi] - c for c, x in zip(centre, r)]]
                ax.errorbar(centre, y + 0.15 * offset, xerr=err, fmt="o", color=color, capsize=3, label=what)
            ax.axvline(0, color="black", lw=0.8)
            ax.set_yticks(y, [name.replace("heuristic-", "") for name in names])
            ax.set_title(f"{n} players: {label}, difference vs value", fontsize=10)
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "paired.png"), dpi=100)
    plt.close(fig)

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for i, (n, part) in enumerate(parts.items()):
        names = list(part["paired"])
        x = np.arange(len(names))
        for j, method in enumerate(METHODS):
            values = [part["paired"][name]["win"]["variance_reduction_by_method"][method] or 0 for name in names]
            width = 0.8 / (2 * len(METHODS))
            axes[0].bar(x + width * (j + len(METHODS) * i) - 0.4, values, width=width,
                        label=f"{n}p {method.replace('_', ' ')}", color=f"C{j}", alpha=1.0 if i else 0.55)
        axes[0].set_xticks(x, [name.replace("heuristic-", "") for name in names], fontsize=8)
        a = part["auctions"]["strategies"]
        strat = [s for s in a if s != "value"]
        axes[1].bar(np.arange(len(strat)) + 0.4 * i, [a[s]["effect_vp"] for s in strat], width=0.4,
                    yerr=[[a[s]["effect_vp"] - a[s]["effect_ci_low"] for s in strat],
                          [a[s]["effect_ci_high"] - a[s]["effect_vp"] for s in strat]], capsize=3, label=f"{n}p")
        axes[1].set_xticks(np.arange(len(strat)) + 0.2, strat, fontsize=8)
        rank = part["population"]["alpha_rank"].get(str(ALPHAS[-1]), {})
        if rank:
            names6 = list(BIDDING_STRATEGIES)
            axes[2].bar(np.arange(len(names6)) + 0.4 * i, [rank[s] for s in names6], width=0.4, label=f"{n}p")
            axes[2].set_xticks(np.arange(len(names6)) + 0.2, names6, fontsize=8)
    axes[0].axhline(2, color="red", lw=0.8, ls="--")
    axes[0].set_title("win share: variance reduction factor (3p light, 4p dark)", fontsize=10)
    axes[0].legend(fontsize=6)
    axes[1].axhline(0, color="black", lw=0.8)
    axes[1].set_title("per-auction VP effect vs value (95% CI)", fontsize=10)
    axes[1].legend(fontsize=8)
    axes[2].set_title(f"alpha-Rank stationary mass (alpha={ALPHAS[-1]:g})", fontsize=10)
    axes[2].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "methods_auctions_alpharank.png"), dpi=100)
    plt.close(fig)
