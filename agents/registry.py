"""The scripted agents by name (``random``, ``greedy``, ``heuristic``, ``heuristic-<strategy>``).

Kept apart from ``agents.tournament`` so that training configs can check names without importing the
tournament (which itself loads ``policy:`` and ``rllib:`` checkpoints from ``train``).
"""

import functools

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
