"""Tournaments between agents: many seeded games, seats rotated, statistics per agent.

Python API::

    from agents.tournament import run_tournament, agent_factory
    result = run_tournament([agent_factory("heuristic"), agent_factory("random")] + ...,
                            num_players=4, board=5, games=500, seed=0, workers=2)
    result.table            # one dict per agent label (see TABLE_COLUMNS)
    result.save("results/tournament/h_vs_r")   # .json, .csv and .png

``agent_factories`` lists one entry per seat: a zero-argument callable that
returns a fresh agent (``agents.base.Agent`` protocol), or a ``(label,
factory)`` pair. Factories must be picklable for ``workers > 1``: a class, a
``functools.partial`` of one, or a module-level function (no lambdas). An
entry's label is the pair's label or else the agent's ``name`` (the factory is
then called once in the calling process to read it); entries with the same
label (three ``random`` opponents, say) are pooled in the table. A learned
policy takes part by wrapping it as an agent whose factory loads it; a fresh
agent is made for every game and ``reset`` before it.

Every game runs through the PettingZoo env (``fifthave_env.fifth_avenue_v0``),
so each agent receives only its own observation and action mask. The runner
itself reads ``env.unwrapped.game`` for the auction statistics.

Seating and seeds: ``games`` must be a multiple of ``num_players``. Games come
in *deals* of ``num_players`` games that share one env seed; in game ``r`` of a
deal, entry ``e`` sits in seat ``(e - r) mod num_players``, so every entry plays
every seat exactly ``games / num_players`` times, on the same deals. The env
seed of deal ``k`` and the generator of each agent derive from ``(seed, k)``
and ``(seed, k, r, e)`` only, so results do not depend on the number of workers.

Statistics per label (``TABLE_COLUMNS``): ``win_rate`` (a shared win counts
1/k for each of the k winners) with a 95% Wilson interval over the label's
seat-games, ``fair_share`` (its share if all were equal), mean VP, mean rank
(1 = best; a tie on VP and cards shares the rank), an Elo-scale rating, and
auction statistics per game: auctions entered (at least one confirmed bid) and
won, the mean winning bid in card points, VP per card spent (final VP over all
cards paid for won auctions) and building stops declared.

Rating: a Bradley-Terry model fitted to every pair of seats of different labels
in every game (the better-ranked wins, a tie is half a win each), with one
virtual draw per label against a fixed 1500-rated reference so that a label that
always wins keeps a finite rating; reported on the Elo scale (400 log10),
1500 = the reference. Unlike sequential Elo it does not depend on game order.

Console: ``fifthave-tournament --agents heuristic random*3 --board 5 --games 500
--seed 0 --workers 2 --out results/tournament/heuristic_vs_random_4p``
(``fifthave-tournament --help`` lists the agent names).
"""

import argparse
import csv
import functools
import json
import math
import multiprocessing
import os
import time
from dataclasses import dataclass, field

import numpy as np

from fifthave_env import fifth_avenue_v0
from fifthave_env.engine.actions import BID_CONFIRM, DECLARE_STOP
from fifthave_env.engine.cards import KIND_VALUE, NUM_KINDS
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION

from .base import RandomAgent
from .bidding import BIDDING_STRATEGIES
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent

AGENT_FACTORIES = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    **{f"heuristic-{name}": functools.partial(HeuristicAgent, bidding=name) for name in BIDDING_STRATEGIES},
}

TABLE_COLUMNS = (
    "agent", "seat_games", "win_rate", "win_ci_low", "win_ci_high", "fair_share", "mean_vp", "mean_rank",
    "elo", "auctions_entered", "auctions_won", "mean_winning_bid", "vp_per_card", "stops_declared",
)


def agent_factory(name):
    """A picklable factory for an agent named in ``AGENT_FACTORIES`` (e.g. ``"heuristic-aggressive"``),
    or ``"policy:PATH"`` for a trained checkpoint (needs the ``train`` extra)."""
    if name.startswith("policy:"):
        from train.policy_agent import PolicyFactory

        return PolicyFactory(name[len("policy:"):])
    try:
        return AGENT_FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown agent {name!r}; choose from {', '.join(AGENT_FACTORIES)}") from None


# ---- one game ------------------------------------------------------------------------------

@dataclass
class _Setup:
    factories: list
    num_players: int
    board: int
    max_turns: int
    seed: int


_WORKER_SETUP = None


def _init_worker(setup):
    global _WORKER_SETUP
    _WORKER_SETUP = setup


def deal_seed(seed, deal):
    return int(np.random.SeedSequence([seed, deal]).generate_state(1, np.uint64)[0])


def seating(num_players, rotation):
    """Entry index per seat in game ``rotation`` of a deal."""
    return [(seat + rotation) % num_players for seat in range(num_players)]


