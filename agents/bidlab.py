"""The bidding lab: is bidding strategy X better than Y, all else equal, and by how much?

Paired comparison (``compare``, ``fifthave bidlab compare``)
    Every deal (env seed) is played twice in each of its seat orders: once
    with the *baseline* in the focus entry, once with the *candidate*; the
    opponents, seats, env seeds and every agent's generator are the same in
    both arms (common random numbers: the generator of entry ``e`` in game
    ``r`` of deal ``k`` is ``(seed, k, r, e)``, as in the tournament). A
    candidate is an agent name (``heuristic-reach``), a zero-argument agent
    factory, or a :class:`fifthave.agents.bidding.BiddingStrategy` (instance or class),
    which is played by a ``HeuristicAgent`` that only bids differently. Per
    deal the focus entry's mean win share, mean VP and mean VP margin (its VP
    minus the mean VP of the other seats) over the deal's games are taken; the difference candidate - baseline has a 95% expanded
    percentile bootstrap interval over deals (10,000 resamples, seeded), shown next to
    the unpaired interval (the arms resampled independently, as if played on
    different deals) and the variance reduction factor pairing gave
    (``fifthave.agents.stats.paired_difference``).

Luck correction (AIVAT-style control variate)
    Besides the deal, the only chance events after setup are black card
    draws (the black pile is face down; a reshuffle mixes it again): the
    value of a drawn card is uniform over the unseen cards left, whatever the
    agents decided. Every game records, per seat, the *luck* of its draws:
    card points drawn minus their expectation at the moment of each draw (its
    starting hand's points minus their expectation too). The focus entry's
    luck minus the mean of the others' has mean zero by construction, so
    subtracting ``beta`` times it (``beta`` by least squares,
    ``fifthave.agents.stats.control_variate``) keeps the estimate unbiased and removes
    the variance the draws explain. Both the paired and the unpaired factors
    are reported.

Field control (when the baseline plays against copies of itself)
    If the opponents are the baseline agent, the baseline arm is a field of
    equals: the focus entry's expected win share is exactly ``1 / n``, its
    expected VP margin is 0 and its expected VP equals the mean VP over all
    seats of the same games. The
    focus entry's deviation from that field mean has mean zero, so it is a
    second control variate (``field_corrected``; with the luck term,
    ``field_and_luck_corrected``). It removes most of the baseline arm's
    noise, which pairing alone cannot: the two arms drift apart after the
    first decision that differs.

Auction-level analysis (``auction_effects``)
    Auction start positions are saved from real games (``Game.to_dict``)
    with a focus seat. Each position is replayed once per bidder: the focus
    seat bids with that strategy in this auction only; every other decision,
    and the whole rest of the game, is played by fixed agents
    (``HeuristicAgent``, value bidding) with the same generators in every
    replay. The per-auction effect of a strategy is its focus VP minus that
    of ``value`` in the same position; the *bid regret* of a bidder is the
    best focus VP over a set of alternative bids (pass, and value bidding
    scaled by 0.5 ... 2 of the worth) minus its own (one replay per bid: the
    maximum of noisy values is biased upward, so read regrets as upper
    estimates). Intervals resample source deals (positions of one game are
    correlated, and so are the games of one deal, which share its cards:
    ``fifthave.agents.stats.cluster_bootstrap_mean``).

Console::

    fifthave bidlab compare --baseline heuristic --candidate heuristic-reach --players 4 --deals 100 \\
        --seat-orders cyclic --json out.json
    fifthave bidlab study --out results/bidding      # the committed study (results/bidding/README.md)
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union, cast

import numpy as np

from fifthave_env import fifth_avenue_v0
from fifthave_env.agent_protocol import give_sampler
from fifthave_env.engine.cards import BLACK, COLORED_PER_COLOR, BLACK_COUNTS, FACE_UP, SEEN_FACE_DOWN, VALUES
from fifthave_env.engine.game import BID_DECISION, BUILD_DECISION, Game
from fifthave_env.runner import GameHooks, play
from fifthave_env.runtime import atomic_write_text, chunk_size

from . import stats
from .base import AgentFactory
from .bidding import BIDDING_STRATEGIES, AuctionSituation, BiddingStrategy
from .heuristic import HeuristicAgent
from .tournament import SEAT_ORDERS, agent_factory, deal_seatings, deal_seed, fork_pool, orders_per_deal_for

COLORED_MEAN = sum(v * n for v, n in zip(VALUES, COLORED_PER_COLOR)) / sum(COLORED_PER_COLOR)
BLACK_MEAN = sum(v * n for v, n in zip(VALUES, BLACK_COUNTS)) / sum(BLACK_COUNTS)
METRICS = ("win", "vp", "margin")  # win share, VP, VP minus the mean of the other seats

AgentSpec = Union[str, AgentFactory, BiddingStrategy, type[BiddingStrategy]]
"""What the lab plays in a seat: an agent name, a zero-argument agent factory, or a bidding strategy (instance or
class) played by a ``HeuristicAgent``."""


def make_factory(spec: AgentSpec) -> AgentFactory:
    """A picklable zero-argument agent factory from an agent name, a factory or a bidding strategy."""
    if isinstance(spec, str):
        return agent_factory(spec)
    if isinstance(spec, BiddingStrategy) or (isinstance(spec, type) and issubclass(spec, BiddingStrategy)):
        strategy = spec() if isinstance(spec, type) else spec
        return functools.partial(HeuristicAgent, bidding=strategy, name=f"heuristic-{strategy.name}")
    if callable(spec):
        return cast(AgentFactory, spec)  # any other callable is taken for an agent factory
    raise TypeError(f"give an agent name, a zero-argument agent factory or a BiddingStrategy, got {spec!r}")


def spec_name(spec: AgentSpec) -> str:
    """The label of ``spec`` in results: the agent name given, else the made agent's ``name``."""
    if isinstance(spec, str):
        return spec
    return make_factory(spec)().name


