"""The robustness panel: one agent against every field of opponents, its minimum as the headline figure.

A strong agent can be narrow (beat the HeuristicAgents and lose to the GreedyAgents it never met), so a
model is reported by its *panel*: the agent under test in one seat against each field below, every field a
seat-rotated tournament (``fifthave.agents.tournament.run_tournament``, cyclic seat orders: every deal is played
once with the agent under test in each seat) on the same deals (one ``seed`` for every field), and the
**panel minimum** -- the lowest win rate over the fields except ``search`` -- as the headline, with the
``search`` row beside it (the targets of issue 35 are phrased that way).

Fields (``PANEL_FIELDS``; opponents by their ``fifthave.agents.registry`` names), with ``players - 1`` opponents:

- ``heuristic``: HeuristicAgents with the default bidding; ``heuristic-<strategy>``: HeuristicAgents with
  each other bidding strategy of ``fifthave.agents.bidding`` (conservative, aggressive, hoarder, reach, majority);
- ``greedy``, ``random``: GreedyAgents, RandomAgents;
- ``search``: search agents, ``PANEL_SEARCH`` (``search:32:2``, fixed: the committed panels were played
  against it; the default ``search`` is ``search:48:2`` now);
- ``mixed-strong`` (heuristic, greedy, search) and ``mixed-styles`` (heuristic-reach, heuristic-majority,
  random): mixed tables, seated in that order in the first rotation of every deal. With 2 players (3) the
  first opponent (the first two) of each mix sits: ``heuristic`` and ``heuristic-reach`` alone are the
  fields of the same names, so with 2 players the mixed fields are left out; with 3 players they are
  heuristic + greedy and heuristic-reach + heuristic-majority.

Truncation (R29): the tournament names the R28 leaders of a truncated game as its winners (the env's
rule). The panel does not: **a truncated game is a loss for the agent under test**, whoever leads, and is
also counted on its own (``truncated``). A shared win counts ``1 / k`` as in the tournament.

Per field: win rate with a 95% interval clustered by deal (``fifthave.agents.stats.clustered_rate_interval``),
fair share, truncated games, mean VP with its interval clustered by deal (truncated games count the VP on
the track). Same seed, same panel: the JSON differs only under ``"timing"``.

Console: ``python -m fifthave.agents.panel values-4p --games 200 --workers 2
--out results/panel/values_4p`` writes ``OUT.json`` and ``OUT.md``.
"""

import argparse
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from fifthave_env.engine import checks

from .base import AgentFactory
from .bidding import BIDDING_STRATEGIES
from .registry import agent_names_help
from .stats import clustered_mean_interval, clustered_rate_interval
from .tournament import AgentError, TournamentResult, agent_factory, run_tournament

AGENT_LABEL = "agent under test"  # the tested agent's label in each tournament (never an opponent's name)

MIXED_FIELDS = {
    "mixed-strong": ("heuristic", "greedy", "search"),
    "mixed-styles": ("heuristic-reach", "heuristic-majority", "random"),
}
DEFAULT_STRATEGY = "value"  # the HeuristicAgent's default bidding: its field is plain ``heuristic``

PANEL_FIELDS = (
    "heuristic",
    *(f"heuristic-{name}" for name in BIDDING_STRATEGIES if name != DEFAULT_STRATEGY),
    "greedy", "random", "search", *MIXED_FIELDS,
)
"""Every field's name, in report order (with 2 players the mixed ones are left out: see the docstring)."""

PANEL_SEARCH = "search:32:2"
"""What the ``search`` opponents play: fixed, so that every committed panel is measured against the same
opponents (the default ``search`` became ``search:48:2`` after the panels were played)."""
SEPARATE_FIELDS = ("search",)  # reported beside the minimum, not in it
PANEL_COLUMNS = ("field", "opponents", "games", "deals", "win_rate", "win_ci_low", "win_ci_high", "fair_share",
                 "truncated", "mean_vp", "vp_ci_low", "vp_ci_high")
DEFAULT_GAMES = 1000  # per field, as issue 35 asks; with 3 players the largest multiple of 3 below it (999)


def field_opponents(field: str, num_players: int) -> list[str] | None:
    """The opponents' agent names of ``field`` at ``num_players`` players (None: not played at that count)."""
    if num_players not in (2, 3, 4):
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
    if field in MIXED_FIELDS:
        if num_players == 2:
            return None
        names = list(MIXED_FIELDS[field][:num_players - 1])
    elif field in PANEL_FIELDS:
        names = [field] * (num_players - 1)
    else:
        raise ValueError(f"unknown panel field {field!r}; choose from {', '.join(PANEL_FIELDS)}")
    return [PANEL_SEARCH if name == "search" else name for name in names]


def fields_for(num_players: int) -> list[str]:
    return [f for f in PANEL_FIELDS if field_opponents(f, num_players) is not None]