def play_game(setup, game_index):
    """Play one game of the tournament; a JSON-ready record of what happened."""
    n = setup.num_players
    deal, rotation = divmod(game_index, n)
    seats = seating(n, rotation)
    env = fifth_avenue_v0.env(num_players=n, board=setup.board, max_turns=setup.max_turns)
    env.reset(seed=deal_seed(setup.seed, deal))
    game = env.unwrapped.game
    agents = []
    for seat, entry in enumerate(seats):
        agent = setup.factories[entry]()
        agent.reset(env.unwrapped.config, seat, np.random.default_rng([setup.seed, deal, rotation, entry]))
        agents.append(agent)
    entered = [0] * n
    won = [0] * n
    bid_points = [0] * n
    cards_spent = [0] * n
    stops = [0] * n
    act_seconds = [0.0] * n
    act_calls = [0] * n
    auctions = 0
    confirmed_here = set()
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        seat = game.actor
        start = time.perf_counter()
        action = int(agents[seat].act(observation["observation"], observation["action_mask"]))
        act_seconds[seat] += time.perf_counter() - start
        act_calls[seat] += 1
        before, before_loc = game.decision, game.auc_loc
        env.step(action)
        if before == BID_DECISION and action == BID_CONFIRM and seat not in confirmed_here:
            confirmed_here.add(seat)
            entered[seat] += 1
        if action == DECLARE_STOP:
            stops[seat] += 1
        if before == BID_DECISION and game.decision == BUILD_DECISION:
            winner, paid = game.auc_winner, game.auc_last_bid
            won[winner] += 1
            bid_points[winner] += sum(KIND_VALUE[k] * paid[k] for k in range(NUM_KINDS))
            cards_spent[winner] += sum(paid)
        if game.decision == BID_DECISION and (before != BID_DECISION or game.auc_loc != before_loc):
            auctions += 1
            confirmed_here = set()
    return {
        "game": game_index, "deal": deal, "rotation": rotation, "entries": seats,
        "scores": list(game.scores), "winners": list(game.winners), "cards_in_hand": [sum(h) for h in game.hands],
        "truncated": game.truncated, "turns": game.turn, "auctions": auctions,
        "auctions_entered": entered, "auctions_won": won, "bid_points_won": bid_points,
        "cards_spent": cards_spent, "stops_declared": stops,
        "act_seconds": act_seconds, "act_calls": act_calls,
    }


def _play_in_worker(game_index):
    return play_game(_WORKER_SETUP, game_index)


# ---- statistics ------------------------------------------------------------------------------

def seat_ranks(record):
    """Rank per seat, 1 = best, by (winner, VP); equal keys share the mean of their places."""
    n = len(record["scores"])
    keys = [(p in record["winners"], record["scores"][p]) for p in range(n)]
    ranks = []
    for p in range(n):
        better = sum(1 for q in range(n) if keys[q] > keys[p])
        equal = sum(1 for q in range(n) if keys[q] == keys[p])
        ranks.append(better + (equal + 1) / 2)
    return ranks


