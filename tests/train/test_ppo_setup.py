"""A new PipelinedMaskablePPO starts with nothing timed and no update thread count tried (its _setup_model;
scripts/bench_training.py prints these timers: a timer that started above 0 would inflate every figure), and
its own collect_rollouts counts timesteps as sb3's does."""

import json
import time

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from fifthave.train.ppo import PipelinedMaskablePPO  # noqa: E402
from fifthave_env.gym_env import FifthAvenueEnv  # noqa: E402


def test_a_new_model_has_its_four_timers_at_zero_and_no_update_timing():
    env = DummyVecEnv([lambda: FifthAvenueEnv(num_players=2)])
    model = PipelinedMaskablePPO("MlpPolicy", env, n_steps=8, batch_size=8, seed=0, device="cpu",
                                 policy_kwargs={"net_arch": [8]})
    assert model.timing == {"forward": 0.0, "act": 0.0, "wait": 0.0, "update": 0.0}
    assert model._update_seconds == {} and model._updates_since_try == 0


def _pipelined(n_steps=4, callback=None):
    """A model on 2 two-player games of FifthAvenueVecEnv (in this process), ready to collect, and its callback."""
    from fifthave.train.opponents import ScriptedOpponents
    from fifthave.train.vec_env import FifthAvenueVecEnv

    env = FifthAvenueVecEnv(2, dict(num_players=2), ScriptedOpponents(["random"]), workers=0)
    model = PipelinedMaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=8, seed=0, device="cpu",
                                 policy_kwargs={"net_arch": [8]})
    _, callback = model._setup_learn(100, callback)
    return env, model, callback


class _StepTypes(BaseCallback):
    """Records the types of the step's rewards and dones a callback sees."""

    def _on_step(self):
        self.types = (self.locals["rewards"].dtype, self.locals["dones"].dtype)
        return True


def test_each_rollout_adds_its_steps_times_the_envs_to_the_timestep_count():
    # sb3's collect_rollouts: num_timesteps += env.num_envs per step, the count learn() stops on (a count
    # set instead of added would never reach total_timesteps: the run would never end)
    env, model, callback = _pipelined()
    for rollout in (1, 2):
        assert model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
        assert model.num_timesteps == rollout * 4 * 2
    env.close()


def _rollout_of(model_class, use_masking=True, seed=3):
    env = DummyVecEnv([lambda: FifthAvenueEnv(num_players=2)])
    env.seed(seed)
    model = model_class("MlpPolicy", env, n_steps=16, batch_size=16, seed=seed, device="cpu",
                        policy_kwargs={"net_arch": [8]})
    _, callback = model._setup_learn(100, None)
    assert model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps, use_masking)
    return model


@pytest.mark.parametrize("use_masking", [True, False])
def test_on_another_vec_env_a_rollout_is_sb3_contribs_own(use_masking):
    # only FifthAvenueVecEnv has the pipelined path; any other vec env gets MaskablePPO.collect_rollouts,
    # with every argument passed on: the same buffer, step for step, as sb3-contrib's class gives (unmasked:
    # actions drawn from the whole softmax, and the buffer's masks left all ones)
    from sb3_contrib import MaskablePPO

    ours, theirs = _rollout_of(PipelinedMaskablePPO, use_masking), _rollout_of(MaskablePPO, use_masking)
    for field in ("observations", "actions", "rewards", "episode_starts", "values", "log_probs", "action_masks"):
        assert (getattr(ours.rollout_buffer, field) == getattr(theirs.rollout_buffer, field)).all(), field
    assert ours.rollout_buffer.action_masks.all() != use_masking  # the test tells masked from unmasked
    assert ours.timing["forward"] == 0.0  # the pipelined path did not run


@pytest.mark.parametrize("use_masking", [True, False])
def test_the_pipelined_path_runs_on_fifthaves_vec_env_with_masking_on_the_cpu_only(use_masking):
    env, model, callback = _pipelined()
    assert model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps, use_masking)
    assert (model.timing["forward"] > 0) == use_masking  # unmasked rollouts are sb3-contrib's
    env.close()


def test_a_saved_model_holds_maskableppos_attributes_and_loads_with_fresh_timers(tmp_path):
    # _excluded_save_params: the timers and the update thread timings describe one process's run, not the model;
    # a saved file holds exactly what MaskablePPO's holds, and a loaded model starts them afresh
    import zipfile

    from sb3_contrib import MaskablePPO

    env = DummyVecEnv([lambda: FifthAvenueEnv(num_players=2)])
    saved = {}
    for model_class in (PipelinedMaskablePPO, MaskablePPO):
        model = model_class("MlpPolicy", env, n_steps=8, batch_size=8, seed=0, device="cpu",
                            policy_kwargs={"net_arch": [8]})
        if model_class is PipelinedMaskablePPO:
            model.timing["update"], model._update_seconds[1], model._updates_since_try = 2.5, 0.3, 4
        model.save(tmp_path / model_class.__name__)
        with zipfile.ZipFile(tmp_path / f"{model_class.__name__}.zip") as f:
            saved[model_class] = set(json.loads(f.read("data")))
    assert saved[PipelinedMaskablePPO] == saved[MaskablePPO]
    loaded = PipelinedMaskablePPO.load(tmp_path / "PipelinedMaskablePPO", device="cpu")
    assert loaded.timing == {"forward": 0.0, "act": 0.0, "wait": 0.0, "update": 0.0}
    assert loaded._update_seconds == {} and loaded._updates_since_try == 0


