"""A trained policy as an agent (``agents.base`` protocol): ``PolicyAgent.load("run/checkpoints/ckpt_....zip")``.

It sees what every agent sees, its observation and mask, and samples from the
masked policy with the generator ``reset`` gives it (or plays the most likely
action with ``deterministic=True``), so games with it replay from their seeds.
Use it in tournaments, as a frozen self-play opponent or in the terminal game:
``PolicyFactory(path)`` is a picklable zero-argument factory (what
``agents.tournament.run_tournament`` takes, also with ``workers > 1``) that
loads the checkpoint once per process and returns a fresh agent per call.

Speed: acting runs the policy network's actor half in numpy (``ActorNet``), a
copy of the weights taken when the agent is built; one decision costs a few
matrix-vector products instead of a torch call chain, which makes evaluation
games and self-play opponents several times cheaper.
"""

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor

from fifthave_env.engine.actions import NUM_ACTIONS
from fifthave_env.gym_env import FifthAvenueEnv

from .checkpoint import load_module_state, read_meta
from .config import config_from_dict
from .hints import AdvisedPolicy, Advisers, advised_observation_space

def _relu(x):
    return np.maximum(x, 0.0)


_ACTIVATIONS = {torch.nn.Tanh: np.tanh, torch.nn.ReLU: _relu}  # module-level functions: agents pickle


class ActorNet:
    """The actor of a MaskablePPO ``MlpPolicy`` (or ``train.hints.AdvisedPolicy``) as numpy arrays:
    observation -> action logits."""

    def __init__(self, policy):
        if not isinstance(policy.features_extractor, FlattenExtractor):
            raise TypeError(f"only MlpPolicy (flat observations) is supported, got {policy.features_extractor!r}")
        self.layers = self.from_modules([*policy.mlp_extractor.policy_net, policy.action_net]).layers
        # AdvisedPolicy: the output layer also reads the advice at the end of the observation
        self.advice_size = getattr(policy.mlp_extractor, "advice_size", 0)

    @classmethod
    def from_modules(cls, modules):
        """From torch ``Linear`` and activation modules in order (also the actor of an RLlib PPO module)."""
        net = cls.__new__(cls)
        net.layers = []  # (weight transposed, bias, activation or None)
        for module in modules:
            if isinstance(module, torch.nn.Linear):
                net.layers.append([module.weight.detach().numpy().T.copy(), module.bias.detach().numpy().copy(),
                                   None])
            elif type(module) in _ACTIVATIONS and net.layers:
                net.layers[-1][2] = _ACTIVATIONS[type(module)]
            else:
                raise TypeError(f"unsupported layer {module!r} in the policy network; "
                                f"supported: Linear, {', '.join(a.__name__ for a in _ACTIVATIONS)}")
        net.advice_size = 0
        return net

    def __deepcopy__(self, memo):
        # the weights never change after loading: copies of an agent (the Gymnasium env copies listed
        # opponents) share its network, so train.vec_env still batches them and memory is not duplicated
        return self

    def logits(self, observation):
        """Logits for one observation or a batch."""
        x = np.asarray(observation, dtype=np.float32)
        if len(self.layers) == 1:
            return self._output(x, x)
        return self._from_product(x @ self.layers[0][0], x)

    def logits_tracked(self, observations, memories):
        """Logits of a batch whose row r is the next observation of the seat ``memories[r]`` follows: a list
        ``[observation, product]`` of that seat's last observation and its first-layer product (``x @ W1``),
        ``[None, None]`` before the first, updated here.

        A seat's consecutive observations differ in about 15 of their 1,176 values (4 players, random play), so
        only those rows of ``W1`` are read (1.2 MB in all, the most of the network; the nonzero entries' rows at
        first). Self-play opponents (``train.vec_env``), whose networks are rarely in cache, use it: their games
        take about a quarter less time (``scripts/bench_training.py``, the games alone). The same logits up to float
        rounding, which builds up over a game's calls (about 1e-6 relative) and depends only on the seat's own
        observations, not on the batch; agents that play evaluation games keep the full product."""
        x = np.asarray(observations, dtype=np.float32)
        if len(self.layers) == 1:
            return self.logits(x)
        weight = self.layers[0][0]
        product = np.empty((len(x), weight.shape[1]), dtype=np.float32)
        for row, (observation, memory) in enumerate(zip(x, memories)):
            last, last_product = memory
            if last is None:  # (x != 0).nonzero() costs half of np.flatnonzero(x); NaN counts as nonzero
                active = (observation != 0).nonzero()[0]
                product[row] = observation.take(active) @ weight.take(active, axis=0)
            else:
                changed = (observation != last).nonzero()[0]
                product[row] = last_product + (observation.take(changed) - last.take(changed)) @ weight.take(
                    changed, axis=0)
            memory[0], memory[1] = observation.copy(), product[row].copy()
        return self._from_product(product, x)

    def _from_product(self, product, x):
        """The logits of ``x`` given ``product``, its first-layer product (there is a hidden layer)."""
        _, bias, activation = self.layers[0]
        hidden = product + bias
        if activation is not None:
            hidden = activation(hidden)
        for weight, bias, activation in self.layers[1:-1]:
            hidden = hidden @ weight + bias
            if activation is not None:
                hidden = activation(hidden)
        return self._output(hidden, x)

    def _output(self, hidden, x):
        if self.advice_size:
            hidden = np.concatenate([hidden, x[..., -self.advice_size:]], axis=-1)
        weight, bias, _ = self.layers[-1]
        return hidden @ weight + bias


