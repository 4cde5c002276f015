"""Training throughput as a ratio to MaskablePPO's own cost, measured back to back.

Run: ``.venv/bin/python scripts/bench_training.py [--rollouts 3] [--repeats 3]``

Reference: sb3-contrib's ``MaskablePPO`` on a do-nothing env with the measured config's
observation and action spaces (its ``observation_layout``), the same PPO settings as the training config
(``n_envs``, ``n_steps``, ``batch_size``, ``n_epochs``, ``net_arch``), sb3's
``DummyVecEnv`` and one torch thread: what the learner alone costs per step on one
core. Measured runs (``fifthave.train.train.build_model`` / ``make_vec_env``, the code
``fifthave.train.train`` runs):

- ``default``: ``train/configs/ppo_vs_random.json`` (4 players, random opponents);
- ``selfplay``: ``train/configs/selfplay_experiment.json`` with its pool full
  (``pool_size`` snapshots of the learner);
- ``selfplay-all-policies``: the same with every opponent seat a snapshot
  (``scripted_fraction`` 0).

Each measurement times ``--rollouts`` rollouts after one warm-up rollout; each
run is measured right after a reference measurement, ``--repeats`` times, and the
median of the ratios is printed (the machine may be shared: medians of pairs taken
close together, not absolute rates, are what to compare). Time split of a measured
run: in the learner's process, drawing the actions, waiting for the workers, the PPO
update; in the workers (summed over them), the games and the learner policy's forward
passes; and the games alone (random learner actions, no network).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import fifthave.train  # noqa: E402, F401  (first: it sets how long torch's OpenMP threads spin while they wait)

import gymnasium as gym  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

from fifthave_env.engine.actions import NUM_ACTIONS  # noqa: E402
from fifthave_env.gym_env import FifthAvenueEnv  # noqa: E402
from fifthave.train.checkpoint import save_checkpoint  # noqa: E402
from fifthave.train.config import load_config  # noqa: E402
from fifthave.train.opponents import PoolOpponents  # noqa: E402
from fifthave.train.train import build_model, make_vec_env  # noqa: E402

CONFIGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "train", "configs")


class DoNothingEnv(gym.Env):
    """FifthAvenueEnv's spaces for an observation layout, a constant observation, every action legal,
    130-step episodes."""

    def __init__(self, observation_layout):
        spaces_of = FifthAvenueEnv(observation_layout=observation_layout)
        self.observation_space, self.action_space = spaces_of.observation_space, spaces_of.action_space
        self.observation = np.zeros(self.observation_space.shape, dtype=np.float32)
        self.mask = np.ones(NUM_ACTIONS, dtype=bool)
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self.observation, {}

    def step(self, action):
        self.t += 1
        return self.observation, 0.0, self.t >= 130, False, {}

    def action_masks(self):
        return self.mask


def reference_model(config):
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    env = DummyVecEnv([lambda: DoNothingEnv(config.observation_layout)] * config.n_envs)
    return MaskablePPO("MlpPolicy", env, n_steps=config.n_steps, batch_size=config.batch_size,
                       n_epochs=config.n_epochs, gamma=config.gamma, seed=config.seed, device="cpu",
                       policy_kwargs={"net_arch": {"pi": list(config.net_arch), "vf": list(config.net_arch)}})


def rate(model, rollouts):
    """Env steps per second over ``rollouts`` rollouts (after the one ``learn`` already ran)."""
    steps = rollouts * model.n_steps * model.n_envs
    torch.set_num_threads(1)
    started = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - started)


def fill_pool(model, config, directory):
    paths = []
    for k in range(config.selfplay.pool_size):
        path = os.path.join(directory, f"snapshot_{k}.zip")
        save_checkpoint(model, path, config)
        paths.append(path)
    return paths


def setup(name, directory, overrides):
    overrides = {"run_dir": directory, **overrides}
    if name == "default":
        config = load_config(os.path.join(CONFIGS, "ppo_vs_random.json"), overrides)
    else:
        config = load_config(os.path.join(CONFIGS, "selfplay_experiment.json"), overrides)
    env = make_vec_env(config)
    model = build_model(config, env)
    if name != "default":
        fraction = 0.0 if name == "selfplay-all-policies" else config.selfplay.scripted_fraction
        sampler = PoolOpponents(config.opponents, fill_pool(model, config, directory), fraction)
        env.env_method("set_opponents", sampler)
    model.learn(model.n_steps * model.n_envs)  # warm-up: workers start, every game meets the new opponents
    return config, env, model


def env_alone(env, seconds=3.0):
    rng = np.random.default_rng(0)
    env.reset()
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        masks = env.action_masks()
        env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        steps += env.num_envs
    return steps / (time.perf_counter() - started)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rollouts", type=int, default=3, help="rollouts per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="reference/run pairs per run")
    parser.add_argument("--runs", nargs="+", default=["default", "selfplay", "selfplay-all-policies"])
    parser.add_argument("--workers", type=int, help="override the configs' workers")
    parser.add_argument("--torch-threads", type=int, help="override the configs' update threads")
    parser.add_argument("--n-envs", type=int, help="override the configs' n_envs")
    parser.add_argument("--local-shard", type=int, choices=(0, 1), help="override the configs' local_shard")
    parser.add_argument("--n-steps", type=int, help="override the configs' n_steps")
    parser.add_argument("--observation-layout", type=int, choices=(0, 1), help="override the configs' layout")
    args = parser.parse_args(argv)
    overrides = {"workers": args.workers, "torch_threads": args.torch_threads, "n_envs": args.n_envs,
                 "n_steps": args.n_steps, "observation_layout": args.observation_layout,
                 "local_shard": None if args.local_shard is None else bool(args.local_shard)}
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores; other jobs share the machine)")
    for name in args.runs:
        with tempfile.TemporaryDirectory() as directory:
            config, env, model = setup(name, directory, overrides)
            reference = reference_model(config)
            reference.learn(reference.n_steps * reference.n_envs)
            ratios, ours, theirs = [], [], []
            model.timing = dict.fromkeys(model.timing, 0.0)
            workers_before = env.worker_seconds()
            for _ in range(args.repeats):
                ref = rate(reference, args.rollouts)
                run = rate(model, args.rollouts)
                ratios.append(run / ref)
                ours.append(run)
                theirs.append(ref)
            spent = model.timing
            workers = {key: value - workers_before[key] for key, value in env.worker_seconds().items()}
            total = args.repeats * args.rollouts * model.n_steps * model.n_envs
            games = env_alone(env)
            env.close()
        print(f"\n{name}: {config.num_players} players, layout {config.observation_layout}, n_envs {config.n_envs}, "
              f"workers {config.workers}, "
              f"n_steps {config.n_steps}, batch {config.batch_size}, epochs {config.n_epochs}, "
              f"net {config.net_arch}, update threads {config.torch_threads}")
        print(f"  reference (MaskablePPO, do-nothing env, 1 core): {statistics.median(theirs):7.0f} steps/s "
              f"(runs: {', '.join(f'{x:.0f}' for x in theirs)})")
        print(f"  this run:                                       {statistics.median(ours):7.0f} steps/s "
              f"(runs: {', '.join(f'{x:.0f}' for x in ours)})")
        print(f"  ratio, median of {args.repeats} pairs: {statistics.median(ratios):.2f}x "
              f"({', '.join(f'{x:.2f}' for x in ratios)})")
        per_1000 = {key: value / total * 1e6 for key, value in {**spent, **workers}.items()}
        print(f"  learner process, ms per 1000 steps: drawing actions {per_1000['act'] + per_1000['forward']:.0f}, "
              f"waiting for the workers {per_1000['wait']:.0f}, update {per_1000['update']:.0f}")
        print(f"  workers, ms per 1000 steps (summed over workers): games {per_1000['games']:.0f}, "
              f"the learner's forward passes {per_1000['learner_forward']:.0f}")
        print(f"  the games alone (random learner actions, {config.workers} workers): {games:.0f} steps/s "
              f"= {1e6 / games:.0f} ms per 1000 steps")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
