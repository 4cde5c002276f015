"""SearchAgent: determinized Monte Carlo search with heuristic rollouts (names ``search``, ``search:N``).

How it decides, per decision of its seat:

1. Forced moves (one legal action), the steps of a bid it already chose, starting
   skyscrapers and shop plots are played at once (the last two by the
   :class:`HeuristicAgent`, whose choice is good there and whose candidates are many).
2. Otherwise it lists *candidates*: the legal actions, or in an auction whole bids
   (macro-actions: pass; the HeuristicAgent's bid; the cheapest raise over the
   high bid for every colour it may bid and every building limit 1..3; each a
   list of card additions plus confirm). It acts through the action ids: a
   chosen bid is laid card by card over the next calls.
3. It draws ``samples`` *determinizations* - full games consistent with what its
   seat knows (:func:`fifthave_env.engine.determinize`) - and plays every candidate
   in every sample (common random numbers: the candidates are compared on the same
   hidden cards and the same rollout draws), then ``depth`` turns of *rollout*
   with the rollout policy for every seat, and scores the position with the
   *evaluator*. ``rollouts`` is the budget: samples = rollouts // candidates (at least 1).
4. It plays the candidate with the best mean value; the HeuristicAgent's own choice
   wins ties and keeps a small bonus (``prior``), so that noise alone does not
   make it deviate.

This is Perfect-Information Monte Carlo over determinizations, i.e. single-observer
IS-MCTS (Cowling, Powley and Whitehouse 2012) with a one-level tree and a
fixed, equal allocation of iterations (no UCB: with a few dozen rollouts,
paired comparisons on common samples beat bandit allocation).

Pluggable parts:

* ``rollout``: ``"heuristic"`` (default), ``"greedy"``, ``"random"``, or any agent
  factory (a zero-argument callable returning an :mod:`fifthave.agents.base` agent, e.g.
  ``fifthave.agents.learned.AgentFileFactory(path)`` for a trained network);
* ``evaluator``: a callable ``(game, seat) -> value in [0, 1]``; the default,
  :func:`projected_value`, is a logistic of the projected final-score margin
  (score + every open district scored now + Central Park at its expected value);
  terminal positions score 1 for a win (shared wins split), 0 otherwise. A value
  network plugs in here (see ``docs/search.md``).

What it sees: only its seat's information. The agent protocol gives it the
observation and mask; the search needs full games, which it gets from a *sampler*
the game runner attaches (``attach_sampler``; ``fifthave.agents.base.give_sampler`` does it in the
tournament, the terminal game, the Gymnasium and the RLlib env): a :class:`fifthave_env.engine.determinize.SeatSampler` that returns
``determinize(game, seat, rng)``, whose output depends only on what the seat knows
(tests/engine/test_determinize.py, tests/agents/test_search.py). Without a sampler it plays as
the HeuristicAgent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from fifthave_env.engine import checks
from fifthave_env.engine.actions import BID_ADD, BID_CONFIRM, BID_PASS
from fifthave_env.engine import game as G
from fifthave_env.engine.board import NUM_DISTRICTS
from fifthave_env.engine.cards import BLACK, NUM_COLORS
from fifthave_env.engine.determinize import SeatSampler
from fifthave_env.engine.scoring import district_scores
from fifthave_env.agent_protocol import LayoutObservations, act, observation_layout, reads_view
from fifthave_env.observation import Observer
from fifthave_env.random_agent import RandomAgent

from .base import AgentFactory
from .bidding import cheapest_raise
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .view import SeatView, StateView

DEFAULT_ROLLOUTS = 48  # 0.678 [0.648, 0.707] against three heuristics at ~23 ms a decision (results/search)
DEFAULT_DEPTH = 2
DEFAULT_PRIOR = 0.02  # the heuristic's choice's bonus: against three search:32:2 it wins 0.268 with it, 0.205 without
MAX_ROLLOUTS = 4096  # rollouts per decision: search:32 takes ~0.1 s a decision, so 4096 takes ~15 s
MAX_DEPTH = 300  # turns per rollout: no game lasts longer (max_turns, R29)
CENTRAL_PARK_VP = 3.0  # expected VP of a Central Park skyscraper (R27: 2, 3 or 5 by types drawn)
MARGIN_SCALE = 6.0  # VP of projected margin that moves the value from 0.5 to ~0.73
MAX_EXPONENT = 50.0  # the logistic is 0 or 1 to double precision beyond it, and math.exp overflows past ~709
ROLLOUT_POLICIES = {"heuristic": HeuristicAgent, "greedy": GreedyAgent, "random": RandomAgent}
DECISION_GROUPS = {  # the kinds of decision, as the search's experiments group them
    "bid": (G.BID_DECISION,),
    "board": (G.SHOP_TILE_DECISION, G.BUILD_DECISION, G.DRAW_COLOR_DECISION, G.SCORE_DISTRICT_DECISION),
    "choose": (G.CHOOSE_ACTION_DECISION,),
    "move": (G.MOVE_DECISION,),
}


def decision_kinds(groups: Iterable[str]) -> frozenset[int]:
    """The decision kinds of the named ``DECISION_GROUPS`` (``ValueError`` on an unknown name)."""
    unknown = [g for g in groups if g not in DECISION_GROUPS]
    if unknown:
        raise ValueError(f"unknown decision groups {unknown}; choose from {sorted(DECISION_GROUPS)}")
    return frozenset(k for g in groups for k in DECISION_GROUPS[g])


def projected_scores(g: G.Game) -> list[float]:
    """Each seat's score if the game ended now: open districts scored, Central Park at its mean."""
    projected = [float(s) for s in g.scores]
    for d in range(NUM_DISTRICTS):
        if not g.closed[d]:
            for p, vp in enumerate(district_scores(g, d)):
                projected[p] += vp
    for p in range(g.n):
        projected[p] += CENTRAL_PARK_VP * g.cp_skyscrapers[p]
    return projected


