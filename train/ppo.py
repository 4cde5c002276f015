"""MaskablePPO whose rollouts overlap the learner's forward passes with the games' steps.

``PipelinedMaskablePPO`` is sb3-contrib's ``MaskablePPO`` (same update, same
rollout buffer, same saved files) with two changes to how time is spent, not to
what is computed:

- On a ``fifthave.train.vec_env.FifthAvenueVecEnv`` (on the CPU), the rollout is a
  pipeline: each shard of games, once stepped, also runs the learner's policy on
  its new observations (``fifthave.train.policy_forward.RolloutForward``, in the worker
  process next to the games, with the weights sent at the start of the rollout);
  this process only draws that shard's next actions and sends them while the other
  shards are still stepping. Actions are drawn from the masked policy as
  ``MaskablePPO`` defines it (logits of illegal actions set to -1e8, a categorical
  draw with torch's generator, by inverse CDF), without building sb3's
  distribution objects for every step. Callbacks see every step as usual; a
  callback that talks to the env (a new self-play pool) takes effect one step
  later in the shards already stepping.
- The update (``train()``) computes what ``MaskablePPO.train`` computes (clipped
  surrogate, value loss with optional ``clip_range_vf``, entropy of the masked
  distribution, ``target_kl`` early stop, ``max_grad_norm``, the same logger keys)
  without sb3's per-minibatch distribution objects: the masked log-softmax is taken
  on the logits directly, and the rollout is turned into tensors once, not per
  minibatch. With sb3's MLP policy, the first layers of the policy and value
  networks multiply only the observation entries that are nonzero somewhere in
  the rollout (a quarter of them never are in a 4-player game); the others add
  exactly nothing to the products and get a zero gradient, as in the full
  product. tanh is computed as 2 sigmoid(2x) - 1 and the entropy's probabilities
  by softmax (the same functions; torch's CPU kernels for tanh, and for exp on
  -1e8, are several times slower). ``tests/train/test_ppo.py`` checks the weights against
  ``MaskablePPO.train`` on the same rollout. Adam runs fused (same formula, one
  kernel). The update may use ``update_threads`` torch threads: the games wait
  during the update, so both cores can work on it.

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
from stable_baselines3.common.utils import explained_variance

from .policy_forward import RolloutForward, mlp_first_layers, policy_latents
from .vec_env import FifthAvenueVecEnv

_HUGE_NEG = -1e8  # what sb3-contrib's MaskableCategorical gives an illegal action


class _Tanh(torch.autograd.Function):
    """tanh as 2 sigmoid(2x) - 1: the same function (to float rounding), and several times cheaper than torch's
    CPU tanh kernel; the gradient is tanh's, from the output."""

    @staticmethod
    def forward(ctx, x):
        y = torch.sigmoid(2 * x).mul_(2).sub_(1)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return torch.ops.aten.tanh_backward(grad, y)


def _run_layers(layers, x):
    """``layers(x)`` for a ``Sequential``, with ``_Tanh`` for its ``Tanh`` modules."""
    for layer in layers:
        x = _Tanh.apply(x) if type(layer) is torch.nn.Tanh else layer(x)
    return x


