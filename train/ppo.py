"""MaskablePPO whose rollouts overlap the learner's forward passes with the games' steps.

``PipelinedMaskablePPO`` is sb3-contrib's ``MaskablePPO`` (same update, same
rollout buffer, same saved files) with two changes to how time is spent, not to
what is computed:

- On a ``train.vec_env.FifthAvenueVecEnv`` with several shards, the rollout is a
  pipeline: as soon as one shard's games have stepped, the learner chooses that
  shard's next actions and sends them, while the other shards are still stepping;
  so the policy's forward passes (this process) and the games (worker processes)
  run on different cores at the same time. Each step's actions are sampled from
  the masked policy as ``MaskablePPO`` does (logits of illegal actions set to
  -1e8, a categorical draw from torch's generator), without building sb3's
  distribution objects for every step. Callbacks see every step as usual; a
  callback that talks to the env (a new self-play pool) takes effect one step
  later in the shards already stepping.
- The update (``train()``) computes what ``MaskablePPO.train`` computes (clipped
  surrogate, value loss with optional ``clip_range_vf``, entropy of the masked
  distribution, ``target_kl`` early stop, ``max_grad_norm``, the same logger keys)
  without sb3's per-minibatch distribution objects: the masked log-softmax is taken
  on the logits directly, and the rollout is turned into tensors once, not per
  minibatch. With sb3's MLP policy, the first layers of the policy and value
  networks are one matrix product over only the observation entries that are
  nonzero somewhere in the rollout (a quarter of them never are in a 4-player
  game); the others add exactly nothing to the products and get a zero gradient,
  as in the full product. ``tests/test_ppo.py`` checks the weights against
  ``MaskablePPO.train`` on the same rollout. Adam runs fused (same formula, one
  kernel). The update may use ``update_threads``
  torch threads: the games wait during the update, so both cores can work on it.

Any other env falls back to ``MaskablePPO.collect_rollouts``.
"""

import time

import numpy as np
import torch
import torch.nn.functional as F
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import FlattenExtractor, MlpExtractor
from stable_baselines3.common.utils import explained_variance

from .vec_env import FifthAvenueVecEnv

_HUGE_NEG = -1e8  # what sb3-contrib's MaskableCategorical gives an illegal action