class PolicyAgent:
    def __init__(self, policy, deterministic=False, name="ppo", meta=None, advisers=None):
        """``policy``: a MaskablePPO policy or an ``ActorNet`` made from one. ``advisers``: the scripted
        advisers whose choices the policy reads after the observation (``train.hints``); by default those
        of the checkpoint's config in ``meta``."""
        self.net = policy if isinstance(policy, ActorNet) else ActorNet(policy)
        self.deterministic = deterministic
        self.name = name
        self.meta = meta or {}
        self.rng = np.random.default_rng()
        names = self.meta.get("config", {}).get("advisers", []) if advisers is None else advisers
        self.advisers = Advisers(names) if names else None

    @property
    def observation_layout(self):
        """The layout the network reads (``agent_protocol``): its training config's ``observation_version``."""
        return self.meta.get("config", {}).get("observation_version", 0)

    @classmethod
    def load(cls, path, deterministic=False, name=None):
        """The policy of a checkpoint written by ``train`` (its config and versions in ``agent.meta``)."""
        meta = read_meta(path)
        return cls(load_policy(path, meta), deterministic=deterministic, name=name or f"ppo@{meta['num_timesteps']}",
                   meta=meta)

    def reset(self, config, seat, rng):
        trained = self.meta.get("config", {})
        if trained and (trained["num_players"], trained["board"]) != (config.num_players, config.board):
            raise ValueError(f"this policy was trained for {trained['num_players']} players on the "
                             f"{trained['board']}-plot board, not {config.num_players} players on the "
                             f"{config.board}-plot board")
        self.rng = rng
        if self.advisers is not None:
            self.advisers.reset(config, seat, rng)

    def _features(self, observation, action_mask):
        if self.advisers is None:
            return observation
        return self.advisers.features(observation, action_mask)

    def action_probabilities(self, observation, action_mask):
        """The policy's probability of every action id (zero for illegal ones)."""
        legal = np.flatnonzero(action_mask)
        logits = self.net.logits(self._features(observation, action_mask))[legal].astype(np.float64)
        weights = np.exp(logits - logits.max())
        probs = np.zeros(len(action_mask))
        probs[legal] = weights / weights.sum()
        return probs

    @property
    def batch_net(self):
        """The network whose logits ``choose`` reads: ``train.vec_env`` stacks the observations of all
        games waiting on the same network, runs it once, and hands each agent its row. None with advisers
        (their advice is per seat, so such an agent acts alone)."""
        return self.net if self.advisers is None else None

    def act(self, observation, action_mask):
        return self.choose(self.net.logits(self._features(observation, action_mask)), np.flatnonzero(action_mask))

    def choose(self, logits, legal):
        """The action for these logits of the network among the legal ids ``legal`` (ascending, as
        ``Game.legal_actions`` lists them; a batch caller passes that list and builds no mask): the most
        likely one, or a sample with this agent's generator (one draw per decision, whether acting alone
        or in a batch)."""
        logits = logits[legal]
        self._last_choice = (legal, logits)  # for explain()
        if self.deterministic:
            action = int(legal[np.argmax(logits)])
        else:
            cumulative = np.cumsum(np.exp(logits.astype(np.float64) - logits.max()))
            index = np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right")
            action = int(legal[min(index, len(legal) - 1)])
        if self.advisers is not None:
            self.advisers.record(action)
        return action


    EXPLAINED_ACTIONS = 8

    def explain(self):
        """The policy's probabilities of the most likely legal actions at the latest decision (agent protocol)."""
        last = getattr(self, "_last_choice", None)
        if last is None:
            return None
        legal, logits = last
        weights = np.exp(logits.astype(np.float64) - logits.max())
        probs = weights / weights.sum()
        top = np.argsort(-probs, kind="stable")[:self.EXPLAINED_ACTIONS]
        return {"kind": "policy", "value": "probability", "greedy": self.deterministic,
                "candidates": [{"actions": [int(legal[i])], "value": round(float(probs[i]), 4)} for i in top]}


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
    weights are read (``train.checkpoint.load_module_state``): nothing of the checkpoint is unpickled. Unlike
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