class PipelinedMaskablePPO(MaskablePPO):
    update_threads = 1
    """Most torch threads for the update (the games are idle then): it runs with 1 or with this many, whichever
    ran faster lately (``_threads_for_update``). The rollout's forward passes use the threads torch has outside
    it."""

    RETRY_EVERY = 8
    """Updates between two tries of the thread count not in use (the machine's load changes)."""

    def _setup_model(self):
        super()._setup_model()
        self._update_seconds = {}  # threads -> seconds of the last update run with them
        self._updates_since_try = 0
        self.timing = dict.fromkeys(("forward", "act", "wait", "update"), 0.0)
        """Seconds this process spent on forward passes (those not run in the workers), drawing actions, waiting
        for the games (and the workers' forward passes), and updating (``scripts/bench_training.py`` prints
        them)."""

    def _excluded_save_params(self):
        return [*super()._excluded_save_params(), "timing", "_update_seconds", "_updates_since_try"]

    def _threads_for_update(self):
        """1 or ``update_threads``: on an idle machine two threads share the update's products, on a busy one
        threads that wait for each other can make it several times slower. Each count is tried, then the faster
        is used and the other tried again every ``RETRY_EVERY`` updates. The weights do not depend on the choice
        (``tests/train/test_ppo.py`` checks that 1 and 2 threads update alike), so runs stay reproducible."""
        candidates = sorted({1, max(1, self.update_threads)})
        untried = [n for n in candidates if n not in self._update_seconds]
        if untried:
            return untried[0]
        best = min(candidates, key=self._update_seconds.get)
        if len(candidates) > 1 and self._updates_since_try >= self.RETRY_EVERY:
            self._updates_since_try = 0
            return next(n for n in candidates if n != best)
        self._updates_since_try += 1
        return best

    def train(self):
        threads = torch.get_num_threads()
        update_threads = self._threads_for_update()
        torch.set_num_threads(update_threads)
        started = time.perf_counter()
        try:
            self._use_fused_adam()
            if self._fast_update_applies():
                self._train_fast()
            else:
                super().train()
        finally:
            torch.set_num_threads(threads)
            self._update_seconds[update_threads] = time.perf_counter() - started
            self.timing["update"] += self._update_seconds[update_threads]

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
        first_layers = mlp_first_layers(policy)
        observations = data["observations"]
        if first_layers is not None:
            # Observation entries that are zero in the whole rollout contribute nothing: drop their columns.
            active = torch.nonzero(observations.ne(0).any(0)).flatten()
            observations = observations.index_select(1, active).contiguous()
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
                if first_layers is not None:
                    first_pi, first_vf = first_layers
                    latent_pi = _run_layers(rest_pi, F.linear(obs, first_pi.weight.index_select(1, active),
                                                              first_pi.bias))
                    latent_vf = _run_layers(rest_vf, F.linear(obs, first_vf.weight.index_select(1, active),
                                                              first_vf.bias))
                else:
                    latent_pi, latent_vf = policy_latents(policy, obs)
                values = policy.value_net(latent_vf).flatten()
                logits = torch.where(data["legal"].index_select(0, batch), policy.action_net(latent_pi), huge_neg)
                log_probs_all = torch.log_softmax(logits, dim=-1)
                log_prob = log_probs_all.gather(1, data["actions"].index_select(0, batch)[:, None]).flatten()
                # Illegal actions have probability exactly 0, so they add 0 (and no gradient) to the entropy.
                # (softmax, not exp of the log-probabilities: the same numbers, and exp is slow on the -1e8s)
                entropy = -(torch.softmax(logits, dim=-1) * log_probs_all).sum(-1)

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

    def _draw(self, logits, masks):
        """Actions drawn from the masked policy with these logits (illegal logits set to -1e8 as in
        ``MaskablePPO``, each legal action with its softmax probability, from torch's generator) and their
        log-probabilities."""
        started = time.perf_counter()
        with torch.no_grad():
            logits = torch.where(torch.as_tensor(masks), logits, torch.tensor(_HUGE_NEG, dtype=logits.dtype))
            probs = torch.softmax(logits, dim=-1)
            cdf = probs.cumsum(dim=-1)
            # The first action whose cumulative probability exceeds the draw: one with a positive probability.
            # torch.rand gives multiples of 2**-24 below 1, so the draw stays below the total after rounding.
            actions = torch.searchsorted(cdf, torch.rand(len(cdf), 1) * cdf[:, -1:], side="right")
            log_probs = torch.log_softmax(logits, dim=-1).gather(1, actions).flatten()
        self.timing["act"] += time.perf_counter() - started
        return actions.flatten().numpy(), log_probs

    def collect_rollouts(self, env, callback, rollout_buffer, n_rollout_steps, use_masking=True):
        if not isinstance(env, FifthAvenueVecEnv) or not use_masking or self.device.type != "cpu":
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        assert self._last_obs is not None, "No previous observation was provided"
        self.policy.set_training_mode(False)
        env.set_learner_policy(self.policy)
        rollout_buffer.reset()
        callback.on_rollout_start()

        n = env.num_envs
        slices = env.slices
        obs = self._last_obs
        masks = env.action_masks()
        actions = np.zeros(n, dtype=np.int64)
        values = torch.zeros(n)
        log_probs = torch.zeros(n)
        forward = RolloutForward(self.policy)
        for k, part in enumerate(slices):
            started = time.perf_counter()
            logits, shard_values = map(torch.from_numpy, forward(obs[part]))
            values[part] = shard_values
            self.timing["forward"] += time.perf_counter() - started
            actions[part], log_probs[part] = self._draw(logits, masks[part])
            env.step_async_shard(k, actions[part], forward=n_rollout_steps > 1)

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
                result = env.step_wait_shard(k)
                self.timing["wait"] += time.perf_counter() - started
                new_obs[part], rewards[part], dones[part], infos[part], new_masks[part] = result[:5]
                if not last:  # the shard ran the policy on its new observations (``forward=True``)
                    logits, shard_values = map(torch.from_numpy, result[5:])
                    next_values[part] = shard_values
                    next_actions[part], next_log_probs[part] = self._draw(logits, new_masks[part])
                    env.step_async_shard(k, next_actions[part], forward=n_steps + 2 < n_rollout_steps)

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
