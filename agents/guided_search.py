"""The search agent guided by the self-play network: expert iteration's expert, improving with its apprentice.

``GuidedSearchAgent`` is ``fifthave.agents.search.SearchAgent`` (the same candidates, determinizations and rollouts)
with a network in two places: an action-value network (``fifthave.agents.learned.ActionValueAgent``, trained by
``fifthave.train.generations``) or a candidate-value network (``fifthave.agents.learned.CandidateValueAgent``, trained
by ``fifthave.train.candidate_values``; its values are value differences in the search's own units).

* **prior**: each candidate's mean rollout value gets ``prior_weight`` times the network's value of it (an
  action-value network: of its first action) minus the best candidate's (0 for the network's favourite), so
  that between candidates the samples cannot separate, the network's choice wins;
* **rollout policy** (``network_rollouts``): every seat of the rollouts is played by the network instead of the
  HeuristicAgent (AlphaZero-style guidance of the simulations; cheaper per step than the heuristic).

The evaluator stays ``fifthave.agents.search.projected_value``: the network values actions, not positions of any
seat. Built in Python (no agent name yet)::

    from fifthave.agents.guided_search import guided_factory
    factory = guided_factory("results/generations/4p/agent.npz", rollouts=16, depth=1, prior_weight=0.5)

``python -m fifthave.agents.guided_search AGENT_FILE --games 100`` plays it against three HeuristicAgents and prints
its win rate and CPU per decision (``results/generations/README.md`` gives the measured figures).
"""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fifthave_env.engine.game import Game, GameConfig

from .base import AgentFactory
from .search import DEFAULT_DEPTH, SearchAgent


class GuidedSearchAgent(SearchAgent):
    """``SearchAgent`` with an action-value network as prior and, optionally, rollout policy (module docstring)."""

    reads_view = False  # the prior reads the seat's observation: runners call ``act``

    def __init__(self, network_factory: AgentFactory, rollouts: int = 16, depth: int = DEFAULT_DEPTH,
                 prior_weight: float = 0.5, network_rollouts: bool = False, name: str | None = None) -> None:
        super().__init__(rollouts=rollouts, depth=depth, rollout=network_factory if network_rollouts else "heuristic",
                         name=name or f"guided:{rollouts}:{depth}")
        network: Any = network_factory()  # an action-value or a candidate-value agent: checked below
        self.network = network
        self.candidate_network = hasattr(network, "candidate_values")
        if not self.candidate_network and not (hasattr(network, "net") and hasattr(network.net, "logits")):
            raise TypeError(f"the guiding network must be an action-value or a candidate-value agent, got "
                            f"{type(network).__name__}")
        if not 0 <= prior_weight <= 100:
            raise ValueError(f"prior_weight must be from 0 to 100, got {prior_weight!r}")
        self.observation_layout = network.observation_layout
        self.prior_weight = prior_weight
        self._observation: np.ndarray | None = None

    def reset(self, config: GameConfig, seat: int, rng: np.random.Generator) -> None:
        self.network.reset(config, seat, np.random.default_rng(rng.integers(1 << 63)))  # refuses another game
        super().reset(config, seat, rng)

    def attach_sampler(self, sampler: Callable[[np.random.Generator], Game]) -> None:
        super().attach_sampler(sampler)
        if getattr(self.network, "needs_sampler", False):  # a candidate-value network with effect features
            self.network.attach_sampler(sampler)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self._observation = observation
        return super().act(observation, action_mask)

    def _choose(self, view, candidates, default):
        if self.candidate_network:  # the network values these very candidates (no heuristic's one for it)
            values = self.network.candidate_values(self._observation, view, candidates, ())
            bonus = self.prior_weight * values.astype(np.float64)
        else:
            values = self.network.net.logits(self._observation)
            bonus = self.prior_weight * np.array([values[macro[0]] for macro in candidates], dtype=np.float64)
        bonus -= bonus.max()
        if self.sampler is None:
            return candidates[int(bonus.argmax())]
        super()._search(candidates, default)  # sets last_search: the candidates' mean values
        assert self.last_search is not None
        searched = self.last_search[1] + bonus
        if default in candidates:
            searched[candidates.index(default)] += self.prior
        return candidates[int(searched.argmax())]


def guided_factory(path: str | os.PathLike[str], rollouts: int = 16, depth: int = 1, prior_weight: float = 0.5,
                   network_rollouts: bool = False) -> functools.partial[GuidedSearchAgent]:
    """A picklable factory of ``GuidedSearchAgent`` guided by the action-value or candidate-value agent file at
    ``path``."""
    from .learned import AgentFileFactory

    network = AgentFileFactory(path, kinds=("action-values", "candidate-values"))
    return functools.partial(GuidedSearchAgent, network, rollouts=rollouts, depth=depth, prior_weight=prior_weight,
                             network_rollouts=network_rollouts)


def main(argv: Sequence[str] | None = None) -> None:
    from .tournament import agent_factory, run_tournament

    parser = argparse.ArgumentParser(description="Play the network-guided search against three agents.")
    parser.add_argument("path", help="an action-value (fifthave.train.generations) or candidate-value "
                        "(fifthave.train.candidate_values) agent file")
    parser.add_argument("--rollouts", type=int, default=16)
    parser.add_argument("--depth", type=int, default=1)
    parser.add_argument("--prior-weight", type=float, default=0.5)
    parser.add_argument("--network-rollouts", action="store_true")
    parser.add_argument("--opponents", default="heuristic")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", help="also save the tournament (OUT.json with every game, OUT.csv, OUT.png), e.g. "
                        "to compare two weights on the same deals with scripts/paired_by_deal.py")
    args = parser.parse_args(argv)
    factory = guided_factory(args.path, args.rollouts, args.depth, args.prior_weight, args.network_rollouts)
    meta = factory.args[0].meta()
    lineup = [("guided", factory)] + [(args.opponents, agent_factory(args.opponents))] * (meta["num_players"] - 1)
    result = run_tournament(lineup, num_players=meta["num_players"], board=meta["board"], games=args.games,
                            seed=args.seed, workers=args.workers)
    row = result.row("guided")
    print(f"guided search ({args.rollouts} rollouts, depth {args.depth}, prior weight {args.prior_weight}, "
          f"network rollouts {args.network_rollouts}) vs {args.opponents}: win rate {row['win_rate']:.3f} "
          f"[{row['win_ci_low']:.3f}, {row['win_ci_high']:.3f}] over {args.games} games, "
          f"{result.act_ms()['guided']:.1f} ms per decision")
    if args.out:
        result.save(args.out)


if __name__ == "__main__":
    main()
