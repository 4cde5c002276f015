"""How the learner's sb3 policy is evaluated outside autograd, in one place: the rollout's forward passes (in the
learner's process and in the game workers, ``fifthave.train.vec_env``) and the reading of sb3's MLP policy that the update
(``fifthave.train.ppo``) shares with them."""

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor

from .policy_agent import ActorNet


def policy_latents(policy, obs):
    """The actor's and the critic's latent features of an sb3 actor-critic ``policy`` for a batch of observations
    (sb3's forward pass up to the heads)."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        return policy.mlp_extractor(features)
    return policy.mlp_extractor.forward_actor(features[0]), policy.mlp_extractor.forward_critic(features[1])


def mlp_first_layers(policy):
    """The first ``Linear`` of the policy and of the value network when both read the flat observation (sb3's
    ``MlpPolicy``), else None: then each can multiply only the observation entries that are nonzero, and the rest
    of each network follows its first layer."""
    extractor = policy.mlp_extractor
    if not (policy.share_features_extractor and type(policy.features_extractor) is FlattenExtractor
            and type(extractor) is MlpExtractor and len(extractor.policy_net) and len(extractor.value_net)
            and isinstance(policy.observation_space, spaces.Box) and len(policy.observation_space.shape) == 1):
        return None
    first_pi, first_vf = extractor.policy_net[0], extractor.value_net[0]
    if not (type(first_pi) is torch.nn.Linear and type(first_vf) is torch.nn.Linear
            and first_pi.bias is not None and first_vf.bias is not None):
        return None
    return first_pi, first_vf


class RolloutForward:
    """Logits and values of an sb3 actor-critic ``policy`` for small batches of observations, with the weights as
    they were at the last ``refresh()`` (a rollout does not change them).

    Policies that read the flat observation (sb3's ``MlpPolicy``, ``fifthave.train.hints.AdvisedPolicy``) run in numpy
    (``fifthave.train.policy_agent.ActorNet`` for the actor and the critic): for the few games of one shard, a torch call
    chain costs mostly its dispatch, which the games running in between make several times dearer. The values are
    the module's up to float rounding. Any other policy is evaluated by its modules."""

    def __init__(self, policy):
        self.policy = policy
        self.refresh()

    def refresh(self):
        policy = self.policy
        self.actor = self.critic = None
        if type(policy.features_extractor) is FlattenExtractor and policy.share_features_extractor:
            try:
                self.actor = ActorNet(policy)
                self.critic = ActorNet.from_modules([*policy.mlp_extractor.value_net, policy.value_net])
            except TypeError:  # a layer ActorNet does not know
                self.actor = self.critic = None

    def __call__(self, obs):
        """(logits, values) as float32 arrays for a batch of observations."""
        if self.actor is not None:
            return self.actor.logits(obs), self.critic.logits(obs)[:, 0]
        policy = self.policy
        with torch.no_grad():
            latent_pi, latent_vf = policy_latents(policy, torch.as_tensor(obs))
            return policy.action_net(latent_pi).numpy(), policy.value_net(latent_vf).flatten().numpy()
