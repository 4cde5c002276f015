"""The trained models committed with the repository, by name (in the manner of RLCard's ``rlcard.models``)::

    from fifthave.agents import models
    models.available()                 # [Model(name='policy-4p', num_players=4, board=5, ...), ...]
    agent = models.load("values-4p")   # a fresh agent (fifthave.agents.base protocol), numpy alone
    run_tournament([models.factory("values-4p")] + [agent_factory("heuristic")] * 3, games=40)

Each name is also an agent name of every command (``fifthave tournament --agents values-4p heuristic*3``,
``policy-4p:greedy`` for its most likely moves). A model seated in a game of another player count or board
than it was trained for raises a ``ValueError`` when the game starts; ``other_games="warn"`` plays it anyway
after a loud warning. The files are agent files (``fifthave.agents.agentfile``) under ``results/`` of a repository
checkout: read with numpy alone, nothing unpickled.
"""

import os
from collections.abc import Callable

from .base import Agent
from .committed_models import MODELS, Model
from .learned import AgentFileFactory

__all__ = ["MODELS", "Model", "available", "factory", "load"]


def available() -> list[Model]:
    """The committed models, each with its player count and board."""
    return list(MODELS.values())


def _model(name: str):
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; available: "
                         + ", ".join(f"{m.name} ({m.num_players} players, board {m.board})" for m in MODELS.values())
                         ) from None


def factory(name: str, deterministic: bool = False, other_games: str = "error") -> Callable[[], Agent]:
    """A picklable zero-argument factory of fresh agents of the committed model ``name``."""
    model = _model(name)
    if not os.path.isfile(model.file):
        raise ValueError(f"the model {name!r} is {model.file}, which is missing: the committed models ship with "
                         "a checkout of the repository (results/), not with an installed package")
    made = AgentFileFactory(model.file, deterministic, name=name, kinds=(model.kind,), other_games=other_games)
    meta = made.meta()
    if (meta["num_players"], meta["board"]) != (model.num_players, model.board):
        raise ValueError(f"{model.file} was trained for {meta['num_players']} players on board {meta['board']}, "
                         f"but the model list says {model.num_players} on board {model.board}")
    return made


def load(name: str, deterministic: bool = False, other_games: str = "error") -> Agent:
    """A fresh agent of the committed model ``name`` (``available()`` lists them)."""
    return factory(name, deterministic, other_games)()
