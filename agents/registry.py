"""The scripted agents by name (``random``, ``greedy``, ``heuristic``, ``heuristic-<strategy>``), and the
list of every agent name the command lines take (``agent_names_help``).

Kept apart from ``fifthave.agents.tournament`` so that training configs can check names without importing the
tournament.
"""

import argparse
import functools
import textwrap
from collections.abc import Callable, Sequence

from .base import Agent, RandomAgent
from .bidding import BIDDING_STRATEGIES
from .committed_models import MODELS
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent

AGENT_FACTORIES: dict[str, Callable[[], Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    **{f"heuristic-{name}": functools.partial(HeuristicAgent, bidding=name) for name in BIDDING_STRATEGIES},
}

PARAMETERIZED_AGENT_NAMES = (
    "search[:ROLLOUTS[:DEPTH[:POLICY]]] (POLICY: heuristic, greedy, random or a trained agent's name)",
    f"a committed model (fifthave.agents.models: {', '.join(MODELS)})[:greedy]",
    "AGENT_FILE.npz[:greedy]",  # fifthave.agents.agentfile, written by every training method
    "policy:AGENT_FILE.npz[:greedy]",  # the same, policies only
    "rllib:CHECKPOINT_DIR[:greedy]",  # CHECKPOINT_DIR/agent.npz
    "values:AGENT_FILE.npz",  # candidate-value networks only
    "dmc:AGENT_FILE.npz",  # action-value networks only (fifthave.train.generations)
)
"""The agents ``fifthave.agents.tournament.agent_factory`` builds from a name with parameters."""


def agent_names_help() -> str:
    """Every agent name ``fifthave.agents.tournament.agent_factory`` takes, for the help and errors of every command
    that takes agent names (one list, so that they cannot drift apart)."""
    return ", ".join([*AGENT_FACTORIES, *PARAMETERIZED_AGENT_NAMES])


class AgentNamesHelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, its text wrapped at spaces only: an agent name in the list (``values-selfplay-4p``)
    is never split at a hyphen across two lines."""

    def _fill_text(self, text, width, indent):
        return textwrap.fill(" ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent,
                             break_on_hyphens=False)


def check_agent_names(label: str, names: Sequence[str], allow_empty: bool = False) -> None:
    """Raise ``ValueError`` naming ``label`` unless ``names`` is a list of names of ``AGENT_FACTORIES``
    (non-empty unless ``allow_empty``); used by every config that names scripted agents."""
    listed = isinstance(names, (list, tuple)) and all(isinstance(n, str) for n in names)  # also from JSON
    if not listed or any(n not in AGENT_FACTORIES for n in names) or not (names or allow_empty):
        kind = "a list" if allow_empty else "a non-empty list"
        raise ValueError(f"{label} must be {kind} of agent names from {sorted(AGENT_FACTORIES)}, got {names!r}")
