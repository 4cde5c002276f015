"""A MaskablePPO checkpoint as an agent, in training: ``PolicyAgent.load("run/checkpoints/ckpt_....zip")``.

Playing lives in ``fifthave.agents.learned`` (numpy alone): ``PolicyAgent`` samples from the masked policy with the
generator ``reset`` gives it (or plays the most likely action with ``deterministic=True``), so games with it
replay from their seeds. This module builds its ``ActorNet`` from a MaskablePPO policy (a copy of the weights
taken when the agent is built) and reads training's own checkpoints (the self-play pool, evaluation of a
run's checkpoints); anything a user plays from a file goes through the exported agent file
(``fifthave.train.export``), which reads without torch and without unpickling.
"""

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor

from fifthave.agents import learned
from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.gym_env import FifthAvenueEnv

from .checkpoint import load_module_state, read_meta
from .config import config_from_dict
from .hints import AdvisedPolicy, advised_observation_space

_ACTIVATIONS = {torch.nn.Tanh: learned.ACTIVATION_FUNCTIONS["tanh"], torch.nn.ReLU: learned.ACTIVATION_FUNCTIONS["relu"]}


class ActorNet(learned.ActorNet):
    """``fifthave.agents.learned.ActorNet`` built from the actor of a MaskablePPO ``MlpPolicy`` (or
    ``fifthave.train.hints.AdvisedPolicy``): observation -> action logits."""

    def __init__(self, policy):
        if not isinstance(policy.features_extractor, FlattenExtractor):
            raise TypeError(f"only MlpPolicy (flat observations) is supported, got {policy.features_extractor!r}")
        net = self.from_modules([*policy.mlp_extractor.policy_net, policy.action_net])
        # AdvisedPolicy: the output layer also reads the advice at the end of the observation
        super().__init__(net.layers, getattr(policy.mlp_extractor, "advice_size", 0))

    @staticmethod
    def from_modules(modules):
        """An ``fifthave.agents.learned.ActorNet`` from torch ``Linear`` and activation modules in order (also the actor of
        an RLlib PPO module)."""
        layers = []  # (weight transposed, bias, activation or None)
        for module in modules:
            if isinstance(module, torch.nn.Linear):
                layers.append([module.weight.detach().numpy().T.copy(), module.bias.detach().numpy().copy(), None])
            elif type(module) in _ACTIVATIONS and layers:
                layers[-1][2] = _ACTIVATIONS[type(module)]
            else:
                raise TypeError(f"unsupported layer {module!r} in the policy network; "
                                f"supported: Linear, {', '.join(a.__name__ for a in _ACTIVATIONS)}")
        return learned.ActorNet(layers)


class PolicyAgent(learned.PolicyAgent):
    """``fifthave.agents.learned.PolicyAgent`` that also takes a MaskablePPO policy and reads training's checkpoints."""

    def __init__(self, policy, deterministic=False, name="ppo", meta=None, advisers=None, other_games="error"):
        if not isinstance(policy, learned.ActorNet):
            policy = ActorNet(policy)
        super().__init__(policy, deterministic, name, meta, advisers, other_games)

    @classmethod
    def load(cls, path, deterministic=False, name=None):
        """The policy of a checkpoint written by ``train`` (its config and versions in ``agent.meta``)."""
        meta = read_meta(path)
        return cls(load_policy(path, meta), deterministic=deterministic, name=name or f"ppo@{meta['num_timesteps']}",
                   meta=meta)



def policy_spec(config):
    """The policy class and keyword arguments of the network ``config`` describes (``net_arch``, ``advisers``)."""
    kwargs = {"net_arch": {"pi": list(config.net_arch), "vf": list(config.net_arch)}}
    if config.advisers:
        return AdvisedPolicy, {**kwargs, "advice_size": len(config.advisers) * NUM_ACTIONS,
                               "advice_prior": config.advice_prior}
    return MaskableActorCriticPolicy, kwargs


def load_policy(path, meta=None):
    """The MaskablePPO policy of the checkpoint at ``path`` (``meta``: its ``read_meta``), without its optimizer
    (published checkpoints have none).

    The network is built from the validated config (its spaces from the env the config describes) and only the
    weights are read (``fifthave.train.checkpoint.load_module_state``): nothing of the checkpoint is unpickled. Unlike
    ``MaskablePPO.load`` it leaves the process's generators alone, so a self-play run that loads a past policy
    in the middle of training stays reproducible.
    """
    config = config_from_dict(dict((read_meta(path) if meta is None else meta)["config"]))
    env = FifthAvenueEnv(**config.env_kwargs())
    policy_class, kwargs = policy_spec(config)
    with torch.random.fork_rng(devices=[]):  # building the modules draws initial weights
        policy = policy_class(advised_observation_space(env.observation_space, config.advisers), env.action_space,
                              lambda _: 0.0, **kwargs)
    load_module_state(policy, path)
    policy.set_training_mode(False)
    return policy


_LOADED = {}  # checkpoint path -> PolicyAgent, per process


class PolicyFactory:
    """A fresh ``PolicyAgent`` of the checkpoint at ``path`` per call; the policy is loaded once per process."""

    def __init__(self, path, deterministic=False, name=None):
        self.path = path
        self.deterministic = deterministic
        self.name = name

    def __call__(self):
        if self.path not in _LOADED:
            _LOADED[self.path] = PolicyAgent.load(self.path)
        loaded = _LOADED[self.path]
        # A new agent each time: two seats may share a policy but not a generator.
        return PolicyAgent(loaded.net, self.deterministic, self.name or loaded.name, loaded.meta)