def projected_value(g: G.Game, seat: int, projected: list[float] | None = None) -> float:
    """A value in [0, 1] for ``seat``: the win share at the end, else a logistic of its projected margin
    (``projected``: ``projected_scores(g)`` if the caller has it already)."""
    if g.is_over:
        return 1.0 / len(g.winners) if seat in g.winners else 0.0
    if projected is None:
        projected = projected_scores(g)
    best_other = max(projected[q] for q in range(g.n) if q != seat)
    margin = (projected[seat] - best_other) / MARGIN_SCALE
    return 1.0 / (1.0 + math.exp(-max(-MAX_EXPONENT, min(MAX_EXPONENT, margin))))


class Rollout:
    """Plays ``depth`` turns (all seats) with one agent per seat made by ``factory`` (or by ``factory[seat]``:
    a list of one factory per seat, e.g. the agents seated in the game searched).

    Agents that read a seat view (``reads_view``, the scripted ones) get a ``StateView`` of the
    rollout's game: no observation is built; the others get their observation."""

    def __init__(self, factory: AgentFactory | list[AgentFactory], config: G.GameConfig) -> None:
        self.config = config
        factories = factory if isinstance(factory, list) else [factory] * config.num_players
        if len(factories) != config.num_players:
            raise ValueError(f"a rollout needs one agent factory per seat ({config.num_players}), got "
                             f"{len(factories)}")
        self.agents: list[Any] = [make() for make in factories]
        for agent in self.agents:
            if isinstance(agent, HeuristicAgent):
                agent.share_plans = True  # the same auctions recur across samples and candidates
        first = self.agents[0]
        # agents of several kinds, not all reading views, act seat by seat as runners seat them (_run_mixed)
        self.mixed = (not all(reads_view(agent) for agent in self.agents)
                      and any(type(agent) is not type(first) for agent in self.agents))
        self.observations = (LayoutObservations(config, dict(enumerate(self.agents)), env_layout=None)
                             if self.mixed else None)
        self.views = reads_view(first)
        self.observer = None if self.views else Observer(config, version=observation_layout(first))
        self.uniform = not self.mixed and isinstance(first, RandomAgent)  # needs no observation
        # agents that read determinizations of their seat's view (a candidate-value network with effect features)
        self.sampled = [seat for seat, agent in enumerate(self.agents) if getattr(agent, "needs_sampler", False)]
        self._rng = np.random.default_rng(0)
        self._seed: int | None = None
        self._start: Any = None  # the generator's state at self._seed

    def _generator(self, seed: int) -> np.random.Generator:
        """``np.random.default_rng(seed)``, one generator reset to the seed's state: the candidates of a
        sample roll out from the same seed, and a state costs a tenth of a new generator."""
        if seed != self._seed:
            self._seed, self._start = seed, np.random.PCG64(seed).state
        rng = self._rng
        rng.bit_generator.state = self._start
        return rng

    def run(self, g: G.Game, depth: int, seed: int, max_decisions: int = 400) -> None:
        rng = self._generator(seed)
        stop = g.turn + depth
        if self.uniform:
            for _ in range(max_decisions):
                if g.is_over or g.turn >= stop:
                    return
                legal = g.legal_actions()
                g.apply(legal[rng.integers(len(legal))])
            return
        for seat, agent in enumerate(self.agents):
            agent.reset(self.config, seat, rng)
        for seat in self.sampled:
            self.agents[seat].attach_sampler(SeatSampler(g, seat))
        agents, observer = self.agents, self.observer
        if self.mixed:
            self._run_mixed(g, stop, max_decisions)
            return
        for _ in range(max_decisions):
            if g.is_over or g.turn >= stop:
                return
            seat = g.actor
            if observer is None:  # agents that read a seat view
                action = agents[seat].act_view(StateView(g, seat))
            else:
                action = agents[seat].act(observer.observe(g, seat), g.action_mask())
            g.apply(int(action))

    def _run_mixed(self, g: G.Game, stop: int, max_decisions: int) -> None:
        """``run`` with agents of several kinds: each acts from what it reads (``fifthave_env.agent_protocol``)."""
        observations = self.observations
        assert observations is not None
        for _ in range(max_decisions):
            if g.is_over or g.turn >= stop:
                return
            seat = g.actor
            g.apply(int(act(self.agents[seat], g, seat, observations)))