def default_games(num_players: int) -> int:
    return DEFAULT_GAMES - DEFAULT_GAMES % num_players


def score_field(records: Sequence[Mapping[str, Any]], num_players: int, entry: int = 0) -> dict[str, Any]:
    """The panel row's statistics of entry ``entry`` over tournament ``records``: a truncated game is a
    loss (and counted in ``truncated``), a shared win counts ``1 / k``; intervals clustered by deal."""
    deals = sorted({r["deal"] for r in records})
    column = {deal: i for i, deal in enumerate(deals)}
    wins, vp, seats = np.zeros(len(deals)), np.zeros(len(deals)), np.zeros(len(deals))
    truncated = 0
    for record in records:
        seat = record["entries"].index(entry)
        k = column[record["deal"]]
        seats[k] += 1
        vp[k] += record["scores"][seat]
        if record["truncated"]:
            truncated += 1
        elif seat in record["winners"]:
            wins[k] += 1 / len(record["winners"])
    rate, low, high = clustered_rate_interval(wins, seats)
    mean_vp, vp_low, vp_high = clustered_mean_interval(vp, seats)
    if len(deals) < 2:  # unbounded from one deal (and JSON has no infinity)
        vp_low = vp_high = None
    return {"games": len(records), "deals": len(deals), "win_rate": rate, "win_ci_low": low, "win_ci_high": high,
            "fair_share": 1 / num_players, "truncated": truncated, "mean_vp": mean_vp, "vp_ci_low": vp_low,
            "vp_ci_high": vp_high}