def _latents(policy, obs):
    """The actor's and the critic's latent features of ``policy`` for a batch of observations (sb3's forward
    pass up to the heads)."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        return policy.mlp_extractor(features)
    return policy.mlp_extractor.forward_actor(features[0]), policy.mlp_extractor.forward_critic(features[1])


class PipelinedMaskablePPO(MaskablePPO):
    update_threads = 1
    """Torch threads for the update (the games are idle then); the rollout's forward passes use the threads
    torch has outside it."""

    def _setup_model(self):
        super()._setup_model()
        self.timing = dict.fromkeys(("act", "wait", "update"), 0.0)
        """Seconds this process spent choosing actions, waiting for the games, and updating
        (``scripts/bench_training.py`` prints them)."""

    def _excluded_save_params(self):
        return [*super()._excluded_save_params(), "timing"]

    def train(self):
        threads = torch.get_num_threads()
        torch.set_num_threads(max(1, self.update_threads))
        started = time.perf_counter()
        try:
            self._use_fused_adam()
            if self._fast_update_applies():
                self._train_fast()
            else:
                super().train()
        finally:
            torch.set_num_threads(threads)
            self.timing["update"] += time.perf_counter() - started

    def _use_fused_adam(self):
        """Adam's update as one fused kernel: the same formula as the default loop over tensors, about ten times
        cheaper for our few large tensors on the CPU. Set at every update, so a model loaded from an older
        checkpoint (whose optimizer state says otherwise) updates the same way as a new one."""
        optimizer = self.policy.optimizer
        if type(optimizer) is torch.optim.Adam:
            for group in optimizer.param_groups:
                if not group.get("differentiable") and all(p.device.type == "cpu" for p in group["params"]):
                    group.update(fused=True, foreach=False)

    def _fast_update_applies(self):
        """Our update computes ``MaskablePPO.train``'s math for policies that evaluate actions as sb3-contrib's
        does (a discrete action space, the masked categorical of ``action_net``'s logits)."""
        return (type(self.policy).evaluate_actions is MaskableActorCriticPolicy.evaluate_actions
                and isinstance(self.action_space, spaces.Discrete)
                and type(self.rollout_buffer) is MaskableRolloutBuffer)

    def _first_layers_fused(self):
        """The first ``Linear`` of the policy and of the value network when both read the flat observation
        (sb3's ``MlpPolicy``), else None."""
        policy = self.policy
        extractor = policy.mlp_extractor
        if not (policy.share_features_extractor and type(policy.features_extractor) is FlattenExtractor
                and type(extractor) is MlpExtractor and len(extractor.policy_net) and len(extractor.value_net)
                and isinstance(self.observation_space, spaces.Box) and len(self.observation_space.shape) == 1):
            return None
        first_pi, first_vf = extractor.policy_net[0], extractor.value_net[0]
        if not (type(first_pi) is torch.nn.Linear and type(first_vf) is torch.nn.Linear
                and first_pi.bias is not None and first_vf.bias is not None):
            return None
        return first_pi, first_vf

    def _rollout_tensors(self):
        """The flattened rollout as tensors (sb3's buffer order), built once per update."""
        buffer = self.rollout_buffer
        if not buffer.generator_ready:
            for name in ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks"):
                buffer.__dict__[name] = buffer.swap_and_flatten(buffer.__dict__[name])
            buffer.generator_ready = True
        return {
            "observations": torch.as_tensor(buffer.observations.astype(np.float32, copy=False)),
            "actions": torch.as_tensor(buffer.actions).long().flatten(),
            "old_values": torch.as_tensor(buffer.values).flatten(),
            "old_log_prob": torch.as_tensor(buffer.log_probs).flatten(),
            "advantages": torch.as_tensor(buffer.advantages).flatten(),
            "returns": torch.as_tensor(buffer.returns).flatten(),
            "legal": torch.as_tensor(buffer.action_masks.reshape(-1, buffer.mask_dims)) != 0,
        }

    def _train_fast(self):
        """``MaskablePPO.train`` (sb3-contrib 2.x) with the same math, minibatch order and logs."""
        policy = self.policy
        policy.set_training_mode(True)
        self._update_learning_rate(policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)
        clip_range_vf = None
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)

        data = self._rollout_tensors()
        fused = self._first_layers_fused()
        observations = data["observations"]
        if fused is not None:
            # Observation entries that are zero in the whole rollout contribute nothing: drop their columns.
            active = torch.nonzero(observations.ne(0).any(0)).flatten()
            observations = observations.index_select(1, active).contiguous()
            first_pi, first_vf = fused
            hidden_pi = first_pi.out_features
            rest_pi = policy.mlp_extractor.policy_net[1:]
            rest_vf = policy.mlp_extractor.value_net[1:]
        parameters = list(policy.parameters())
        optimizer = policy.optimizer
        huge_neg = torch.tensor(_HUGE_NEG)

        entropy_losses, pg_losses, value_losses, clip_fractions = [], [], [], []
        size = self.rollout_buffer.buffer_size * self.rollout_buffer.n_envs
        batch_size = self.batch_size if self.batch_size is not None else size
        continue_training = True
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            indices = torch.from_numpy(np.random.permutation(size))  # the draw sb3's buffer.get makes
            for start in range(0, size, batch_size):
                batch = indices[start:start + batch_size]
                obs = observations.index_select(0, batch)
                if fused is not None:
                    weight = torch.cat((first_pi.weight.index_select(1, active),
                                        first_vf.weight.index_select(1, active)))
                    bias = torch.cat((first_pi.bias, first_vf.bias))
                    hidden = F.linear(obs, weight, bias)
                    latent_pi = rest_pi(hidden[:, :hidden_pi])
                    latent_vf = rest_vf(hidden[:, hidden_pi:])
                else:
                    latent_pi, latent_vf = _latents(policy, obs)
                values = policy.value_net(latent_vf).flatten()
                logits = torch.where(data["legal"].index_select(0, batch), policy.action_net(latent_pi), huge_neg)
                log_probs_all = torch.log_softmax(logits, dim=-1)
                log_prob = log_probs_all.gather(1, data["actions"].index_select(0, batch)[:, None]).flatten()
                # Illegal actions have probability exactly 0, so they add 0 (and no gradient) to the entropy.
                entropy = -(log_probs_all.exp() * log_probs_all).sum(-1)

                advantages = data["advantages"].index_select(0, batch)
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                old_log_prob = data["old_log_prob"].index_select(0, batch)
                log_ratio = log_prob - old_log_prob
                ratio = torch.exp(log_ratio)
                policy_loss = -torch.min(advantages * ratio,
                                         advantages * torch.clamp(ratio, 1 - clip_range, 1 + clip_range)).mean()
                if clip_range_vf is None:
                    values_pred = values
                else:
                    old_values = data["old_values"].index_select(0, batch)
                    values_pred = old_values + torch.clamp(values - old_values, -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(data["returns"].index_select(0, batch), values_pred)
                entropy_loss = -torch.mean(entropy)
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss

                with torch.no_grad():
                    pg_losses.append(policy_loss.detach())
                    clip_fractions.append(torch.mean((torch.abs(ratio - 1) > clip_range).float()))
                    value_losses.append(value_loss.detach())
                    entropy_losses.append(entropy_loss.detach())
                    approx_kl_div = torch.mean((ratio - 1) - log_ratio)
                    approx_kl_divs.append(approx_kl_div)
                if self.target_kl is not None and approx_kl_div.item() > 1.5 * self.target_kl:
                    continue_training = False
                    if self.verbose >= 1:
                        print(f"Early stopping at step {epoch} due to reaching max kl: {approx_kl_div.item():.2f}")
                    break

                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(parameters, self.max_grad_norm)
                optimizer.step()

            self._n_updates += 1
            if not continue_training:
                break
        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())

        def mean(values):
            return float(np.mean(torch.stack(values).numpy().astype(np.float64)))

        self.logger.record("train/entropy_loss", mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", mean(pg_losses))
        self.logger.record("train/value_loss", mean(value_losses))
        self.logger.record("train/approx_kl", mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)

    def _act(self, obs, masks):
        """Actions, values and log-probabilities of the masked policy for a batch of observations."""
        started = time.perf_counter()
        policy = self.policy
        with torch.no_grad():
            latent_pi, latent_vf = _latents(policy, torch.as_tensor(obs))
            values = policy.value_net(latent_vf).flatten()
            logits = policy.action_net(latent_pi)
            logits = torch.where(torch.as_tensor(masks), logits, torch.tensor(_HUGE_NEG, dtype=logits.dtype))
            log_probs_all = torch.log_softmax(logits, dim=-1)
            actions = torch.multinomial(log_probs_all.exp(), 1)
            log_probs = log_probs_all.gather(1, actions).flatten()
        self.timing["act"] += time.perf_counter() - started
        return actions.flatten().numpy(), values, log_probs

    def collect_rollouts(self, env, callback, rollout_buffer, n_rollout_steps, use_masking=True):
        if not isinstance(env, FifthAvenueVecEnv) or not use_masking:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        assert self._last_obs is not None, "No previous observation was provided"
        self.policy.set_training_mode(False)
        rollout_buffer.reset()
        callback.on_rollout_start()

        n = env.num_envs
        slices = env.slices
        obs = self._last_obs
        masks = env.action_masks()
        actions = np.zeros(n, dtype=np.int64)
        values = torch.zeros(n)
        log_probs = torch.zeros(n)
        for k, part in enumerate(slices):
            actions[part], values[part], log_probs[part] = self._act(obs[part], masks[part])
            env.step_async_shard(k, actions[part])

        n_steps = 0
        while n_steps < n_rollout_steps:
            last = n_steps + 1 == n_rollout_steps
            new_obs = np.empty_like(obs)
            new_masks = np.empty_like(masks)
            rewards = np.zeros(n, dtype=np.float32)
            dones = np.zeros(n, dtype=bool)
            infos = [None] * n
            next_actions = np.zeros(n, dtype=np.int64)
            next_values = torch.zeros(n)
            next_log_probs = torch.zeros(n)
            for k, part in enumerate(slices):
                started = time.perf_counter()
                new_obs[part], rewards[part], dones[part], infos[part], new_masks[part] = env.step_wait_shard(k)
                self.timing["wait"] += time.perf_counter() - started
                if not last:
                    next_actions[part], next_values[part], next_log_probs[part] = self._act(new_obs[part],
                                                                                            new_masks[part])
                    env.step_async_shard(k, next_actions[part])

            self.num_timesteps += n
            callback.update_locals(locals())
            if not callback.on_step():
                return False
            self._update_info_buffer(infos, dones)
            n_steps += 1

            # Truncated games: bootstrap with the value of their last observation (as sb3 does).
            for i in np.flatnonzero(dones):
                if infos[i].get("TimeLimit.truncated", False):
                    terminal = torch.as_tensor(infos[i]["terminal_observation"][None])
                    with torch.no_grad():
                        rewards[i] += self.gamma * self.policy.predict_values(terminal)[0].item()

            rollout_buffer.add(obs, actions.reshape(-1, 1), rewards, self._last_episode_starts, values, log_probs,
                               action_masks=masks)
            obs, masks = new_obs, new_masks
            actions, values, log_probs = next_actions, next_values, next_log_probs
            self._last_obs = new_obs
            self._last_episode_starts = dones

        with torch.no_grad():
            last_values = self.policy.predict_values(torch.as_tensor(obs))
        rollout_buffer.compute_returns_and_advantage(last_values=last_values, dones=dones)
        callback.on_rollout_end()
        return True
