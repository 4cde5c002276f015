"""Training throughput: RLlib PPO with 1 and 2 env runners against our SB3 path, on the same budget.

    PYTHONPATH=. nice -n 10 python scripts/rllib_benchmark.py --steps 24000 --out results/rllib/throughput.json \
        [--address HOST:PORT] [--envs-per-runner 1 4] [--no-sb3]

The same PPO settings on both sides (rollouts of 4000 decisions: 8 envs x 500
steps in SB3, ``train_batch_size=4000`` in RLlib; minibatches of 500, 4 epochs,
two 256-unit layers). SB3 trains one seat against three random agents inside
the env (``fifthave.train.train``'s setup); RLlib trains the shared policy in
self-play (``fifthave.train.rllib``'s default setup; snapshots disabled; 1 and 4 games per
env runner, i.e. forward passes over batches of one or up to four), so a "training
step" is one decision that ends up in a training batch on both sides. Reported:
training steps per second of the whole loop (sampling + update) and, for RLlib,
of sampling alone (RLlib's own sampling timer). Every run starts in this
process after a warm-up iteration; the machine's load average is recorded
because it is shared.
"""

import argparse
import json
import os
import time


def sb3_rate(steps):
    import torch

    from fifthave.train.config import TrainConfig
    from fifthave.train.train import build_model, make_vec_env

    config = TrainConfig(n_envs=8, workers=0, n_steps=500, batch_size=500, n_epochs=4,
                         total_timesteps=steps, opponents=["random"])
    torch.set_num_threads(1)
    env = make_vec_env(config)
    model = build_model(config, env)
    model.learn(4000)  # warm-up rollout
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    seconds = time.perf_counter() - start
    env.close()
    return {"backend": "sb3 MaskablePPO (fifthave.train.train)", "env_runners": "-", "steps": steps,
            "seconds": round(seconds, 1), "train_steps_per_s": round(steps / seconds, 1)}


def rllib_rate(steps, runners, envs_per_runner):
    from ray.rllib.utils.metrics import (ENV_RUNNER_RESULTS, ENV_RUNNER_SAMPLING_TIMER, NUM_ENV_STEPS_SAMPLED,
                                         TIMERS)

    from fifthave.train.rllib.config import RLlibConfig
    from fifthave.train.rllib.train import ppo_config

    config = RLlibConfig(num_env_runners=runners, num_envs_per_env_runner=envs_per_runner, snapshot_every=0,
                         promote_win_rate=2.0, eval_games=0)
    algo = ppo_config(config).build_algo()
    algo.train()  # warm-up iteration
    start, sampled, sampling_seconds = time.perf_counter(), 0, 0.0
    while sampled < steps:
        result = algo.train()
        this_iter = int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED])
        sampled += this_iter
        sampling_seconds += result[TIMERS][ENV_RUNNER_SAMPLING_TIMER]  # RLlib's (smoothed) seconds per iteration
    seconds = time.perf_counter() - start
    algo.stop()
    return {"backend": "rllib PPO (fifthave.train.rllib)", "env_runners": runners, "envs_per_runner": envs_per_runner,
            "steps": sampled,
            "seconds": round(seconds, 1), "train_steps_per_s": round(sampled / seconds, 1),
            "sampling_steps_per_s": round(sampled / sampling_seconds, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=24000)
    parser.add_argument("--out")
    parser.add_argument("--address", help="join this Ray cluster instead of starting a local Ray")
    parser.add_argument("--envs-per-runner", type=int, nargs="+", default=[1, 4],
                        help="games each env runner steps at once (batched inference); each value is measured")
    parser.add_argument("--no-sb3", action="store_true", help="skip the SB3 reference")
    args = parser.parse_args()
    from fifthave.agents.ray_backend import init_ray

    rows = [] if args.no_sb3 else [sb3_rate(args.steps)]
    if rows:
        print(rows[-1], flush=True)
    init_ray(args.address, num_cpus=None if args.address else 3)
    for envs in args.envs_per_runner:
        for runners in (1, 2):
            rows.append(rllib_rate(args.steps, runners, envs))
            print(rows[-1], flush=True)
    report = {"rows": rows, "load_average_after": os.getloadavg(), "cpus": os.cpu_count()}
    print(json.dumps(report, indent=1))
    if args.out:
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