# ---- playing from any state, with luck bookkeeping ---------------------------------------

def _expected_draw(pile):
    """Expected value of the next black card drawn from ``pile`` (None when empty)."""
    if not pile:
        return None
    top = pile[-1]
    if top >= 3 * FACE_UP:  # the pile is reshuffled before the draw (R16)
        return sum(VALUES[e % 3] for e in pile) / len(pile)
    if top >= 3 * SEEN_FACE_DOWN:  # a card everyone saw go under: no luck
        return VALUES[top % 3]
    unseen = [VALUES[e] for e in pile if e < 3]
    return sum(unseen) / len(unseen)


class LuckMeter:
    """Card points of each seat's black draws minus their expectation at each draw (and of the starting hand).

    Wraps the game's ``draw_black`` on this instance only; a draw whose
    receiver is not a seat (Alea's bid, 2 players) is not counted.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self.luck = [sum(VALUES[k % 3] * c for k, c in enumerate(hand)) - 5 * COLORED_MEAN - 4 * BLACK_MEAN
                     for hand in game.hands]
        self._draws: list[float] = []
        original = game.draw_black

        def draw_black():
            expected = _expected_draw(game.black)
            value = original()
            if value is not None:
                self._draws.append(VALUES[value] - expected)
            return value

        game.draw_black = draw_black  # type: ignore[method-assign]  # this instance's draws only (class docstring)

    def before(self) -> None:
        self._draws.clear()
        self._blacks = [sum(h[BLACK * 3:]) for h in self.game.hands]

    def after(self) -> None:
        if not self._draws:
            return
        game = self.game
        gained = [sum(h[BLACK * 3:]) - b for h, b in zip(game.hands, self._blacks)]
        receivers = [(game.active + i) % game.n for i in range(game.n)]
        order = [p for p in receivers for _ in range(max(0, gained[p]))]
        if len(order) == len(self._draws):  # action C: the active seat; action D: active first, then in turn
            for p, luck in zip(order, self._draws):
                self.luck[p] += luck

    def relative(self, seat: int) -> float:
        others = [x for p, x in enumerate(self.luck) if p != seat]
        return self.luck[seat] - sum(others) / len(others)

    def saved_state(self) -> dict[str, Any]:
        """``game.to_dict()``: the game's state fields, without the wrapper (clones leave it out too)."""
        return self.game.to_dict()


