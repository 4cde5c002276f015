"""Scripted agents for Fifth Avenue (see ``fifthave.agents.base`` for the protocol).

- ``RandomAgent`` (``fifthave.agents.base``): uniform over the legal actions.
- ``GreedyAgent`` (``fifthave.agents.greedy``): the best immediate VP gain, else a simple default.
- ``HeuristicAgent`` (``fifthave.agents.heuristic``): the rulebook's tips, with a pluggable
  bidding strategy from ``fifthave.agents.bidding.BIDDING_STRATEGIES``.
- ``fifthave.agents.tournament``: seeded, seat-rotated tournaments (``fifthave tournament``).
- ``fifthave.agents.play``: a person against agents in a terminal (``fifthave play``).
- ``fifthave.agents.learned``: trained agents (policy and candidate-value networks) played with numpy alone, from
  the agent file of ``fifthave.agents.agentfile`` (what every training method writes; read without unpickling).
- ``fifthave.agents.models``: the committed trained models by name (``models.load("values-4p")``).
- ``fifthave.agents.view.SeatView``: the readable seat view agents decide from.
"""

from .base import Agent, RandomAgent
from .bidding import BIDDING_STRATEGIES, BiddingStrategy
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .view import SeatView

__all__ = ["Agent", "RandomAgent", "GreedyAgent", "HeuristicAgent", "BiddingStrategy", "BIDDING_STRATEGIES",
           "SeatView"]