def headline(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The panel minimum (the lowest win rate over the fields except ``SEPARATE_FIELDS``; the first such
    field on a tie) and the ``search`` row, each as ``{field, win_rate, win_ci_low, win_ci_high}``."""
    def brief(row):
        return None if row is None else {k: row[k] for k in ("field", "win_rate", "win_ci_low", "win_ci_high")}

    ranked = [r for r in rows if r["field"] not in SEPARATE_FIELDS]
    lowest = min(ranked, key=lambda r: r["win_rate"]) if ranked else None
    search = next((r for r in rows if r["field"] == "search"), None)
    return {"minimum": brief(lowest), "search": brief(search),
            "most_truncated": max(r["truncated"] / r["games"] for r in rows) if rows else None}


def panel_settings(agent: str, num_players: int, board: int, games: int, seed: int,
                   max_turns: int) -> dict[str, Any]:
    """What a panel's figures depend on besides the code; ``search`` is what the opponents' ``search`` plays."""
    return {"agent": agent, "num_players": num_players, "board": board, "games_per_field": games, "seed": seed,
            "max_turns": max_turns, "seat_orders": "cyclic", "search": PANEL_SEARCH}


def checked_fields(fields: Sequence[str] | None, num_players: int) -> list[str]:
    """``fields`` as a list (None: every field of the ``num_players``-player panel); ``ValueError`` for a field
    outside it."""
    playable = fields_for(num_players)
    fields = playable if fields is None else list(fields)
    for name in fields:
        if name not in playable:
            raise ValueError(f"field {name!r} is not in the {num_players}-player panel; choose from "
                             f"{', '.join(playable)}")
    return fields


def play_field(tested: AgentFactory, field: str, num_players: int, board: int, games: int, seed: int,
               workers: int = 1, max_turns: int = 300) -> TournamentResult:
    """The seat-rotated games of the agent ``tested`` makes (lineup entry 0) against ``field``."""
    opponents = field_opponents(field, num_players)
    lineup = [(AGENT_LABEL, tested)] + [(o, agent_factory(o)) for o in opponents]  # type: ignore[union-attr]
    return run_tournament(lineup, num_players=num_players, board=board, games=games, seed=seed, workers=workers,
                          max_turns=max_turns)


def run_panel(agent: str, num_players: int = 4, board: int = 5, games: int | None = None, seed: int = 0,
              workers: int = 1, max_turns: int = 300, fields: Sequence[str] | None = None,
              progress: Callable[[str, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play the panel of agent name ``agent`` (any name ``fifthave.agents.tournament.agent_factory`` takes) and return
    a JSON-ready dict: ``settings``, ``rows`` (one per field, ``PANEL_COLUMNS``), ``headline``, ``timing``
    (seconds per field: the only part that differs between runs of the same seed).

    ``games`` per field (default ``default_games(num_players)``) must be a multiple of ``num_players``;
    ``fields`` a subset of ``fields_for(num_players)`` (default: all). ``progress(field, row)`` is called
    after each field."""
    games = default_games(num_players) if games is None else games
    fields = checked_fields(fields, num_players)
    tested = agent_factory(agent)
    rows, timing = [], {}
    for name in fields:
        opponents = field_opponents(name, num_players)
        result = play_field(tested, name, num_players, board, games, seed, workers, max_turns)
        row = {"field": name, "opponents": opponents, **score_field(result.records, num_players)}
        rows.append(row)
        timing[name] = round(result.seconds, 1)
        if progress:
            progress(name, row)
    settings = panel_settings(agent, num_players, board, games, seed, max_turns)
    return {"settings": settings, "rows": rows, "headline": headline(rows), "timing": timing}


# ---- report ----------------------------------------------------------------------------------

def _interval(row, value, prefix: str, digits):
    low, high = row[f"{prefix}_ci_low"], row[f"{prefix}_ci_high"]
    text = f"{row[value]:.{digits}f}"
    return text if low is None else f"{text} [{low:.{digits}f}, {high:.{digits}f}]"


def _lineup(opponents):
    if len(set(opponents)) == 1:
        return f"{len(opponents)} × {opponents[0]}"
    return " + ".join(opponents)


def format_markdown(panel: Mapping[str, Any]) -> str:
    """The panel as a markdown table with its headline and settings."""
    s = panel["settings"]
    lines = [f"Panel of `{s['agent']}`: {s['num_players']} players, {s['board']}-plot board, "
             f"{s['games_per_field']} seat-rotated games per field, seed {s['seed']}, max_turns {s['max_turns']}.",
             "",
             "| field | opponents | win rate [95% CI] | fair share | truncated | mean VP [95% CI] |",
             "|---|---|---|---|---|---|"]
    for r in panel["rows"]:
        lines.append(f"| {r['field']} | {_lineup(r['opponents'])} | {_interval(r, 'win_rate', 'win', 3)} | "
                     f"{r['fair_share']:.2f} | {r['truncated']} / {r['games']} | {_interval(r, 'mean_vp', 'vp', 1)} |")
    h = panel["headline"]
    lines.append("")
    if h["minimum"]:
        m = h["minimum"]
        played = {r["field"] for r in panel["rows"]}
        partial = "" if played >= set(fields_for(s["num_players"])) else f" of the {len(played)} fields played"
        lines.append(f"**Panel minimum (except search){partial}: {m['win_rate']:.3f} [{m['win_ci_low']:.3f}, "
                     f"{m['win_ci_high']:.3f}] against {m['field']}.**")
    if h["search"]:
        m = h["search"]
        lines.append(f"Against search: {m['win_rate']:.3f} [{m['win_ci_low']:.3f}, {m['win_ci_high']:.3f}].")
    if h["most_truncated"] is not None:
        lines.append(f"Most truncated games in one field: {100 * h['most_truncated']:.1f}%.")
    lines.append("A truncated game (R29) counts as a loss for the agent under test; intervals are clustered by deal.")
    if panel.get("timing"):
        lines.append("Wall time per field (s): " + ", ".join(f"{k} {v}" for k, v in panel["timing"].items()) + ".")
    return "\n".join(lines) + "\n"


def save(panel: Mapping[str, Any], stem: str) -> None:
    """Write ``stem.json`` and ``stem.md``."""
    os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
    with open(f"{stem}.json", "w") as f:
        json.dump(panel, f, indent=1)
        f.write("\n")
    with open(f"{stem}.md", "w") as f:
        f.write(format_markdown(panel))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="The robustness panel: one agent against every field of opponents (seat-rotated, same deals); "
                    "a truncated game counts as a loss; the panel minimum is the headline.",
        epilog=f"agents: {agent_names_help()}; fields: {', '.join(PANEL_FIELDS)}")
    parser.add_argument("agent", help="the agent under test, e.g. heuristic or values:PATH.pt")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument("--board", type=int, default=5, choices=(5, 6))
    parser.add_argument("--games", type=checks.cli_int(1), default=None,
                        help=f"games per field, a multiple of the players (default {DEFAULT_GAMES}; 999 with 3)")
    parser.add_argument("--seed", type=checks.cli_int(0), default=0)
    parser.add_argument("--workers", type=checks.cli_int(1), default=os.cpu_count() or 1)
    parser.add_argument("--max-turns", type=checks.cli_int(1), default=300)
    parser.add_argument("--fields", nargs="+", metavar="FIELD", help="only these fields (default: every field)")
    parser.add_argument("--out", help="write OUT.json and OUT.md")
    args = parser.parse_args(argv)

    def progress(name: str, row) -> None:
        win = _interval(row, "win_rate", "win", 3)
        print(f"{name:26s} {win:>24s}  truncated {row['truncated']}/{row['games']}", flush=True)

    start = time.perf_counter()
    try:
        panel = run_panel(args.agent, args.players, args.board, args.games, args.seed, args.workers,
                          args.max_turns, args.fields, progress)
    except (ValueError, ImportError, AgentError) as error:
        parser.error(str(error))
    print(format_markdown(panel), end="")
    print(f"{time.perf_counter() - start:.0f} s")
    if args.out:
        save(panel, args.out)
        print(f"wrote {args.out}.json, {args.out}.md")


if __name__ == "__main__":
    main()