class _PlayOutHooks(GameHooks):
    """``play_out``'s hooks: the luck meter around each action, ``on_auction`` at each auction start, and the
    bidder taking its seat's decisions while the auction running when the game was handed over lasts."""

    def __init__(self, game, meter, bidder, on_auction):
        self.meter, self.bidder, self.on_auction = meter, bidder, on_auction
        self.auction_loc = game.auc_loc if bidder is not None and game.decision == BID_DECISION else None
        self.last_auction = (game.turn, game.auc_loc) if game.decision == BID_DECISION else None

    def choose_agent(self, game, seat, agent):
        if self.on_auction is not None and game.decision == BID_DECISION and (
                game.turn, game.auc_loc) != self.last_auction:
            self.last_auction = (game.turn, game.auc_loc)
            self.on_auction(game)
        if self.auction_loc is not None:
            if game.decision in (BID_DECISION, BUILD_DECISION) and game.auc_loc == self.auction_loc:
                if seat == self.bidder[0]:
                    return self.bidder[1]
            else:
                self.auction_loc = None
        return agent

    def decided(self, decision):
        if self.meter is not None:
            self.meter.before()

    def applied(self, decision):
        if self.meter is not None:
            self.meter.after()


def play_out(game: Game, agents: Sequence[Any], meter: LuckMeter | None = None, bidder: tuple[int, Any] | None = None,
             on_auction: Callable[[Game], object] | None = None) -> Game:
    """Play ``game`` to its end with one agent per seat (``fifthave_env.runner.play``, as in the tournament).

    ``meter``: a :class:`LuckMeter` of this game. ``bidder``: ``(seat, agent)``
    taking that seat's decisions while the auction running now lasts (the
    auction at ``game.auc_loc``). ``on_auction(game)``: called when an auction starts.
    """
    if bidder is not None:
        give_sampler(bidder[1], game, bidder[0])
    return play(game, agents, [_PlayOutHooks(game, meter, bidder, on_auction)])


def win_shares(game: Game) -> list[float]:
    """Each seat's share of the win of a finished game (1 / k for each of k winners, else 0)."""
    return [1 / len(game.winners) if p in game.winners else 0.0 for p in range(game.n)]


def new_game(num_players: int, board: int, max_turns: int, seed: int, deal: int) -> Game:
    """The game of deal ``deal``: the same cards and tiles as the tournament's deal."""
    env = fifth_avenue_v0.env(num_players=num_players, board=board, max_turns=max_turns)
    env.reset(seed=deal_seed(seed, deal))
    return env.unwrapped.game


# ---- paired comparisons ------------------------------------------------------------------

@dataclass
class _Lab:
    arms: list[AgentFactory]  # factory of the focus entry per arm (arm 0 = baseline)
    opponents: list[AgentFactory]
    num_players: int
    board: int
    max_turns: int
    seed: int
    seat_orders: str
    orders_per_deal: int
    position_every: int  # save every k-th auction start of the baseline arm (0: none)


_LAB: _Lab | None = None


def _init_lab(lab: _Lab) -> None:
    global _LAB
    _LAB = lab


def play_deal(lab: _Lab, deal: int) -> dict[str, Any]:
    """Per arm: the focus entry's mean win share, VP and relative luck over the deal's games; saved positions."""
    n = lab.num_players
    seatings = deal_seatings(n, lab.seat_orders, lab.seed, deal, lab.orders_per_deal)
    out: dict[str, Any] = {"deal": deal, "win": [], "vp": [], "margin": [], "luck": [], "field_vp": [], "positions": []}
    for arm, focus in enumerate(lab.arms):
        factories = [focus] + list(lab.opponents)
        win = vp = margin = luck = field_vp = 0.0
        for rotation, seats in enumerate(seatings):
            game = new_game(n, lab.board, lab.max_turns, lab.seed, deal)
            agents = []
            for seat, entry in enumerate(seats):
                agent = factories[entry]()
                agent.reset(game.config, seat, np.random.default_rng([lab.seed, deal, rotation, entry]))
                agents.append(agent)
            meter = LuckMeter(game)
            saver = None
            if arm == 0 and lab.position_every:
                saver = _PositionSaver(meter, lab.position_every, np.random.default_rng([lab.seed, deal, rotation, 99]),
                                       {"deal": deal, "rotation": rotation}, out["positions"])
            play_out(game, agents, meter, on_auction=saver)
            focus_seat = seats.index(0)
            win += win_shares(game)[focus_seat]
            vp += game.scores[focus_seat]
            field_vp += sum(game.scores) / n
            margin += game.scores[focus_seat] - (sum(game.scores) - game.scores[focus_seat]) / (n - 1)
            luck += meter.relative(focus_seat)
        k = len(seatings)
        out["win"].append(win / k)
        out["vp"].append(vp / k)
        out["margin"].append(margin / k)
        out["luck"].append(luck / k)
        out["field_vp"].append(field_vp / k)
    return out


