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
- The update (``train()``) may use ``update_threads`` torch threads: the games
  wait during the update, so both cores can work on it.

Any other env falls back to ``MaskablePPO.collect_rollouts``.
"""

import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from .vec_env import FifthAvenueVecEnv

_HUGE_NEG = -1e8  # what sb3-contrib's MaskableCategorical gives an illegal action


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
            super().train()
        finally:
            torch.set_num_threads(threads)
            self.timing["update"] += time.perf_counter() - started

    def _act(self, obs, masks):
        """Actions, values and log-probabilities of the masked policy for a batch of observations."""
        started = time.perf_counter()
        policy = self.policy
        with torch.no_grad():
            features = policy.extract_features(torch.as_tensor(obs))
            if policy.share_features_extractor:
                latent_pi, latent_vf = policy.mlp_extractor(features)
            else:
                latent_pi = policy.mlp_extractor.forward_actor(features[0])
                latent_vf = policy.mlp_extractor.forward_critic(features[1])
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
