"""The one game loop: seated agents play a game to its end, and hooks see every decision.

Every place that plays whole games between agents plays them here: the tournament
(``fifthave.agents.tournament``), recorded games (``replay.record_game``), the bidding lab
(``fifthave.agents.bidlab``), behaviour cloning's teacher games (``fifthave.train.bc``) and the
labelled games of candidate values (``fifthave.train.candidate_values``)::

    game = Game(config, rng=np.random.default_rng(seed))
    for seat, agent in enumerate(agents):
        agent.reset(config, seat, np.random.default_rng([seed, seat]))
    play(game, agents, hooks=[MyStatistics()])

The caller makes the game and resets the agents (each caller seeds them its own way, and a
seeded result must not change); ``play`` gives each searching agent its seat's sampler,
asks the agent at ``game.actor`` for its action in the way the agent protocol says
(``agent_protocol.act``: a seat view, or the observation in the layout the agent reads, and
the action mask), applies it, and calls the hooks. Each agent sees only what its seat knows.

An agent's answer must be an action id (``engine.actions.as_action_id``: an int, a numpy
integer; 3.9 is refused, not played as 3) of a legal action; otherwise ``play`` raises the
engine's own error (``IllegalActionError`` names the decision and the legal actions) and the
game is left as it was before that decision, so the caller can say which seat failed where
(``game.actor``, ``game.decision``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .agent_protocol import LayoutObservations, act, give_sampler, reads_view
from .engine.actions import as_action_id
from .engine.game import GAME_OVER, Game
from .observation import Observer
from .seat_view import StateView

__all__ = ["Decision", "GameHooks", "play"]


@dataclass(slots=True)
class Decision:
    """One decision of a game ``play`` runs, as the hooks see it."""

    game: Game
    seat: int
    """The seat that decides (``game.actor`` before the action)."""
    agent: Any
    """The agent that chose ``action`` (the seated one unless ``GameHooks.choose_agent`` named another)."""
    action: int
    """The action id the agent chose (``GameHooks.decided`` may have the game play another)."""
    kind: int
    """``game.decision`` before the action (``engine.game.BID_DECISION``, ...)."""
    index: int
    """How many decisions ``play`` ran before this one."""
    act_seconds: float
    """The time the agent took to choose (timing only: not reproducible)."""


class GameHooks:
    """What a caller of ``play`` does around each decision; override the methods you need (the defaults do nothing).

    The order at each decision: ``choose_agent`` (the game as it is), the agent chooses, ``decided``
    (the game still before the action), the game applies the action, ``applied`` (the game after it);
    ``finished`` once when the game is over."""

    def choose_agent(self, game: Game, seat: int, agent: Any) -> Any:
        """The agent that decides for ``seat`` now: ``agent``, the seated one, unless you return another."""
        return agent

    def decided(self, decision: Decision) -> int | None:
        """Called before the chosen action is applied; return an action id to play instead (e.g. DAgger's
        learner overrides its teacher's label), or None to play ``decision.action``."""
        return None

    def applied(self, decision: Decision) -> None:
        """Called after the game applied the action (``decision.action``, the one played)."""

    def finished(self, game: Game) -> None:
        """Called once when the game is over."""


def _overrides(hooks: Sequence[GameHooks], method: str) -> list:
    """The bound ``method`` of each hook that overrides it (the hooks that do nothing there cost nothing)."""
    return [getattr(hook, method) for hook in hooks if getattr(type(hook), method) is not getattr(GameHooks, method)]


def play(game: Game, agents: Sequence[Any], hooks: Sequence[GameHooks] = (),
         observers: dict[int, Observer] | None = None) -> Game:
    """Play ``game`` to its end with ``agents[seat]`` at each seat; returns ``game``.

    ``agents``: one reset agent per seat (``fifthave.agents.base`` protocol). ``hooks``: ``GameHooks``,
    called in the order given. ``observers``: layout -> ``Observer`` of this game's config, shared by
    a caller that plays game after game (each layout's observer is then built once). Raises what the
    agent raises, or the engine's error for an answer that is not a legal action id, the game left
    before that decision."""
    if len(agents) != game.n:
        raise ValueError(f"need one agent per seat: {game.n} for this game, got {len(agents)}")
    seated = dict(enumerate(agents))
    for seat, agent in seated.items():
        give_sampler(agent, game, seat)
    observations = LayoutObservations(game.config, seated, env_layout=None, observers=observers)
    choosers, deciders, appliers = (_overrides(hooks, m) for m in ("choose_agent", "decided", "applied"))
    # The seated agents that read a seat view are called here directly (agent_protocol.act's first
    # branch): a runner's own work per decision is a sizeable part of a scripted agent's (issue 36).
    view_readers = [agent.act_view if reads_view(agent) else None for agent in agents]
    clock = time.perf_counter
    index = 0
    while game.decision != GAME_OVER:
        seat = game.actor
        agent = agents[seat]
        for choose in choosers:
            agent = choose(game, seat, agent)
        kind = game.decision
        act_view, observing = view_readers[seat], observations
        if agent is not agents[seat]:  # a hook's agent, maybe of another layout: the same observers
            act_view = None
            observing = LayoutObservations(game.config, {seat: agent}, env_layout=None,
                                           observers=observations.observers)
        start = clock()
        action = act_view(StateView(game, seat)) if act_view is not None else act(agent, game, seat, observing)
        seconds = clock() - start
        if action.__class__ is not int:  # a plain int goes straight to the game, which checks its range
            action = as_action_id(action)
        decision = Decision(game, seat, agent, action, kind, index, seconds)
        for decide in deciders:
            override = decide(decision)
            if override is not None:
                decision.action = override if override.__class__ is int else as_action_id(override)
        game.apply(decision.action)
        for applied in appliers:
            applied(decision)
        index += 1
    for hook in hooks:
        hook.finished(game)
    return game

