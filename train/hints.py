"""Advice from scripted agents as observation features: what each adviser would play here, one-hot.

A flat network does not recover HeuristicAgent's arithmetic (each plot's worth,
district majorities, what a bid buys) from the observation vector: a clone on
the bare observation agrees with it on 78% of decisions and wins 0.04 against
three of them. So the learner is given the advisers' choices as inputs: for each
adviser (a name of ``fifthave.agents.registry.AGENT_FACTORIES``, e.g. ``heuristic``,
``heuristic-aggressive``) a one-hot block of ``NUM_ACTIONS`` after the
observation. The network can copy an adviser, pick between advisers per
situation, or overrule them; PPO learns where that pays.

Advisers see exactly the seat's own observation and mask (they are agents of the
``fifthave.agents.base`` protocol playing the learner's seat), so the features leak
nothing. They keep state across a seat's decisions (a bid plan laid card by
card); when the seat plays something else, ``record`` makes them plan again.

The network (``AdvisedPolicy``) also passes the advice blocks straight to the
actor's output layer, whose weights there start at ``advice_prior`` times the
identity for the first adviser (a skip connection, as in residual policy
learning): the untrained policy already prefers that adviser's choice by
``advice_prior`` logits in every decision, even in decisions too rare in the data
for a plain network to learn to copy (without it a clone at 97% agreement still
disagreed with the heuristic on 58% of starting placements), and the hidden layers learn
only where to deviate.

``AdvisedEnv`` wraps ``FifthAvenueEnv`` (one game); ``fifthave.train.vec_env.FifthAvenueVecEnv(advisers=...)``
adds the advice in its worker processes for training; ``PolicyAgent`` uses
``Advisers`` directly when a checkpoint's config names advisers.
"""

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor

from fifthave.agents.learned import Advisers  # noqa: F401 (playing an advised policy needs only numpy)
from fifthave_env.engine.actions import NUM_ACTIONS


def advised_observation_space(space, adviser_names):
    """``space`` (a ``Box``) followed by the advice blocks of ``adviser_names``; ``space`` itself without advisers."""
    if not adviser_names:
        return space
    high = np.concatenate([space.high, np.ones(len(adviser_names) * NUM_ACTIONS, dtype=np.float32)])
    return spaces.Box(np.zeros_like(high), high, dtype=np.float32)


class AdvisedEnv(gym.Wrapper):
    """``FifthAvenueEnv`` whose observations carry the advisers' choices for the learner's seat."""

    def __init__(self, env, adviser_names):
        super().__init__(env)
        self.advisers = Advisers(adviser_names)
        self.observation_space = advised_observation_space(env.observation_space, adviser_names)

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        env = self.env.unwrapped
        self.advisers.reset(env.config, env.learner_seat, env.np_random)
        return self.advisers.features(observation, info["action_mask"]), info

    def step(self, action):
        self.advisers.record(int(action))
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self.advisers.features(observation, info["action_mask"]), reward, terminated, truncated, info

    def action_masks(self):
        return self.env.unwrapped.action_masks()


class AdvisedMlpExtractor(MlpExtractor):
    """sb3's ``MlpExtractor`` whose actor latent ends with the last ``advice_size`` features (the advice)."""

    def __init__(self, feature_dim, net_arch, activation_fn, advice_size, device="auto"):
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.advice_size = advice_size
        self.latent_dim_pi += advice_size

    def forward_actor(self, features):
        return torch.cat([self.policy_net(features), features[..., -self.advice_size:]], dim=-1)

    def forward(self, features):
        return self.forward_actor(features), self.forward_critic(features)


class AdvisedPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's MLP policy with the advice skip connection (module docstring); ``advice_size`` is
    ``len(advisers) * NUM_ACTIONS``, ``advice_prior`` the starting logit bonus of the first adviser's choice."""

    def __init__(self, *args, advice_size=NUM_ACTIONS, advice_prior=5.0, **kwargs):
        self.advice_size = advice_size
        self.advice_prior = advice_prior
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self):
        self.mlp_extractor = AdvisedMlpExtractor(self.features_dim, self.net_arch, self.activation_fn,
                                                 self.advice_size, self.device)

    def _build(self, lr_schedule):
        super()._build(lr_schedule)
        with torch.no_grad():
            weight = self.action_net.weight  # (actions, hidden + advice)
            weight[:, -self.advice_size:] = 0.0
            first = weight.shape[1] - self.advice_size
            weight[:, first:first + NUM_ACTIONS] += self.advice_prior * torch.eye(NUM_ACTIONS)

    def _get_constructor_parameters(self):
        return {**super()._get_constructor_parameters(), "advice_size": self.advice_size,
                "advice_prior": self.advice_prior}
