"""Scripted agents for Fifth Avenue (see ``agents.base`` for the protocol).

- ``RandomAgent`` (``agents.base``): uniform over the legal actions.
- ``GreedyAgent`` (``agents.greedy``): the best immediate VP gain, else a simple default.
- ``HeuristicAgent`` (``agents.heuristic``): the rulebook's tips, with a pluggable
  bidding strategy from ``agents.bidding.BIDDING_STRATEGIES``.
- ``agents.tournament``: seeded, seat-rotated tournaments (``fifthave-tournament``).
- ``agents.play``: a person against agents in a terminal (``fifthave-play``).
- ``agents.learned``: trained agents (policy and candidate-value networks) played with numpy alone, from
  the agent file of ``agents.agentfile`` (what every training method writes; read without unpickling).
- ``agents.models``: the committed trained models by name (``models.load("values-4p")``).
- ``agents.view.SeatView``: the readable seat view agents decide from.
"""

from .base import Agent, RandomAgent
from .bidding import BIDDING_STRATEGIES, BiddingStrategy
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .view import SeatView

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "BiddingStrategy", "BIDDING_STRATEGIES",
           "SeatView"]
