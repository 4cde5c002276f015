"""A ``fifthave.train.rllib`` checkpoint as an agent: ``rllib:PATH`` in tournaments and the terminal game.

A checkpoint directory holds RLlib's own algorithm state (``algorithm/``, to
resume or inspect with RLlib), the actor of the shared policy as ``actor.pt`` (a torch state dict, read with
``weights_only=True``) and ``meta.json`` (observation size, layer sizes, activation, the training config,
versions), and, for playing, the agent file ``agent.npz`` (``fifthave.agents.agentfile``): ``rllib:DIR`` plays it with
numpy alone, nothing unpickled, and samples from the masked policy with the generator ``reset`` gives it, so
games replay from their seeds, as with ``policy:PATH``. A checkpoint written before the agent file existed is
converted once with ``python -m fifthave.train.export DIR``.
"""

import json
import os

import torch

from fifthave_env.engine import safejson
from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.observation import OBS_SIZES

from fifthave.agents.agentfile import MAX_LAYERS, MAX_META_BYTES, MAX_WIDTH, POLICY_KINDS
from fifthave.agents.learned import AgentFileFactory, checkpoint_agent_file

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
    """SHA-256 of a checkpoint's actor weights (``fifthave.train.checkpoint.weights_hash``): runs that repeat match."""
    from ..checkpoint import weights_hash

    return weights_hash(_load_torch_actor(directory)[0])


def _load_torch_actor(directory):
    meta_path, actor_path = os.path.join(directory, META_FILE), os.path.join(directory, ACTOR_FILE)
    if not (os.path.isfile(meta_path) and os.path.isfile(actor_path)):
        raise ValueError(f"{directory!r} is not a fifthave.train.rllib checkpoint: it needs {META_FILE} and "
                         f"{ACTOR_FILE} (written by fifthave.train.rllib into RUN_DIR/checkpoints/iter_NNNNNN)")
    meta = safejson.load(meta_path, f"the RLlib checkpoint file {meta_path}", max_bytes=MAX_META_BYTES)
    hidden = meta.get("hidden") if isinstance(meta, dict) else None
    # checked before any network is built: a meta.json saying [20000, 20000] must not allocate gigabytes
    if not (isinstance(hidden, list) and len(hidden) <= MAX_LAYERS
            and all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH for w in hidden)
            and meta.get("obs_size") in OBS_SIZES.values() and meta.get("activation") in _TORCH_ACTIVATIONS):
        raise ValueError(f"{directory!r}: {META_FILE} must give obs_size (one of {sorted(OBS_SIZES.values())}), "
                         f"hidden (at most {MAX_LAYERS} widths from 1 to {MAX_WIDTH}) and activation (one of "
                         f"{sorted(_TORCH_ACTIVATIONS)})")
    try:
        actor = build_actor(meta["obs_size"], meta["hidden"], meta["activation"])
        actor.load_state_dict(torch.load(actor_path, map_location="cpu", weights_only=True))
    except (KeyError, RuntimeError, TypeError, ValueError) as error:
        raise ValueError(f"{directory!r}: the actor does not match its meta.json ({error})") from None
    return actor, meta


def agent_from_module(rl_module, name="rllib", meta=None, deterministic=False):
    """The current weights of an RLlib PPO module as an agent (a copy: later training does not change it)."""
    return PolicyAgent(ActorNet.from_modules(actor_modules(rl_module)), deterministic, name, meta)


def RLlibFactory(directory, deterministic=False, name=None):
    """A fresh agent of the checkpoint in ``directory`` per call, from its agent file ``agent.npz`` (picklable;
    read once per process, numpy alone)."""
    return AgentFileFactory(checkpoint_agent_file(directory), deterministic, name, kinds=POLICY_KINDS)