def wilson_interval(successes, trials, z=1.96):
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def bradley_terry_elo(labels, records, label_of_entry, tolerance=1e-9, max_iterations=100_000):
    """Elo-scale ratings from a Bradley-Terry fit (see the module docstring)."""
    index = {label: i for i, label in enumerate(labels)}
    m = len(labels) + 1  # the last is the 1500 reference
    wins = np.zeros((m, m))
    for record in records:
        ranks = seat_ranks(record)
        seats = range(len(ranks))
        for p in seats:
            for q in seats:
                a = index[label_of_entry[record["entries"][p]]]
                b = index[label_of_entry[record["entries"][q]]]
                if a == b:
                    continue
                if ranks[p] < ranks[q]:
                    wins[a, b] += 1
                elif ranks[p] == ranks[q] and p < q:
                    wins[a, b] += 0.5
                    wins[b, a] += 0.5
    wins[:-1, -1] += 0.5  # one virtual draw against the reference
    wins[-1, :-1] += 0.5
    games = wins + wins.T
    total_wins = wins.sum(axis=1)
    gamma = np.ones(m)
    for _ in range(max_iterations):  # the minorization-maximization updates (Hunter 2004)
        new = total_wins / (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new /= new[-1]  # the reference stays at 1
        done = np.abs(np.log(new) - np.log(gamma)).max() < tolerance
        gamma = new
        if done:
            break
    return {label: 1500 + 400 * math.log10(gamma[index[label]]) for label in labels}


def summarize(records, labels, num_players):
    """The per-label table (dicts with TABLE_COLUMNS) from game records."""
    rows = {}
    ratings = bradley_terry_elo(sorted(set(labels)), records, labels)
    for label in dict.fromkeys(labels):
        entries = {e for e, lab in enumerate(labels) if lab == label}
        seat_games = wins = vp = rank = 0.0
        entered = won = points = cards = stops = 0
        for record in records:
            ranks = seat_ranks(record)
            for seat, entry in enumerate(record["entries"]):
                if entry not in entries:
                    continue
                seat_games += 1
                if seat in record["winners"]:
                    wins += 1 / len(record["winners"])
                vp += record["scores"][seat]
                rank += ranks[seat]
                entered += record["auctions_entered"][seat]
                won += record["auctions_won"][seat]
                points += record["bid_points_won"][seat]
                cards += record["cards_spent"][seat]
                stops += record["stops_declared"][seat]
        low, high = wilson_interval(wins, seat_games)
        rows[label] = {
            "agent": label, "seat_games": int(seat_games), "win_rate": wins / seat_games,
            "win_ci_low": low, "win_ci_high": high, "fair_share": 1 / num_players,
            "mean_vp": vp / seat_games, "mean_rank": rank / seat_games, "elo": ratings[label],
            "auctions_entered": entered / seat_games, "auctions_won": won / seat_games,
            "mean_winning_bid": points / won if won else 0.0,
            "vp_per_card": vp / cards if cards else 0.0,
            "stops_declared": stops / seat_games,
        }
    return list(rows.values())


@dataclass
class TournamentResult:
    settings: dict
    table: list
    records: list = field(repr=False)
    seconds: float = 0.0

    def row(self, label):
        for row in self.table:
            if row["agent"] == label:
                return row
        raise KeyError(f"no agent labelled {label!r}; labels: {[r['agent'] for r in self.table]}")

    def act_ms(self):
        """Mean milliseconds per act() call per label (timing; not part of the reproducible results)."""
        labels = self.settings["labels"]
        totals = {}
        for record in self.records:
            for seat, entry in enumerate(record["entries"]):
                t = totals.setdefault(labels[entry], [0.0, 0])
                t[0] += record["act_seconds"][seat]
                t[1] += record["act_calls"][seat]
        return {label: 1000 * s / max(c, 1) for label, (s, c) in totals.items()}

    def format_table(self):
        head = (f"{'agent':24s} {'win rate (95% CI)':>22s} {'fair':>5s} {'VP':>6s} {'rank':>5s} {'Elo':>6s} "
                f"{'entered':>7s} {'won':>5s} {'bid':>5s} {'VP/card':>7s} {'stops':>5s}")
        lines = [head]
        for r in self.table:
            ci = f"{r['win_rate']:.3f} ({r['win_ci_low']:.3f}-{r['win_ci_high']:.3f})"
            lines.append(f"{r['agent']:24s} {ci:>22s} {r['fair_share']:5.2f} {r['mean_vp']:6.1f} "
                         f"{r['mean_rank']:5.2f} {r['elo']:6.0f} {r['auctions_entered']:7.2f} "
                         f"{r['auctions_won']:5.2f} {r['mean_winning_bid']:5.1f} {r['vp_per_card']:7.2f} "
                         f"{r['stops_declared']:5.2f}")
        return "\n".join(lines)

    def save(self, stem):
        """Write ``stem.json`` (settings, table, per-game records), ``stem.csv`` (the table) and ``stem.png``."""
        os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
        write_json(f"{stem}.json", {"settings": self.settings, "table": self.table, "act_ms": self.act_ms(),
                                    "seconds": self.seconds}, self.records)
        with open(f"{stem}.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=TABLE_COLUMNS)
            writer.writeheader()
            writer.writerows(self.table)
        self.plot(f"{stem}.png")

    def plot(self, path):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels = [r["agent"] for r in self.table]
        x = np.arange(len(labels))
        fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
        rates = [r["win_rate"] for r in self.table]
        errors = [[r["win_rate"] - r["win_ci_low"] for r in self.table],
                  [r["win_ci_high"] - r["win_rate"] for r in self.table]]
        axes[0].bar(x, rates, yerr=errors, capsize=4, color="tab:blue")
        axes[0].axhline(self.table[0]["fair_share"], color="gray", linestyle="--", label="fair share")
        axes[0].set_ylabel("win rate (95% CI)")
        axes[0].set_ylim(0, 1)
        axes[0].legend(loc="upper right", fontsize=8)
        axes[1].bar(x, [r["mean_vp"] for r in self.table], color="tab:green")
        axes[1].set_ylabel("mean VP")
        axes[2].bar(x, [r["elo"] - 1500 for r in self.table], bottom=1500, color="tab:orange")
        axes[2].set_ylabel("Elo (Bradley-Terry)")
        for ax in axes:
            ax.set_xticks(x, labels, rotation=20, ha="right", fontsize=8)
        s = self.settings
        fig.suptitle(f"{s['num_players']} players, {s['board']}-plot board, {s['games']} games, seed {s['seed']}")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


def write_json(path, head, records):
    """``head`` plus ``"games": records``, indented, with one game record per line (compact, diff-friendly)."""
    text = json.dumps(head, indent=1)
    games = ",\n  ".join(json.dumps(record, separators=(",", ":")) for record in records)
    with open(path, "w") as f:
        f.write(f'{text[:-2]},\n "games": [\n  {games}\n ]\n}}\n')


# ---- the tournament -------------------------------------------------------------------------

def _labelled(agent_factories):
    labels, factories = [], []
    for entry in agent_factories:
        if isinstance(entry, tuple):
            label, factory = entry
        else:
            factory = entry
            label = factory().name
        if not callable(factory):
            raise TypeError(f"an agent factory must be a zero-argument callable returning an agent, got {factory!r}")
        labels.append(str(label))
        factories.append(factory)
    return labels, factories


def run_tournament(agent_factories, num_players=None, board=5, games=100, seed=0, workers=1,
                   max_turns=300, progress=False):
    """Play ``games`` games (a multiple of ``num_players``) and summarize them; see the module docstring.

    ``num_players`` defaults to the number of entries, and must equal it.
    ``workers`` processes share the games (1: in this process).
    """
    labels, factories = _labelled(agent_factories)
    num_players = len(factories) if num_players is None else num_players
    if num_players not in (2, 3, 4):
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
    if len(factories) != num_players:
        raise ValueError(f"give one agent factory per seat: {num_players} players need {num_players} "
                         f"entries, got {len(factories)}")
    if board not in (5, 6):
        raise ValueError(f"board must be 5 or 6 (plots per district), got {board!r}")
    if games < num_players or games % num_players:
        raise ValueError(f"games must be a positive multiple of num_players ({num_players}) so that every "
                         f"agent plays every seat equally often, got {games}")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r}")
    setup = _Setup(factories, num_players, board, max_turns, seed)
    start = time.perf_counter()
    indices = range(games)
    if workers == 1:
        results = (play_game(setup, g) for g in indices)
        records = list(_progress(results, games, progress))
    else:
        context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
        with context.Pool(workers, initializer=_init_worker, initargs=(setup,)) as pool:
            results = pool.imap(_play_in_worker, indices, chunksize=max(1, min(8, games // (4 * workers))))
            records = list(_progress(results, games, progress))
    settings = {"labels": labels, "num_players": num_players, "board": board, "games": games, "seed": seed,
                "max_turns": max_turns}
    return TournamentResult(settings, summarize(records, labels, num_players), records,
                            time.perf_counter() - start)


def _progress(iterable, total, enabled):
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, unit="game", smoothing=0.05)


# ---- console -----------------------------------------------------------------------------

def parse_lineup(specs):
    """``["heuristic", "random*3"]`` -> ``["heuristic", "random", "random", "random"]`` (names checked)."""
    lineup = []
    for spec in specs:
        name, _, count = spec.partition("*")
        if count and not count.isdigit():
            raise ValueError(f"{spec!r}: write NAME or NAME*COUNT, e.g. random*3")
        agent_factory(name)
        lineup += [name] * (int(count) if count else 1)
    return lineup


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Play a seeded tournament between Fifth Avenue agents and report per-agent statistics.",
        epilog=f"agents: {', '.join(AGENT_FACTORIES)}, policy:CHECKPOINT.zip")
    parser.add_argument("--agents", nargs="+", required=True,
                        help="one agent per seat, e.g. heuristic random*3 (2-4 seats)")
    parser.add_argument("--board", type=int, default=5, choices=(5, 6))
    parser.add_argument("--games", type=int, default=100, help="a multiple of the number of players")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--max-turns", type=int, default=300)
    parser.add_argument("--out", help="write OUT.json, OUT.csv and OUT.png")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    try:
        lineup = parse_lineup(args.agents)
        result = run_tournament([(name, agent_factory(name)) for name in lineup], board=args.board,
                                games=args.games, seed=args.seed, workers=args.workers,
                                max_turns=args.max_turns, progress=not args.quiet)
    except ValueError as error:
        parser.error(str(error))
    s = result.settings
    print(f"{s['num_players']} players, {s['board']}-plot board, {s['games']} games, seed {s['seed']}, "
          f"{result.seconds:.0f} s")
    print(result.format_table())
    print("act() ms per call:", ", ".join(f"{k} {v:.3f}" for k, v in result.act_ms().items()))
    truncated = sum(r["truncated"] for r in result.records)
    if truncated:
        print(f"{truncated} game(s) truncated at {s['max_turns']} turns")
    if args.out:
        result.save(args.out)
        print(f"wrote {args.out}.json, {args.out}.csv, {args.out}.png")


if __name__ == "__main__":
    main()