class SearchAgent:
    """Determinized Monte Carlo search over whole bids and turn choices (see the module docstring)."""

    reads_view = True  # runners that hold the game call act_view (agent_protocol.reads_view)

    def __init__(self, rollouts: int = DEFAULT_ROLLOUTS, depth: int = DEFAULT_DEPTH,
                 rollout: str | AgentFactory = "heuristic",
                 evaluator: Callable[[G.Game, int], float] = projected_value, prior: float = DEFAULT_PRIOR,
                 name: str | None = None, samples: int | None = None, groups: Iterable[str] | None = None) -> None:
        rollouts = checks.integer("rollouts", rollouts, 1, MAX_ROLLOUTS)
        depth = checks.integer("depth", depth, 0, MAX_DEPTH)
        if samples is not None:
            samples = checks.integer("samples", samples, 1, MAX_ROLLOUTS)
        if isinstance(rollout, str):
            if rollout not in ROLLOUT_POLICIES:
                raise ValueError(f"unknown rollout policy {rollout!r}; choose from {', '.join(ROLLOUT_POLICIES)} "
                                 "or pass an agent factory")
            rollout = ROLLOUT_POLICIES[rollout]
        self.rollouts = rollouts
        self.samples = samples
        self.depth = depth
        self.rollout_factory = rollout
        self.evaluator = evaluator
        self.prior = prior
        self.name = name or f"search:{rollouts}"
        self.decisions = decision_kinds(groups if groups is not None else DECISION_GROUPS)  # the ones searched
        self.sampler: Callable[[np.random.Generator], G.Game] | None = None
        self.searched = 0  # decisions that ran a search (for timing reports)
        # (candidates, mean values, the heuristic's candidate) of the latest search
        self.last_search: tuple[list[tuple[int, ...]], np.ndarray, tuple[int, ...]] | None = None
        self.explanation: dict[str, Any] | None = None  # what explain() reports about the latest act

    def attach_sampler(self, sampler: Callable[[np.random.Generator], G.Game]) -> None:
        """``sampler(rng)`` returns a determinization of the current game for this seat."""
        self.sampler = sampler

    def reset(self, config: G.GameConfig, seat: int, rng: np.random.Generator) -> None:
        self.config = config
        self.seat = seat
        self.rng = rng
        self._advised_by_heuristic()
        self.rollout = Rollout(self.rollout_factory, config)
        self.plan: list[int] = []

    def _advised_by_heuristic(self) -> None:
        """Build ``default``, the HeuristicAgent whose choices this seat's candidates include (after ``config``,
        ``seat`` and ``rng`` are set)."""
        self.default = HeuristicAgent(share_plans=True)  # its bid plans and the rollouts' of this seat alike
        self.default.reset(self.config, self.seat, np.random.default_rng(self.rng.integers(1 << 63)))

    def _heuristic_choice(self, view: SeatView | StateView) -> tuple[int, ...]:
        """The HeuristicAgent's choice at ``view``'s decision, as a candidate (a whole bid in an auction)."""
        if view.decision == G.BID_DECISION:
            return self._heuristic_bid(view)
        return (self.default.act_view(view),)

    def drop_plan(self) -> None:
        """Forget the rest of a bid chosen earlier (the seat played something else)."""
        self.plan = []

    def explain(self) -> dict[str, Any] | None:
        """What the latest ``act`` weighed (agent protocol): the candidates it valued, or None when it
        valued none (a single legal move, the heuristic's choice, the rest of a bid chosen earlier)."""
        return self.explanation

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.act_view(SeatView(observation, action_mask, self.config))

    def act_view(self, view: SeatView | StateView) -> int:
        """The action for a seat view (a ``StateView`` from a runner, or the ``SeatView`` ``act`` builds)."""
        self.explanation = None
        while self.plan:  # the rest of a bid chosen earlier this bidding turn
            action = self.plan.pop(0)
            if view.is_legal(action):
                return action
            self.plan = []  # cannot happen with a correct plan; decide afresh
        legal = view.legal
        if not legal:
            raise ValueError(f"{self.name} was asked to act with no legal action (all-zero action mask)")
        decision = view.decision
        searched = decision in self.decisions
        if decision == G.BID_DECISION:
            if not searched:
                return self.default.act_view(view)
            candidates, default = self._bid_candidates(view)
        elif len(legal) == 1:
            return legal[0]
        else:
            default = self._heuristic_choice(view)
            if not searched:
                return default[0]
            candidates = [(a,) for a in legal]
        chosen = self._choose(view, candidates, default) if len(candidates) > 1 else default
        self.plan = list(chosen[1:])
        return chosen[0]

    def _choose(self, view, candidates, default):
        """The candidate to play (a macro); the search's, or the heuristic's without a sampler."""
        return self._search(candidates, default) if self.sampler is not None else default

    # ---- candidates ----------------------------------------------------------------------

    def _bid_candidates(self, view):
        """Whole bids for this bidding turn: (list of macros, the heuristic's macro)."""
        default = self._heuristic_bid(view)
        candidates = [default, (BID_PASS,)]
        hand, table = view.hand, view.my_table_cards
        need = view.high_bid + 1 - sum(table[k] * (4 + k % 3) for k in range(len(table)))
        if view.my_bid_color >= 0:
            colors = [view.my_bid_color]
        else:
            colors = view.allowed_colors
            if view.central_park_color >= 0:
                colors = [view.central_park_color]
        for color in colors:
            for min_limit in (1, 2, 3):
                kinds = cheapest_raise(hand, table, [color], need, min_limit)
                if kinds is not None:
                    candidates.append(self._bid_macro(kinds))
        unique = list(dict.fromkeys(candidates))
        return [m for m in unique if view.is_legal(m[0])], default

    def _heuristic_bid(self, view):
        """The HeuristicAgent's whole bid for this bidding turn, as a macro."""
        self.default._pending = None
        planned = self.default._plan_bid(view)
        self.default._pending = None
        return self._bid_macro(planned)

    @staticmethod
    def _bid_macro(kinds):
        if kinds is None:
            return (BID_PASS,)
        colored_first = sorted(kinds, key=lambda k: k // 3 == BLACK)  # the opening card must be colored
        return tuple(BID_ADD + k for k in colored_first) + (BID_CONFIRM,)

    # ---- the search ----------------------------------------------------------------------

    def _search(self, candidates, default):
        assert self.sampler is not None, "_choose searches only with a sampler"
        self.searched += 1
        samples = self.samples or max(1, self.rollouts // len(candidates))
        totals = np.zeros(len(candidates))
        for _ in range(samples):
            root = self.sampler(self.rng)
            seed = int(self.rng.integers(1 << 63))
            rng = None
            for i, macro in enumerate(candidates):
                g = root.clone(rng) if i < len(candidates) - 1 else root
                rng = g.rng  # the next copy reuses this one's generator (Game.clone): this one is done by then
                for action in macro:
                    g.apply(action)
                self.rollout.run(g, self.depth, seed)
                totals[i] += self.evaluator(g, self.seat)
        values = totals / samples
        self.last_search = (candidates, values.copy(), default)
        self.explanation = {"kind": "search", "samples": samples, "default": list(default),
                            "value": "mean value (0-1: win share, or projected margin) after the rollouts",
                            "candidates": [{"actions": list(m), "value": round(float(v), 3)}
                                           for m, v in zip(candidates, values)]}
        if default in candidates:
            values[candidates.index(default)] += self.prior
        return candidates[int(values.argmax())]


def search_factory(name: str, agent_factory: Callable[[str], AgentFactory] | None = None) -> AgentFactory:
    """``search`` or ``search:ROLLOUTS[:DEPTH[:ROLLOUT_POLICY]]`` as a picklable agent factory. With
    ``agent_factory`` (``fifthave.agents.tournament.agent_factory``), ROLLOUT_POLICY may also be any agent name it takes
    (an agent file's path, ``PATH:greedy``, a committed model): the rollouts play that agent."""
    import functools

    parts = name.split(":")
    if parts[0] != "search" or (len(parts) > 4 and agent_factory is None):
        raise ValueError(f"a search agent is named search[:ROLLOUTS[:DEPTH[:POLICY]]], got {name!r}")
    try:
        rollouts = int(parts[1]) if len(parts) > 1 else DEFAULT_ROLLOUTS
        depth = int(parts[2]) if len(parts) > 2 else DEFAULT_DEPTH
    except ValueError:
        raise ValueError(f"ROLLOUTS and DEPTH must be integers in {name!r} (ROLLOUTS from 1 to {MAX_ROLLOUTS}, "
                         f"DEPTH from 0 to {MAX_DEPTH})") from None
    rollouts = checks.integer(f"ROLLOUTS of {name!r}", rollouts, 1, MAX_ROLLOUTS)  # here: before any game
    depth = checks.integer(f"DEPTH of {name!r}", depth, 0, MAX_DEPTH)
    rollout = ":".join(parts[3:]) if len(parts) > 3 else "heuristic"
    if rollout not in ROLLOUT_POLICIES:
        if agent_factory is None:
            raise ValueError(f"unknown rollout policy {rollout!r} in {name!r}; choose from "
                             f"{', '.join(ROLLOUT_POLICIES)}")
        rollout = agent_factory(rollout)
    return functools.partial(SearchAgent, rollouts=rollouts, depth=depth, rollout=rollout, name=name)
