"""Advice from scripted agents as observation features: what each adviser would play here, one-hot.

A flat network does not recover HeuristicAgent's arithmetic (each plot's worth,
district majorities, what a bid buys) from the observation vector: a clone on
the bare observation agrees with it on 78% of decisions and wins 0.04 against
three of them. So the learner is given the advisers' choices as inputs: for each
adviser (a name of ``agents.tournament.AGENT_FACTORIES``, e.g. ``heuristic``,
``heuristic-aggressive``) a one-hot block of ``NUM_ACTIONS`` after the
observation. The network can copy an adviser, pick between advisers per
situation, or overrule them; PPO learns where that pays.

Advisers see exactly the seat's own observation and mask (they are agents of the
``agents.base`` protocol playing the learner's seat), so the features leak
nothing. They keep state across a seat's decisions (a bid plan laid card by
card); when the seat plays something else, ``record`` makes them plan again.

``AdvisedEnv`` wraps ``FifthAvenueEnv`` for training; ``PolicyAgent`` uses
``Advisers`` directly when a checkpoint's config names advisers.
"""

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents.tournament import agent_factory
from fifthave_env.engine.actions import NUM_ACTIONS


class Advisers:
    """The scripted advisers of one seat and the feature block they write."""

    def __init__(self, names):
        self.names = list(names)
        self.factories = [agent_factory(name) for name in self.names]
        self.agents = []
        self.advice = []

    @property
    def size(self):
        return len(self.names) * NUM_ACTIONS

    def reset(self, config, seat, rng):
        """New advisers for the seat's next game, their generators drawn from ``rng``."""
        self.agents = [factory() for factory in self.factories]
        for agent in self.agents:
            agent.reset(config, seat, np.random.default_rng(rng.integers(2**63)))
        self.advice = []

    def features(self, observation, action_mask):
        """The observation followed by the advisers' one-hot choices (zeros when no action is legal)."""
        block = np.zeros(self.size, dtype=np.float32)
        self.advice = []
        if np.any(action_mask):
            for i, agent in enumerate(self.agents):
                action = int(agent.act(observation, action_mask))
                self.advice.append(action)
                block[i * NUM_ACTIONS + action] = 1.0
        return np.concatenate([np.asarray(observation, dtype=np.float32), block])

    def record(self, action):
        """The seat played ``action``: advisers whose advice it did not follow drop their plans."""
        for agent, advised in zip(self.agents, self.advice):
            if advised != action and hasattr(agent, "drop_plan"):
                agent.drop_plan()


class AdvisedEnv(gym.Wrapper):
    """``FifthAvenueEnv`` whose observations carry the advisers' choices for the learner's seat."""

    def __init__(self, env, adviser_names):
        super().__init__(env)
        self.advisers = Advisers(adviser_names)
        base = env.observation_space
        high = np.concatenate([base.high, np.ones(self.advisers.size, dtype=np.float32)])
        self.observation_space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)

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
