"""Tournaments between agents: many seeded games, seats rotated, statistics per agent.

Python API::

    from fifthave.agents.tournament import run_tournament, agent_factory
    result = run_tournament([agent_factory("heuristic"), agent_factory("random")] + ...,
                            num_players=4, board=5, games=500, seed=0, workers=2)
    result.table            # one dict per agent label (see TABLE_COLUMNS)
    result.save("results/tournament/h_vs_r")   # .json, .csv and .png

``agent_factories`` lists one entry per seat: a zero-argument callable that
returns a fresh agent (``fifthave.agents.base.Agent`` protocol), or a ``(label,
factory)`` pair. Factories must be picklable for ``workers > 1``: a class, a
``functools.partial`` of one, or a module-level function (no lambdas). An
entry's label is the pair's label or else the agent's ``name`` (the factory is
then called once in the calling process to read it); entries with the same
label (three ``random`` opponents, say) are pooled in the table. A learned
policy takes part by wrapping it as an agent whose factory loads it; a fresh
agent is made for every game and ``reset`` before it.

Every game starts as the PettingZoo env's reset starts it (``fifthave_env.fifth_avenue_v0``,
``deal_game``) and is played by the one game runner (``fifthave_env.runner.play``), so each agent receives only its
own view or observation and action mask; a hook of the runner (``AuctionStatistics``) counts
the auction statistics.

Seating and seeds: games come in *deals* that share one env seed, one game per
seat order of the deal (``seat_orders``): ``"cyclic"`` (default) has
``num_players`` games per deal, in game ``r`` entry ``e`` sits in seat
``(e - r) mod num_players``, so every entry plays every seat equally often on
the same deals; ``"all"`` plays every permutation of the entries (24 games per
deal with 4 players); ``"sample"`` plays ``orders_per_deal`` distinct
permutations drawn per deal from ``(seed, deal)``. ``games`` must be a multiple
of the games per deal. The env seed of deal ``k`` and the generator of each
agent derive from ``(seed, k)`` and ``(seed, k, r, e)`` only, so results do not
depend on the number of workers.

Agents' answers go through ``fifthave_env.engine.actions.as_action_id`` (an int id;
3.9 is refused, not played as 3). An agent that raises, or answers with something
that is not a legal id, stops the tournament with ``AgentError`` naming the agent
(label, seat), the game (index, deal, seeds) and the decision, its error chained.

Statistics per label (``TABLE_COLUMNS``): ``win_rate`` (a shared win counts
1/k for each of the k winners) with a 95% interval clustered by deal (games of
one deal, and the seats of one label in one game, are not independent:
``fifthave.agents.stats.clustered_rate_interval``; a label in every seat wins exactly
``1 / num_players`` by construction, an interval of zero width), ``fair_share``
(its share if all were equal), mean VP with a 95% interval clustered by deal
(``fifthave.agents.stats.clustered_mean_interval``; None from a single deal), mean rank (1 = best, ordered as
R28 orders the winners: most VP, then most cards in hand; a tie on both shares
the rank), an Elo-scale rating with a 95% bootstrap-over-deals interval, and auction
statistics per game: auctions entered (at least one confirmed bid) and
won, the mean winning bid in card points, VP per card spent (final VP over all
cards paid for won auctions) and building stops declared.

Rating: a Bradley-Terry model fitted to every pair of seats of different labels
in every game (the better-ranked wins, a tie is half a win each), with one
virtual draw per label against a fixed 1500-rated reference so that a label that
always wins keeps a finite rating; reported on the Elo scale (400 log10),
1500 = the reference. Unlike sequential Elo it does not depend on game order.
The statistics live in ``fifthave.agents.stats``.

Console: ``fifthave tournament --agents heuristic random*3 --board 5 --games 500
--seed 0 --workers 2 --seat-orders all --out results/tournament/heuristic_vs_random_4p``
(``fifthave tournament --help`` lists the agent names).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import csv
import functools
import itertools
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from operator import mul
from typing import Any, TypedDict, Union

import numpy as np

from fifthave_env.env_common import game_config
from fifthave_env.engine import checks, safejson
from fifthave_env.replay import Recorder
from fifthave_env.runner import Decision, GameHooks, play
from fifthave_env.runtime import (INTERRUPTED_EXIT, WorkerPool, atomic_open, atomic_write_text, check_writable,
                                  chunk_size, die_with_parent)
from fifthave_env.engine.actions import BID_CONFIRM, DECLARE_STOP
from fifthave_env.engine.cards import KIND_VALUE
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION, DECISION_NAMES, Game, GameConfig

from .base import AgentFactory
from .registry import AGENT_FACTORIES, AgentNamesHelpFormatter, agent_names_help
from .stats import bootstrap_elo, bradley_terry_elo, clustered_mean_interval, clustered_rate_interval, seat_ranks

TABLE_COLUMNS = (
    "agent", "seat_games", "win_rate", "win_ci_low", "win_ci_high", "fair_share", "mean_vp", "vp_ci_low",
    "vp_ci_high", "mean_rank",
    "elo", "elo_ci_low", "elo_ci_high", "auctions_entered", "auctions_won", "mean_winning_bid", "vp_per_card",
    "stops_declared",
)


class TableRow(TypedDict):
    """One agent's row of a tournament's table (``TournamentResult.table``; the columns of ``TABLE_COLUMNS``,
    explained in ``TABLE_LEGEND``). An interval bound is None where one deal cannot give it."""

    agent: str
    seat_games: int
    win_rate: float
    win_ci_low: float
    win_ci_high: float
    fair_share: float
    mean_vp: float
    vp_ci_low: float | None
    vp_ci_high: float | None
    mean_rank: float
    elo: float
    elo_ci_low: float | None
    elo_ci_high: float | None
    auctions_entered: float
    auctions_won: float
    mean_winning_bid: float
    vp_per_card: float
    stops_declared: float


TABLE_LEGEND = """\
win rate (95% CI): wins per seat-game (a shared win counts 1/k), interval clustered by deal; fair: 1 / players
VP (95% CI): mean final victory points, interval clustered by deal; rank: mean place (1 = best)
Elo: Bradley-Terry rating, 1500 = reference
entered: auctions per game the agent confirmed a bid in; won: auctions won per game
bid: mean winning bid (card points); VP/card: final VP per card paid for won auctions
stops: building stops declared per game"""


GREEDY_SUFFIX = ":greedy"

AgentEntry = Union[AgentFactory, tuple[str, AgentFactory]]
"""A tournament entry: a factory (labelled by its agent's ``name``), or ``(label, factory)``."""


def agent_factory(name: str) -> AgentFactory:
    """A picklable factory for an agent named in ``AGENT_FACTORIES`` (e.g. ``"heuristic-aggressive"``),
    ``"search[:ROLLOUTS[:DEPTH[:POLICY]]]"`` (``fifthave.agents.search``; POLICY a scripted agent or any trained agent's
    name below), a committed model (``fifthave.agents.models``, e.g.
    ``"values-4p"``) or the path of an exported agent file (``fifthave.agents.agentfile``; ``policy:PATH``,
    ``rllib:PATH`` (also the checkpoint directory holding ``agent.npz``) and ``values:PATH`` name one too, and
    take only policies or only candidate-value networks). A trained policy samples its moves; ``PATH:greedy``
    plays its most likely legal move instead (as training evaluates with ``eval_deterministic``). Agent files
    are read with numpy alone and nothing is unpickled; older formats are converted once with
    ``python -m fifthave.train.export``."""
    if name == "search" or name.startswith("search:"):
        from .search import search_factory

        return search_factory(name, agent_factory)  # a rollout policy may be a trained agent
    if name in AGENT_FACTORIES:
        return AGENT_FACTORIES[name]
    from . import models
    from .learned import KIND_PREFIXES, AgentFileFactory, checkpoint_agent_file

    greedy = name.endswith(GREEDY_SUFFIX)
    bare = name.removesuffix(GREEDY_SUFFIX)
    if bare in models.MODELS:
        return models.factory(bare, deterministic=greedy)
    prefix, _, path = bare.partition(":")
    if prefix in KIND_PREFIXES and path:
        if prefix == "rllib" and not os.path.isfile(path):
            path = checkpoint_agent_file(path)
        return AgentFileFactory(path, deterministic=greedy, kinds=KIND_PREFIXES[prefix])
    if bare.endswith(".npz") or os.path.isfile(bare):
        return AgentFileFactory(bare, deterministic=greedy)
    raise ValueError(f"unknown agent {name!r}; choose from {agent_names_help()}")


# ---- one game ------------------------------------------------------------------------------

class AgentError(RuntimeError):
    """An agent raised, or chose an action that is not an int id or not legal, in a tournament game.

    The message names the agent (label, entry and seat), the game (index, deal, rotation, the
    tournament seed and the env seed) and the decision; the agent's own error is chained as
    ``__cause__`` (with ``workers > 1``, its traceback text comes along as the cause)."""


@dataclass
class _Setup:
    labels: list[str]
    factories: list[AgentFactory]
    num_players: int
    board: int
    max_turns: int
    seed: int
    seat_orders: str = "cyclic"
    orders_per_deal: int = 0  # only for "sample"
    keep_moves: bool = False


_WORKER_SETUP: _Setup | None = None


def _init_worker(setup: _Setup) -> None:
    global _WORKER_SETUP
    _WORKER_SETUP = setup


@contextlib.contextmanager
def fork_pool(workers: int, initializer: Callable[..., object] | None = None,
              initargs: tuple[Any, ...] = ()) -> Iterator[WorkerPool]:
    """``with fork_pool(n) as pool``: a ``ProcessPoolExecutor`` (``WorkerPool``) whose workers inherit the
    caller's agents and factories (fork where the platform has it, so they need not pickle: lambdas work).

    Each worker runs torch on one thread: it is one of ``workers`` processes, and a forked
    child must not enter the parent's OpenMP thread pool (GNU OpenMP can hang there).
    Leaving the block, also on an error, cancels the work not started and lets each worker finish
    the piece it holds. ``multiprocessing.Pool`` terminated its workers instead, and one killed while
    sending a result left the result queue's lock taken: the pool then waited forever (it did, once
    in the test suite, when an agent's error ended a tournament). The workers die with this process, however
    it ends (``fifthave_env.runtime.die_with_parent``), and leave Ctrl-C to it, which cannot hang the pool
    (``fifthave_env.runtime.WorkerPool``)."""
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    pool = WorkerPool(workers, mp_context=context, initializer=_init_pool_worker,
                      initargs=(os.getpid(), initializer, initargs))
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _init_pool_worker(parent_pid, initializer, initargs):
    die_with_parent(parent_pid)
    torch = sys.modules.get("torch")  # imported by the parent: its threads did not survive the fork
    if torch is not None:
        torch.set_num_threads(1)
    if initializer is not None:
        initializer(*initargs)


def deal_seed(seed: int, deal: int) -> int:
    """The env seed of deal ``deal`` of a tournament seeded ``seed`` (every game of the deal starts from it)."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1, np.uint64)[0])


@functools.lru_cache(maxsize=16)
def _env_config(num_players: int, board: int, max_turns: int) -> GameConfig:
    return game_config("win_loss", None, num_players=num_players, board=board, max_turns=max_turns)


def deal_game(num_players: int, board: int, max_turns: int, env_seed: int) -> Game:
    """The game ``fifth_avenue_v0.env(num_players=..., board=..., max_turns=...).reset(seed=env_seed)`` starts,
    made without the env (whose spaces and observer a tournament does not use: ~0.2 ms a game).
    tests/agents/test_tournament.py checks it is the env's game."""
    config = _env_config(num_players, board, max_turns)
    return Game(config, rng=np.random.default_rng(np.random.default_rng(env_seed).integers(2**63)))


def seating(num_players: int, rotation: int) -> list[int]:
    """Entry index per seat in game ``rotation`` of a deal."""
    return [(seat + rotation) % num_players for seat in range(num_players)]


SEAT_ORDERS = ("cyclic", "all", "sample")


def deal_seatings(num_players: int, seat_orders: str = "cyclic", seed: int = 0, deal: int = 0,
                  orders_per_deal: int = 0) -> list[list[int]]:
    """The seatings (entry index per seat) of the games of one deal.

    ``cyclic``: the ``num_players`` rotations; ``all``: every permutation
    (24 with 4 players); ``sample``: ``orders_per_deal`` distinct permutations
    drawn for this deal from ``(seed, deal)``.
    """
    if seat_orders == "cyclic":
        return [seating(num_players, r) for r in range(num_players)]
    orders = [list(p) for p in itertools.permutations(range(num_players))]
    if seat_orders == "all":
        return orders
    if seat_orders == "sample":
        if not 1 <= orders_per_deal <= len(orders):
            raise ValueError(f"orders_per_deal must be 1..{len(orders)} for {num_players} players, "
                             f"got {orders_per_deal!r}")
        picks = np.random.default_rng([seed, deal, 1]).choice(len(orders), size=orders_per_deal, replace=False)
        return [orders[i] for i in sorted(picks.tolist())]
    raise ValueError(f"seat_orders must be one of {', '.join(SEAT_ORDERS)}, got {seat_orders!r}")


class AuctionStatistics(GameHooks):
    """A ``runner.play`` hook counting, per seat, the auctions entered (a confirmed bid) and won, the card points
    and cards paid for them, the building stops declared and the time spent in ``act``."""

    def __init__(self, num_players: int) -> None:
        n = num_players
        self.entered, self.won, self.bid_points, self.cards_spent = [0] * n, [0] * n, [0] * n, [0] * n
        self.stops, self.act_seconds, self.act_calls = [0] * n, [0.0] * n, [0] * n
        self.auctions = 0
        self.confirmed_here: set[int] = set()
        self.auction_location = -1  # the game's auc_loc after the last decision that left it bidding

    def applied(self, decision: Decision) -> None:
        seat, game = decision.seat, decision.game
        self.act_seconds[seat] += decision.act_seconds
        self.act_calls[seat] += 1
        bid = decision.kind == BID_DECISION
        if bid:
            if decision.action == BID_CONFIRM and seat not in self.confirmed_here:
                self.confirmed_here.add(seat)
                self.entered[seat] += 1
            if game.decision == BUILD_DECISION:
                winner, paid = game.auc_winner, game.auc_last_bid
                self.won[winner] += 1
                self.bid_points[winner] += sum(map(mul, KIND_VALUE, paid))
                self.cards_spent[winner] += sum(paid)
        elif decision.action == DECLARE_STOP:
            self.stops[seat] += 1
        if game.decision == BID_DECISION:  # (only then is auction_location read, at the next decision)
            location = game.auc_loc
            if not bid or location != self.auction_location:  # a new auction (the next may follow at once)
                self.auctions += 1
                self.confirmed_here = set()
            self.auction_location = location


def play_game(setup: _Setup, game_index: int) -> dict[str, Any]:
    """Play one game of the tournament; a JSON-ready record of what happened (with ``setup.keep_moves``, also
    the game's moves: ``"record"``, a ``fifthave_env.replay.GameRecord`` as a dict, which the web viewer opens).

    Raises ``AgentError`` if an agent fails to make or reset itself, raises in ``act``, or
    answers with something that is not a legal action id (``as_action_id``: 3.9 is refused, not 3)."""
    n = setup.num_players
    per_deal = games_per_deal(n, setup.seat_orders, setup.orders_per_deal)
    deal, rotation = divmod(game_index, per_deal)
    seats = deal_seatings(n, setup.seat_orders, setup.seed, deal, setup.orders_per_deal)[rotation]
    env_seed = deal_seed(setup.seed, deal)
    game = deal_game(n, setup.board, setup.max_turns, env_seed)

    def agent_error(seat, doing, error):
        entry = seats[seat]
        return AgentError(f"agent {setup.labels[entry]!r} (entry {entry}, seat {seat}) failed in game {game_index} "
                          f"(deal {deal}, rotation {rotation}; tournament seed {setup.seed}, env seed {env_seed}) "
                          f"at turn {game.turn} {doing}: {type(error).__name__}: {error}")

    agents = []
    for seat, entry in enumerate(seats):
        try:
            agent = setup.factories[entry]()
            agent.reset(game.config, seat, np.random.default_rng([setup.seed, deal, rotation, entry]))
        except Exception as error:
            raise agent_error(seat, "while being made and reset", error) from error
        agents.append(agent)
    statistics = AuctionStatistics(n)
    hooks: list[GameHooks] = [statistics]
    recorder = Recorder(game, [setup.labels[entry] for entry in seats]) if setup.keep_moves else None
    if recorder is not None:
        hooks.append(recorder)
    try:
        play(game, agents, hooks)
    except Exception as error:  # an agent's: the game stays before the decision it failed (runner.play)
        raise agent_error(game.actor, f"in decision '{DECISION_NAMES[game.decision]}'", error) from error
    s = statistics
    record = {
        "game": game_index, "deal": deal, "rotation": rotation, "entries": seats,
        "scores": list(game.scores), "winners": list(game.winners), "cards_in_hand": [sum(h) for h in game.hands],
        "truncated": game.truncated, "turns": game.turn, "auctions": s.auctions,
        "auctions_entered": s.entered, "auctions_won": s.won, "bid_points_won": s.bid_points,
        "cards_spent": s.cards_spent, "stops_declared": s.stops,
        "act_seconds": s.act_seconds, "act_calls": s.act_calls,
    }
    if recorder is not None:
        record["record"] = recorder.record.to_dict()
    return record


def _play_in_worker(game_index):
    assert _WORKER_SETUP is not None, "fork_pool's initializer (_init_worker) sets it in each worker"
    return play_game(_WORKER_SETUP, game_index)


# ---- statistics ------------------------------------------------------------------------------

def summarize(records: Sequence[dict[str, Any]], labels: Sequence[str], num_players: int,
              elo_resamples: int = 200) -> list[TableRow]:
    """The per-label table (dicts with TABLE_COLUMNS) from game records."""
    rows: dict[str, TableRow] = {}
    distinct = sorted(set(labels))
    ratings = bradley_terry_elo(distinct, records, labels)
    deals = sorted({r["deal"] for r in records})
    if len(deals) > 1:
        elo_ci = bootstrap_elo(distinct, records, labels, resamples=elo_resamples)
    else:
        elo_ci = dict.fromkeys(distinct, (None, None))  # one deal: nothing to resample
    column = {deal: i for i, deal in enumerate(deals)}
    for label in dict.fromkeys(labels):
        entries = {e for e, lab in enumerate(labels) if lab == label}
        seat_games = wins = vp = rank = 0.0
        entered = won = points = cards = stops = 0
        deal_wins, deal_vp, deal_seats = np.zeros(len(deals)), np.zeros(len(deals)), np.zeros(len(deals))
        for record in records:
            ranks = seat_ranks(record)
            for seat, entry in enumerate(record["entries"]):
                if entry not in entries:
                    continue
                seat_games += 1
                deal_seats[column[record["deal"]]] += 1
                if seat in record["winners"]:
                    wins += 1 / len(record["winners"])
                    deal_wins[column[record["deal"]]] += 1 / len(record["winners"])
                vp += record["scores"][seat]
                deal_vp[column[record["deal"]]] += record["scores"][seat]
                rank += ranks[seat]
                entered += record["auctions_entered"][seat]
                won += record["auctions_won"][seat]
                points += record["bid_points_won"][seat]
                cards += record["cards_spent"][seat]
                stops += record["stops_declared"][seat]
        if len(entries) == num_players:  # every seat is this label's: it wins 1 / num_players of them exactly
            low = high = 1 / num_players
        else:
            _, low, high = clustered_rate_interval(deal_wins, deal_seats)
        _, vp_low, vp_high = clustered_mean_interval(deal_vp, deal_seats)
        if len(deals) < 2:  # unbounded from one deal (and JSON has no infinity)
            vp_low = vp_high = None
        rows[label] = {
            "agent": label, "seat_games": int(seat_games), "win_rate": wins / seat_games,
            "win_ci_low": low, "win_ci_high": high, "fair_share": 1 / num_players,
            "mean_vp": vp / seat_games, "vp_ci_low": vp_low, "vp_ci_high": vp_high,
            "mean_rank": rank / seat_games, "elo": ratings[label],
            "elo_ci_low": elo_ci[label][0], "elo_ci_high": elo_ci[label][1],
            "auctions_entered": entered / seat_games, "auctions_won": won / seat_games,
            "mean_winning_bid": points / won if won else 0.0,
            "vp_per_card": vp / cards if cards else 0.0,
            "stops_declared": stops / seat_games,
        }
    return list(rows.values())


@dataclass
class TournamentResult:
    """A tournament's settings, its table (one ``TableRow`` per label), the per-game records and the wall time."""

    settings: dict[str, Any]
    table: list[TableRow]
    records: list[dict[str, Any]] = field(repr=False)
    seconds: float = 0.0

    def row(self, label: str) -> TableRow:
        """The table row of ``label`` (``KeyError`` naming the labels there are)."""
        for row in self.table:
            if row["agent"] == label:
                return row
        raise KeyError(f"no agent labelled {label!r}; labels: {[r['agent'] for r in self.table]}")

    def act_ms(self) -> dict[str, float]:
        """Mean milliseconds per act() call per label (timing; not part of the reproducible results)."""
        labels = self.settings["labels"]
        totals: dict[str, list[float]] = {}
        for record in self.records:
            for seat, entry in enumerate(record["entries"]):
                t = totals.setdefault(labels[entry], [0.0, 0])
                t[0] += record["act_seconds"][seat]
                t[1] += record["act_calls"][seat]
        return {label: 1000 * s / max(c, 1) for label, (s, c) in totals.items()}

    def format_table(self) -> str:
        """The table as fixed-width text (what ``fifthave tournament`` prints; ``TABLE_LEGEND`` explains it)."""
        head = (f"{'agent':24s} {'win rate (95% CI)':>22s} {'fair':>5s} {'VP (95% CI)':>19s} {'rank':>5s} {'Elo':>6s} "
                f"{'entered':>7s} {'won':>5s} {'bid':>5s} {'VP/card':>7s} {'stops':>5s}")
        lines = [head]
        for r in self.table:
            ci = f"{r['win_rate']:.3f} ({r['win_ci_low']:.3f}-{r['win_ci_high']:.3f})"
            vp = f"{r['mean_vp']:.1f}" + ("" if r["vp_ci_low"] is None else f" ({r['vp_ci_low']:.1f}-{r['vp_ci_high']:.1f})")
            lines.append(f"{r['agent']:24s} {ci:>22s} {r['fair_share']:5.2f} {vp:>19s} "
                         f"{r['mean_rank']:5.2f} {r['elo']:6.0f} {r['auctions_entered']:7.2f} "
                         f"{r['auctions_won']:5.2f} {r['mean_winning_bid']:5.1f} {r['vp_per_card']:7.2f} "
                         f"{r['stops_declared']:5.2f}")
        return "\n".join(lines)

    @classmethod
    def load(cls, stem: str | os.PathLike[str]) -> TournamentResult:
        """The result saved at ``stem.json``, its table computed again from the stored games (the
        statistics of the current code; the games are not replayed)."""
        data = safejson.load(f"{stem}.json", f"the tournament result {stem}.json")
        s = data["settings"]
        return cls(s, summarize(data["games"], s["labels"], s["num_players"]), data["games"], data.get("seconds", 0.0))

    def save(self, stem: str | os.PathLike[str]) -> None:
        """Write ``stem.json`` (settings, table, per-game records), ``stem.csv`` (the table) and ``stem.png``."""
        os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
        self.save_json(f"{stem}.json")
        with atomic_open(f"{stem}.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=TABLE_COLUMNS)
            writer.writeheader()
            writer.writerows(self.table)
        self.plot(f"{stem}.png")  # last: the games and the table are on disk even if plotting fails

    def save_json(self, path: str | os.PathLike[str]) -> None:
        """Write the settings, the table and the per-game records (what ``load`` and the web viewer read) to ``path``."""
        write_json(path, {"settings": self.settings, "table": self.table, "act_ms": self.act_ms(),
                          "seconds": self.seconds}, self.records)

    def plot(self, path: str | os.PathLike[str]) -> None:
        """Draw win rates, mean VP and Elo with their intervals to the PNG file ``path`` (needs matplotlib)."""
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
        vp_errors = None
        if all(r["vp_ci_low"] is not None for r in self.table):  # then every bound is a float (mypy cannot see it)
            vp_errors = [[r["mean_vp"] - r["vp_ci_low"] for r in self.table],  # type: ignore[operator]
                         [r["vp_ci_high"] - r["mean_vp"] for r in self.table]]  # type: ignore[operator]
        axes[1].bar(x, [r["mean_vp"] for r in self.table], yerr=vp_errors, capsize=4, color="tab:green")
        axes[1].set_ylabel("mean VP (95% CI)")
        elo_errors = None
        if all(r["elo_ci_low"] is not None for r in self.table):  # as above
            elo_errors = [[max(0.0, r["elo"] - r["elo_ci_low"]) for r in self.table],  # type: ignore[operator]
                          [max(0.0, r["elo_ci_high"] - r["elo"]) for r in self.table]]  # type: ignore[operator]
        axes[2].bar(x, [r["elo"] - 1500 for r in self.table], bottom=1500, yerr=elo_errors, capsize=4,
                    color="tab:orange")
        axes[2].set_ylabel("Elo (Bradley-Terry, 95% CI)")
        for ax in axes:
            ax.set_xticks(x, labels, rotation=20, ha="right", fontsize=8)
        s = self.settings
        fig.suptitle(f"{s['num_players']} players, {s['board']}-plot board, {s['games']} games, seed {s['seed']}")
        fig.tight_layout()
        with atomic_open(path, "wb") as f:
            fig.savefig(f, format="png", dpi=110)
        plt.close(fig)


def deal_win_shares(records: Sequence[dict[str, Any]], entry: int = 0) -> dict[int, float]:
    """Per deal: the mean win share of lineup entry ``entry`` over the deal's games (a shared win counts 1/k;
    a truncated game (R29) is a loss, issue 35's rule, though the table credits R28's leaders). Two
    tournaments of one ``--games`` and ``--seed`` hold the same deals: ``fifthave.agents.stats.paired_difference``
    of two agents' shares is their comparison paired by deal."""
    games: dict[int, list[float]] = {}
    for record in records:
        seat = record["entries"].index(entry)
        won = not record["truncated"] and seat in record["winners"]
        games.setdefault(record["deal"], []).append(1 / len(record["winners"]) if won else 0.0)
    return {deal: sum(shares) / len(shares) for deal, shares in games.items()}


def write_json(path: str | os.PathLike[str], head: dict[str, Any], records: Sequence[Any]) -> None:
    """``head`` plus ``"games": records``, indented, with one game record per line (compact, diff-friendly)."""
    text = json.dumps(head, indent=1)
    games = ",\n  ".join(json.dumps(record, separators=(",", ":")) for record in records)
    atomic_write_text(path, f'{text[:-2]},\n "games": [\n  {games}\n ]\n}}\n')


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


def orders_per_deal_for(num_players: int, seat_orders: str, orders_per_deal: int | None) -> int:
    """The number of seat orders per deal ``sample`` plays (given, or ``num_players``); for the other
    seat orders, which fix it, giving one is an error rather than ignored."""
    if orders_per_deal is None:
        return num_players
    if seat_orders != "sample":
        raise ValueError(f"orders_per_deal needs seat_orders='sample' (seat_orders={seat_orders!r} fixes the games "
                         f"per deal), got orders_per_deal={orders_per_deal!r}")
    return orders_per_deal


def games_per_deal(num_players: int, seat_orders: str = "cyclic", orders_per_deal: int = 0) -> int:
    """How many games a deal has: one per seat order (``deal_seatings``)."""
    return len(deal_seatings(num_players, seat_orders, orders_per_deal=orders_per_deal))


def run_tournament(agent_factories: Sequence[AgentEntry], num_players: int | None = None, board: int = 5,
                   games: int = 100, seed: int = 0, workers: int = 1, max_turns: int = 300, progress: bool = False,
                   seat_orders: str = "cyclic", orders_per_deal: int | None = None, backend: str = "local",
                   address: str | None = None, keep_moves: bool = False) -> TournamentResult:
    """Play ``games`` games (a multiple of the games per deal) and summarize them; see the module docstring.

    ``num_players`` defaults to the number of entries, and must equal it.
    ``workers`` processes share the games (1: in this process). ``seat_orders``:
    ``"cyclic"``, ``"all"`` or ``"sample"`` (``orders_per_deal`` of them, default
    ``num_players``). ``backend="ray"`` plays the games as Ray tasks instead, on a local Ray or on
    the cluster at ``address`` (``fifthave.agents.ray_backend``); same table. ``keep_moves``: each game's
    record also holds its moves (``"record"``, a ``fifthave_env.replay.GameRecord`` as a dict) for the web
    viewer, which replays the other games from their seeds, and only those of scripted agents.
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
    orders_per_deal = orders_per_deal_for(num_players, seat_orders, orders_per_deal)
    per_deal = games_per_deal(num_players, seat_orders, orders_per_deal)
    if games < per_deal or games % per_deal:
        what = "num_players" if seat_orders == "cyclic" else f"the games per deal with seat_orders={seat_orders!r}"
        raise ValueError(f"games must be a positive multiple of {what} ({per_deal}) so that every deal is "
                         f"played in all its seat orders, got {games}")
    workers = checks.integer("workers", workers, 1, checks.MAX_WORKERS)
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    setup = _Setup(labels, factories, num_players, board, max_turns, seed, seat_orders, orders_per_deal, keep_moves)
    start = time.perf_counter()
    indices = range(games)
    if backend == "ray":
        from .ray_backend import play_games

        records = sorted(_progress(play_games(play_game, setup, games, address), games, progress), key=lambda r: r["game"])
    elif workers == 1:
        results = (play_game(setup, g) for g in indices)
        records = list(_progress(results, games, progress))
    else:
        with fork_pool(workers, _init_worker, (setup,)) as pool:
            results = pool.map(_play_in_worker, indices, chunksize=chunk_size(games, workers))
            records = list(_progress(results, games, progress))
    settings = {"labels": labels, "num_players": num_players, "board": board, "games": games, "seed": seed,
                "max_turns": max_turns, "seat_orders": seat_orders}
    if seat_orders == "sample":
        settings["orders_per_deal"] = orders_per_deal
    return TournamentResult(settings, summarize(records, labels, num_players), records,
                            time.perf_counter() - start)


def _progress(iterable, total, enabled):
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, unit="game", smoothing=0.05)


# ---- console -----------------------------------------------------------------------------

MAX_SEATS = 4


def parse_lineup(specs: Sequence[str]) -> list[str]:
    """``["heuristic", "random*3"]`` -> ``["heuristic", "random", "random", "random"]`` (names checked)."""
    lineup = []
    for spec in specs:
        name, _, count = spec.partition("*")
        if count and not (count.isdigit() and len(count) <= 2 and 1 <= int(count) <= MAX_SEATS):
            raise ValueError(f"{spec!r}: write NAME or NAME*COUNT with COUNT from 1 to {MAX_SEATS}, e.g. random*3")
        agent_factory(name)
        lineup += [name] * (int(count) if count else 1)
        if len(lineup) > MAX_SEATS:  # checked as it grows: random*99999999999 is refused, not built
            raise ValueError(f"--agents names one agent per seat, 2 to {MAX_SEATS} in all, got more: "
                             f"{' '.join(specs)}")
    return lineup


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="Play a seeded tournament between Fifth Avenue agents and report per-agent statistics.",
        epilog=f"agents: {agent_names_help()}", formatter_class=AgentNamesHelpFormatter)
    parser.add_argument("--agents", nargs="+", help="one agent per seat, e.g. heuristic random*3 (2-4 seats)")
    parser.add_argument("--resummarize", nargs="+", metavar="STEM",
                        help="instead of playing: recompute the table of saved results STEM.json from their stored "
                             "games and rewrite STEM.json/.csv/.png")
    parser.add_argument("--board", type=int, default=5, choices=(5, 6))
    parser.add_argument("--games", type=checks.cli_int(1), default=100, help="a multiple of the games per deal")
    parser.add_argument("--seat-orders", choices=SEAT_ORDERS, default="cyclic",
                        help="seat orders per deal: cyclic rotations (n games), all permutations (n! games) "
                             "or a seeded sample of --orders-per-deal permutations")
    parser.add_argument("--orders-per-deal", type=checks.cli_int(1), default=None,
                        help="with --seat-orders sample: permutations per deal (default: the number of players)")
    parser.add_argument("--seed", type=checks.cli_seed, default=0)
    parser.add_argument("--workers", type=checks.cli_workers, default=os.cpu_count() or 1)
    parser.add_argument("--max-turns", type=int, default=300)
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="ray: play the games as Ray tasks (needs the distributed extra); same table")
    parser.add_argument("--address", help="with --backend ray: join the Ray cluster whose head is at HOST:PORT "
                        "(default: start a local Ray)")
    parser.add_argument("--out", help="write OUT.json, OUT.csv and OUT.png")
    parser.add_argument("--keep-moves", action="store_true",
                        help="OUT.json also keeps every game's moves, so the web viewer (fifthave serve) replays "
                             "games of learned agents too")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.resummarize:
        for stem in args.resummarize:
            try:
                result = TournamentResult.load(stem.removesuffix(".json"))
            except (OSError, ValueError, KeyError, TypeError) as error:
                parser.error(f"--resummarize {stem}: {error}")
            result.save(stem.removesuffix(".json"))
            print(f"{stem}:\n{result.format_table()}")
        return
    if not args.agents:
        parser.error("give --agents (or --resummarize)")
    if args.address is not None and args.backend != "ray":
        parser.error("--address joins a Ray cluster: give it with --backend ray")
    try:
        if args.out:  # before the games, which may take hours
            for suffix in (".json", ".csv", ".png"):
                check_writable("--out", args.out + suffix)
        lineup = parse_lineup(args.agents)
        result = run_tournament([(name, agent_factory(name)) for name in lineup], board=args.board,
                                games=args.games, seed=args.seed, workers=args.workers,
                                max_turns=args.max_turns, progress=not args.quiet, seat_orders=args.seat_orders,
                                orders_per_deal=args.orders_per_deal, backend=args.backend, address=args.address,
                                keep_moves=args.keep_moves)
    except (ValueError, ImportError, ConnectionError, AgentError) as error:  # AgentError: e.g. a missing checkpoint
        parser.error(str(error))
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's code for it; the workers stop with us
        parser.exit(INTERRUPTED_EXIT, f"\n{parser.prog}: interrupted; no results written\n")
    if args.out:  # first: nothing printed or computed below can lose the games
        result.save(args.out)
    s = result.settings
    print(f"{s['num_players']} players, {s['board']}-plot board, {s['games']} games, seed {s['seed']}, "
          f"{result.seconds:.0f} s")
    print(result.format_table())
    print(TABLE_LEGEND)
    print("act() ms per call:", ", ".join(f"{k} {v:.3f}" for k, v in result.act_ms().items()))
    if args.backend == "ray":
        nodes = collections.Counter(r["node"] for r in result.records)
        print("games per Ray node:", ", ".join(f"{node} {count}" for node, count in sorted(nodes.items())))
    truncated = sum(r["truncated"] for r in result.records)
    if truncated:
        print(f"{truncated} game(s) truncated at {s['max_turns']} turns")
    if args.out:
        print(f"wrote {args.out}.json, {args.out}.csv, {args.out}.png")


if __name__ == "__main__":
    main()