@pytest.mark.parametrize("n_steps", [1, 2, 3])
def test_a_shard_runs_the_policy_on_its_new_observations_only_for_the_next_steps_draw(n_steps, monkeypatch):
    # the pipeline: a step started with forward=True also returns the policy's outputs on the shard's new
    # observations, which the next step's actions are drawn from; the rollout's last step needs none
    env, model, callback = _pipelined(n_steps, _StepTypes())
    flags = []
    step_async_shard = env.step_async_shard

    def record(k, actions, forward=False):
        flags.append(forward)
        step_async_shard(k, actions, forward=forward)

    monkeypatch.setattr(env, "step_async_shard", record)
    model.policy.set_training_mode(True)
    model.timing["forward"] = model.timing["wait"] = 100.0  # seconds so far: the rollout adds its own
    started = time.perf_counter()
    assert model.collect_rollouts(env, callback, model.rollout_buffer, n_steps)
    elapsed = time.perf_counter() - started
    assert flags == [n_steps > 1] + [step + 2 < n_steps for step in range(n_steps - 1)]
    assert model.rollout_buffer.full and model.num_timesteps == 2 * n_steps
    assert not model.policy.training  # sb3 collects with the policy in evaluation mode
    assert 100.0 < model.timing["forward"] < 100.0 + elapsed and 100.0 < model.timing["wait"] < 100.0 + elapsed
    # a callback sees a VecEnv step's types (sb3's contract: float32 rewards, bool dones; a callback may index
    # with the dones)
    assert callback.types == (np.float32, bool)
    env.close()


def test_a_rollout_without_a_first_observation_is_refused_as_sb3_refuses_it():
    env, model, callback = _pipelined()
    model._last_obs = None
    with pytest.raises(AssertionError, match="^No previous observation was provided$"):
        model.collect_rollouts(env, callback, model.rollout_buffer, model.n_steps)
    env.close()


class _StopAtStep(BaseCallback):
    def _on_step(self):
        return self.n_calls < 2


def test_a_callback_that_stops_ends_the_rollout_there_and_collect_rollouts_says_so():
    # sb3: on_step() False -> collect_rollouts returns False at once (learn() then stops), the step counted
    env, model, callback = _pipelined(4, _StopAtStep())
    assert model.collect_rollouts(env, callback, model.rollout_buffer, 4) is False
    assert model.num_timesteps == 2 * 2 and model.rollout_buffer.pos == 1
    env.close()


class _StepRecord(BaseCallback):
    """Copies each step's rewards and infos as the env gave them (the rollout bootstraps truncated ones after)."""

    def _init_callback(self):
        self.steps = []

    def _on_step(self):
        self.steps.append((self.locals["rewards"].copy(), [dict(info) for info in self.locals["infos"]]))
        return True


@pytest.mark.parametrize("reward", ["win_loss", "score_delta"])
def test_a_truncated_game_gets_the_value_of_its_last_observation_added_to_its_reward_as_sb3_does(reward):
    # sb3's collect_rollouts: a done that is only a time limit is not the end of the return; its reward gets
    # gamma * V(terminal observation). Games cut at 5 turns (R29) truncate in every env of the rollout.
    from fifthave.train.opponents import ScriptedOpponents
    from fifthave.train.vec_env import FifthAvenueVecEnv

    # score_delta: the truncated step's own reward is not 0, so the value must be added to it, not replace it
    env = FifthAvenueVecEnv(3, dict(num_players=2, max_turns=5, reward=reward), ScriptedOpponents(["random"]),
                            workers=0)
    model = PipelinedMaskablePPO("MlpPolicy", env, n_steps=96, batch_size=8, seed=0, device="cpu", gamma=0.9,
                                 policy_kwargs={"net_arch": [8]})
    record = _StepRecord()
    _, callback = model._setup_learn(100, record)
    assert model.collect_rollouts(model.env, callback, model.rollout_buffer, model.n_steps)
    truncated, own_reward = 0, 0
    for step, (rewards, infos) in enumerate(record.steps):
        for i, info in enumerate(infos):
            expected = rewards[i]
            if info.get("TimeLimit.truncated", False):
                truncated += 1
                own_reward += rewards[i] != 0
                terminal = model.policy.obs_to_tensor(info["terminal_observation"])[0]
                expected += 0.9 * model.policy.predict_values(terminal)[0].item()
            assert model.rollout_buffer.rewards[step, i] == pytest.approx(expected, abs=1e-6), (step, i)
    assert truncated >= 3  # the test saw truncations to bootstrap
    assert own_reward > 0 or reward == "win_loss"
    env.close()
