"""Time ``scripts/candidate_effects.py``'s effect features per decision, against the replay (labelling search) they
ride on, in one process:

    PYTHONPATH=$PWD:$PWD/scripts python scripts/bench_candidate_effects.py runs/values-all-4p-r6 --games 10
"""

import argparse
import time

import numpy as np

import candidate_effects
from fifthave.train.config import load_run_config


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--games", type=int, default=10, help="first N held-out games")
    args = parser.parse_args()
    config = load_run_config(f"{args.run_dir}/run_config.json").trainer_config(args.run_dir)
    rng = np.random.default_rng([config.seed, 0xCA])
    seeds = [int(s) for s in rng.integers(2**63, size=config.held_out_games)][:args.games]
    features = candidate_effects.effect_features
    for follow_up in (False, True):
        spent, calls = 0.0, 0

        def timed(*args):
            nonlocal spent, calls
            started = time.perf_counter()
            result = features(*args)
            spent, calls = spent + time.perf_counter() - started, calls + 1
            return result

        candidate_effects.effect_features = timed
        started = time.perf_counter()
        for seed in seeds:
            candidate_effects.replay(config, seed, follow_up)
        total = time.perf_counter() - started
        print(f"follow_up={follow_up}: {calls} decisions, effect features {1000 * spent / calls:.2f} ms a decision "
              f"(the determinization not included), {spent / total:.0%} of the replay's {total:.1f} s")
    candidate_effects.effect_features = features


if __name__ == "__main__":
    main()
