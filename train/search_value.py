"""A trained network inside the search agent: its critic as the evaluator, its actor as the rollout policy.

    from fifthave.agents.search import SearchAgent
    from fifthave.train.search_value import network_search_factory
    factory = network_search_factory("runs/x/checkpoints/ckpt_000100000.zip", rollouts=12, depth=1)
    run_tournament([factory] + [agent_factory("heuristic")] * 3, ...)

The critic of a MaskablePPO checkpoint trained with the ``win_loss`` reward
estimates the learner's return in [-1, 1] from its observation; the search
wants a value in [0, 1] for the searching seat, so it gets ``(v + 1) / 2`` of
the critic on that seat's observation of the rolled-out position (terminal
positions keep their exact win share); with the ``win`` reward the critic's
estimate is already in [0, 1]. A checkpoint trained for VP (``vp_margin``,
``score_delta``) has no win chance to give and is refused. Only seats and boards the checkpoint
was trained for make sense. The checkpoint is one ``train`` writes (its config
describes the network, ``fifthave.train.policy_agent.load_policy``); a bare sb3 zip is
not read, since sb3 would unpickle parts of it.
"""

import functools

import numpy as np
import torch

from fifthave.agents.search import SearchAgent, projected_value
from fifthave_env.observation import Observer

from .checkpoint import read_meta
from .config import config_from_dict
from .policy_agent import PolicyFactory, load_policy


WIN_CHANCE_REWARDS = ("win_loss", "win")  # rewards whose critic estimates the seat's chance to win


class ValueNetEvaluator:
    """``evaluator(game, seat) -> value in [0, 1]`` from a checkpoint's critic (picklable: loads lazily)."""

    def __init__(self, path):
        self.path = path
        self._policy = self._layout = self._from_win_loss = None  # loaded on first use
        self._observers = {}

    def __getstate__(self):
        return {"path": self.path, "_policy": None, "_layout": None, "_from_win_loss": None, "_observers": {}}

    def __call__(self, game, seat):
        if game.is_over:
            return projected_value(game, seat)
        if self._policy is None:
            meta = read_meta(self.path)
            reward = meta["config"].get("reward", "win_loss")
            if reward not in WIN_CHANCE_REWARDS:
                raise ValueError(f"the critic of {self.path} was trained with reward {reward!r}, which estimates no "
                                 f"win chance; the search evaluator needs a checkpoint trained with one of "
                                 f"{WIN_CHANCE_REWARDS}")
            self._policy = load_policy(self.path, meta)
            self._layout = config_from_dict(meta["config"]).observation_layout  # the layout the critic reads
            self._from_win_loss = reward == "win_loss"
        observer = self._observers.get(game.config)
        if observer is None:
            observer = self._observers[game.config] = Observer(game.config, version=self._layout)
        observation = torch.as_tensor(observer.observe(game, seat)[None, :], dtype=torch.float32)
        with torch.no_grad():
            value = float(self._policy.predict_values(observation)[0, 0])
        if self._from_win_loss:
            value = (value + 1.0) / 2.0
        return float(np.clip(value, 0.0, 1.0))


def network_search_factory(path, rollouts=12, depth=1, rollout_with_policy=False, name=None):
    """A picklable SearchAgent factory whose evaluator is the checkpoint's critic; with
    ``rollout_with_policy`` its actor also plays the rollouts (else the HeuristicAgent does)."""
    rollout = PolicyFactory(path) if rollout_with_policy else "heuristic"
    return functools.partial(SearchAgent, rollouts=rollouts, depth=depth, rollout=rollout,
                             evaluator=ValueNetEvaluator(path), name=name or f"search-net:{rollouts}")
