"""A ``fifthave-rllib`` checkpoint as an agent: ``rllib:PATH`` in tournaments and the terminal game.

A checkpoint directory holds RLlib's own algorithm state (``algorithm/``, to
resume or inspect with RLlib) and, for playing, the actor of the shared policy:
``actor.pt`` (a torch state dict, read with ``weights_only=True`` so a
checkpoint cannot run code) and ``meta.json`` (observation size, layer sizes, activation, the
training config, versions). Acting needs neither Ray nor torch at play time:
the actor runs in numpy (``train.policy_agent.ActorNet``) and samples from the
masked policy with the generator ``reset`` gives it, so games replay from their
seeds, as with ``policy:PATH``.
"""

import json
import os

import torch

from fifthave_env.engine import safejson
from fifthave_env.engine.actions import NUM_ACTIONS

from ..policy_agent import ActorNet, PolicyAgent

ACTOR_FILE = "actor.pt"
META_FILE = "meta.json"
_TORCH_ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def actor_modules(rl_module):
    """The torch layers from observation to action logits of RLlib's PPO module (separate actor encoder)."""
    return [*rl_module.encoder.actor_encoder.net.mlp, *rl_module.pi.net.mlp]


def build_actor(obs_size, hidden, activation):
    layers, size = [], obs_size
    for width in hidden:
        layers += [torch.nn.Linear(size, width), _TORCH_ACTIVATIONS[activation]()]
        size = width
    return torch.nn.Sequential(*layers, torch.nn.Linear(size, NUM_ACTIONS))


def save_actor(rl_module, directory, meta):
    """Write ``actor.pt`` and ``meta.json`` (``meta`` must hold ``hidden`` and ``activation``; the observation
    size is read from the module and added)."""
    modules = actor_modules(rl_module)
    meta = dict(meta, obs_size=int(modules[0].in_features))
    actor = build_actor(meta["obs_size"], meta["hidden"], meta["activation"])
    actor.load_state_dict({f"{i}.{k}": v for i, m in enumerate(modules)
                           for k, v in m.state_dict().items()})
    os.makedirs(directory, exist_ok=True)
    torch.save(actor.state_dict(), os.path.join(directory, ACTOR_FILE))
    with open(os.path.join(directory, META_FILE), "w") as f:
        json.dump(meta, f, indent=1)


def load_actor(directory):
    """``(ActorNet, meta)`` of a checkpoint directory; a clear error if it is not one."""
    actor, meta = _load_torch_actor(directory)
    return ActorNet.from_modules(list(actor)), meta


def actor_weights_hash(directory):
    """SHA-256 of a checkpoint's actor weights (``train.checkpoint.weights_hash``): runs that repeat match."""
    from ..checkpoint import weights_hash

    return weights_hash(_load_torch_actor(directory)[0])


def _load_torch_actor(directory):
    meta_path, actor_path = os.path.join(directory, META_FILE), os.path.join(directory, ACTOR_FILE)
    if not (os.path.isfile(meta_path) and os.path.isfile(actor_path)):
        raise ValueError(f"{directory!r} is not a fifthave-rllib checkpoint: it needs {META_FILE} and "
                         f"{ACTOR_FILE} (written by fifthave-rllib into RUN_DIR/checkpoints/iter_NNNNNN)")
    meta = safejson.load(meta_path)
    try:
        actor = build_actor(meta["obs_size"], meta["hidden"], meta["activation"])
        actor.load_state_dict(torch.load(actor_path, map_location="cpu", weights_only=True))
    except (KeyError, RuntimeError, TypeError, ValueError) as error:
        raise ValueError(f"{directory!r}: the actor does not match its meta.json ({error})") from None
    return actor, meta


def agent_from_module(rl_module, name="rllib", meta=None, deterministic=False):
    """The current weights of an RLlib PPO module as an agent (a copy: later training does not change it)."""
    return PolicyAgent(ActorNet.from_modules(actor_modules(rl_module)), deterministic, name, meta)


_LOADED = {}  # checkpoint directory -> (ActorNet, meta), per process


class RLlibFactory:
    """A fresh agent of the checkpoint in ``directory`` per call (picklable; loaded once per process)."""

    def __init__(self, directory, deterministic=False, name=None):
        self.directory = directory
        self.deterministic = deterministic
        self.name = name

    def __call__(self):
        if self.directory not in _LOADED:
            _LOADED[self.directory] = load_actor(self.directory)
        net, meta = _LOADED[self.directory]
        return PolicyAgent(net, self.deterministic, self.name or f"rllib@{meta.get('iteration', '?')}", meta)