class _PositionSaver:
    """Saves every ``every``-th auction start of a game (its state and a seeded focus seat)."""

    def __init__(self, meter, every, rng, tags, positions):
        self.meter, self.every, self.rng, self.tags, self.positions = meter, every, rng, tags, positions
        self.auctions = 0

    def __call__(self, game):
        if self.auctions % self.every == 0:
            self.positions.append(dict(self.tags, auction=self.auctions, game=self.meter.saved_state(),
                                       focus=int(self.rng.integers(game.n))))
        self.auctions += 1


def _play_deal_in_worker(deal):
    assert _LAB is not None, "fork_pool's initializer (_init_lab) sets it in each worker"
    return play_deal(_LAB, deal)


def _run_deals(lab, deals, workers, progress=None):
    if workers == 1:
        return [play_deal(lab, d) for d in range(deals)]
    with fork_pool(workers, _init_lab, (lab,)) as pool:
        return list(pool.map(_play_deal_in_worker, range(deals), chunksize=chunk_size(deals, workers)))


def compare_many(baseline: AgentSpec, candidates: Iterable[AgentSpec], opponents: Iterable[AgentSpec] | None = None,
                 num_players: int = 4, deals: int = 100, seed: int = 0, board: int = 5, max_turns: int = 300,
                 seat_orders: str = "cyclic", orders_per_deal: int | None = None, workers: int = 1,
                 resamples: int = 10_000,
                 position_every: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Paired comparisons of several candidates against one baseline on the same deals (see the module docstring).

    Returns ``(results, positions)``: one result dict per candidate (as
    :func:`compare`) and the auction positions saved from the baseline arm.
    """
    if num_players not in (2, 3, 4):
        raise ValueError(f"num_players must be 2, 3 or 4, got {num_players!r}")
    if deals < 2:
        raise ValueError(f"deals must be at least 2 (intervals resample deals), got {deals!r}")
    if seat_orders not in SEAT_ORDERS:
        raise ValueError(f"seat_orders must be one of {', '.join(SEAT_ORDERS)}, got {seat_orders!r}")
    opponents = ["heuristic"] * (num_players - 1) if opponents is None else list(opponents)
    if len(opponents) != num_players - 1:
        raise ValueError(f"{num_players} players need {num_players - 1} opponents, got {len(opponents)}")
    orders_per_deal = orders_per_deal_for(num_players, seat_orders, orders_per_deal)
    deal_seatings(num_players, seat_orders, seed, 0, orders_per_deal)  # checks orders_per_deal
    candidates = list(candidates)
    lab = _Lab([make_factory(s) for s in [baseline] + candidates], [make_factory(s) for s in opponents],
               num_players, board, max_turns, seed, seat_orders, orders_per_deal, position_every)
    per_deal = _run_deals(lab, deals, workers)
    symmetric = all(spec_name(o) == spec_name(baseline) for o in opponents)
    settings = {"baseline": spec_name(baseline), "opponents": [spec_name(s) for s in opponents],
                "num_players": num_players, "board": board, "max_turns": max_turns, "seed": seed,
                "seat_orders": seat_orders, "games_per_deal": len(deal_seatings(num_players, seat_orders, seed, 0,
                                                                                   orders_per_deal))}
    results = []
    for arm, candidate in enumerate(candidates, start=1):
        result: dict[str, Any] = {"settings": dict(settings, candidate=spec_name(candidate))}
        for metric in METRICS:
            a = np.array([d[metric][0] for d in per_deal])
            b = np.array([d[metric][arm] for d in per_deal])
            la = np.array([d["luck"][0] for d in per_deal])
            lb = np.array([d["luck"][arm] for d in per_deal])
            field = None
            if symmetric:  # the baseline arm is a field of equals: its seat mean estimates the focus mean
                field = {"win": np.full(deals, 1 / num_players), "margin": np.zeros(deals),
                         "vp": np.array([d["field_vp"][0] for d in per_deal])}[metric]
            result[metric] = _analyse(a, b, la, lb, field, resamples, seed)
        head = result["win"]  # the required top-level fields: the win-rate difference
        result.update({k: head[k] for k in ("deals", "difference", "ci_low", "ci_high", "unpaired_ci_low",
                                            "unpaired_ci_high", "variance_reduction")})
        results.append(result)
    positions = [p for d in per_deal for p in d["positions"]]
    return results, positions


def _analyse(a, b, luck_a, luck_b, field, resamples, seed):
    """Paired and unpaired intervals, and the control-variate corrected versions (see the module docstring)."""
    out = stats.paired_difference(a, b, resamples, seed)
    d = b - a
    var_unpaired = a.var(ddof=1) + b.var(ddof=1)
    ca, _ = stats.control_variate(a, luck_a)
    cb, _ = stats.control_variate(b, luck_b)
    methods = {"paired": _ratio(var_unpaired, d.var(ddof=1)),
               "unpaired_luck_corrected": _ratio(var_unpaired, ca.var(ddof=1) + cb.var(ddof=1))}
    controls = {"luck_corrected": [luck_b - luck_a]}
    if field is not None:
        controls["field_corrected"] = [a - field]
        controls["field_and_luck_corrected"] = [a - field, luck_b - luck_a]
    for name, columns in controls.items():
        corrected, beta = stats.control_variate(d, np.column_stack(columns))
        cv = stats.paired_difference(np.zeros_like(corrected), corrected, resamples, seed)
        out[name] = {"difference": cv["difference"], "ci_low": cv["ci_low"], "ci_high": cv["ci_high"],
                     "beta": beta.round(6).tolist()}
        methods[f"paired_{name}"] = _ratio(var_unpaired, corrected.var(ddof=1))
    out["variance_reduction_by_method"] = methods
    out["per_deal"] = {"baseline": a.round(6).tolist(), "candidate": b.round(6).tolist()}
    return out


def _ratio(num, den):
    """num / den, None when den vanishes (beyond rounding: no variance left to compare)."""
    return float(num / den) if den > 1e-9 * max(num, 1e-300) else None


def compare(baseline: AgentSpec, candidate: AgentSpec, **kwargs: Any) -> dict[str, Any]:
    """One paired comparison; a dict with ``deals``, ``difference``, ``ci_low``, ``ci_high``,
    ``unpaired_ci_low``, ``unpaired_ci_high``, ``variance_reduction`` (win share of the focus entry),
    the same and more under ``"win"``, ``"vp"`` and ``"margin"`` (VP minus the mean VP of the
    other seats), and ``"settings"``. Keywords as :func:`compare_many`."""
    results, _ = compare_many(baseline, [candidate], **kwargs)
    return results[0]


# ---- auction-level analysis ----------------------------------------------------------------

class ScaledBidding(BiddingStrategy):
    """Value bidding with the limit scaled: ``scale`` times the worth (0: always pass)."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.name = "pass" if scale == 0 else f"value x{scale:g}"

    def limit(self, situation: AuctionSituation, worth: float) -> float:
        return self.scale * worth


ALTERNATIVE_BIDS = (0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def replay_position(position: Mapping[str, Any], bidding: BiddingStrategy | str, seed: int, index: int,
                    rest: AgentSpec = "heuristic") -> tuple[int, float]:
    """Focus VP and win share when the focus seat bids with ``bidding`` in this auction (rest: fixed agents)."""
    game = Game.from_dict(position["game"])
    focus = position["focus"]
    factory = make_factory(rest)
    agents = []
    for seat in range(game.n):
        agent = factory()
        agent.reset(game.config, seat, np.random.default_rng([seed, index, seat]))
        agents.append(agent)
    bidder = HeuristicAgent(bidding=bidding)
    bidder.reset(game.config, focus, np.random.default_rng([seed, index, focus]))
    play_out(game, agents, bidder=(focus, bidder))
    return game.scores[focus], win_shares(game)[focus]


def _replay_all(args):
    position, index, strategies, alternatives, seed = args
    vp = {}
    win = {}
    for name, strategy in strategies.items():
        vp[name], win[name] = replay_position(position, strategy, seed, index)
    for scale in alternatives:
        if scale == 1.0 and "value" in vp:
            continue  # the same bids as value bidding
        s = ScaledBidding(scale)
        vp[s.name], win[s.name] = replay_position(position, s, seed, index)
    return {"deal": position["deal"], "rotation": position["rotation"], "vp": vp, "win": win}


def auction_effects(positions: Sequence[Mapping[str, Any]],
                    strategies: Iterable[str | BiddingStrategy] = tuple(BIDDING_STRATEGIES),
                    alternatives: Iterable[float] = ALTERNATIVE_BIDS, seed: int = 0, workers: int = 1,
                    resamples: int = 10_000) -> dict[str, Any]:
    """Per-auction effects and bid regrets of ``strategies`` on saved ``positions`` (see the module docstring).

    ``strategies``: names from ``BIDDING_STRATEGIES`` or ``BiddingStrategy``
    instances; ``value`` is added as the reference if missing.
    """
    chosen: dict[str, BiddingStrategy] = {"value": BIDDING_STRATEGIES["value"]()}
    for s in strategies:
        strategy = BIDDING_STRATEGIES[s]() if isinstance(s, str) else s
        chosen[strategy.name] = strategy
    strategies = chosen
    jobs = [(p, i, strategies, tuple(alternatives), seed) for i, p in enumerate(positions)]
    if workers == 1:
        replays = [_replay_all(job) for job in jobs]
    else:
        with fork_pool(workers) as pool:
            replays = list(pool.map(_replay_all, jobs, chunksize=chunk_size(len(jobs), workers)))
    deals = np.array([r["deal"] for r in replays])
    bids = [name for name in replays[0]["vp"] if name not in strategies or name == "value"]
    table = {}
    for name in strategies:
        vp = np.array([r["vp"][name] for r in replays], float)
        base = np.array([r["vp"]["value"] for r in replays], float)
        best = np.array([max(r["vp"][b] for b in bids + [name]) for r in replays], float)
        effect = stats.cluster_bootstrap_mean(vp - base, deals, resamples, seed)
        regret = stats.cluster_bootstrap_mean(best - vp, deals, resamples, seed)
        var_d = (vp - base).var(ddof=1)
        table[name] = {
            "effect_vp": effect[0], "effect_ci_low": effect[1], "effect_ci_high": effect[2],
            "regret_vp": regret[0], "regret_ci_low": regret[1], "regret_ci_high": regret[2],
            "changed": float(np.mean(vp != base)),
            "variance_reduction": _ratio(vp.var(ddof=1) + base.var(ddof=1), var_d),
        }
    return {"positions": len(replays), "source_games": len({(r["deal"], r["rotation"]) for r in replays}),
            "source_deals": len(set(deals.tolist())), "bids": bids, "strategies": table}


# ---- console -----------------------------------------------------------------------------

def format_comparison(result: Mapping[str, Any]) -> str:
    """A ``compare`` result as the text ``fifthave bidlab compare`` prints."""
    lines = []
    s = result["settings"]
    lines.append(f"{s['candidate']} vs {s['baseline']} (focus entry; opponents {', '.join(s['opponents'])}), "
                 f"{s['num_players']} players, {result['deals']} deals x {s['games_per_deal']} seat orders "
                 f"({s['seat_orders']}), seed {s['seed']}")
    for metric, label in (("win", "win share"), ("vp", "VP"), ("margin", "VP margin over the others' mean")):
        r = result[metric]
        lines.append(f"  {label}: candidate {r['candidate']:.3f}, baseline {r['baseline']:.3f}")
        lines.append(f"    difference {r['difference']:+.3f}  paired 95% CI [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
                     f"  unpaired [{r['unpaired_ci_low']:+.3f}, {r['unpaired_ci_high']:+.3f}]")
        for name in ("luck_corrected", "field_corrected", "field_and_luck_corrected"):
            if name in r:
                c = r[name]
                lines.append(f"    {name.replace('_', ' ')}: {c['difference']:+.3f} "
                             f"[{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]")
        factors = ", ".join(f"{k.replace('_', ' ')} {_fmt(v)}" for k, v in r["variance_reduction_by_method"].items())
        lines.append(f"    variance reduction vs unpaired: {factors}")
    return "\n".join(lines)


def _fmt(x):
    return "n/a" if x is None else f"{x:.2f}x"


def write_json(path: str | os.PathLike[str], data: Any) -> None:
    """Write ``data`` to ``path`` as indented JSON, atomically (``fifthave_env.runtime.atomic_write_text``)."""
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
