"""Does PPO learn more from layout 1 (the derived views) than from layout 0? The default run on both, over seeds.

Run: ``.venv/bin/python scripts/compare_layouts.py [--seeds 10] [--total-timesteps N] [--games 200] [--greedy]
[--eval-seed 77] [--opponents random heuristic] [--out runs/layouts]``

For each seed 0..N-1 and observation layout 0 and 1 it trains ``fifthave.train.train``'s default config (4 players,
random opponents, 200k steps unless ``--total-timesteps`` says otherwise; ``train/configs/ppo_vs_random.json``) with
that seed and ``observation_layout`` into ``OUT/vV/seedS`` (a finished run there is reused), then plays its
final checkpoint against three of each opponent (``--games`` seat-rotated games each, tournament seed
``--eval-seed``; the policy samples its moves, as ``policy:PATH`` does, or with ``--greedy`` plays its most
likely one, as the runs' own evaluations do). It prints every seed's win rate, each layout's mean over seeds
with a 95% interval (Student t over seeds: a seed is the independent unit, its games are not) and the
difference layout 1 - layout 0 (bootstrap over the seeds of each layout independently: a seed's two runs share
nothing but the number). About 20 minutes on 2 cores for 10 seeds of 100k steps. ``results/default_run``:
``--seeds 20 --total-timesteps 100000 --games 1000 --greedy --eval-seed 777 --opponents random``.
"""

import argparse
import os

import numpy as np

from fifthave.agents.stats import clustered_mean_interval, paired_difference
from fifthave.agents.tournament import agent_factory, run_tournament
from fifthave.train.checkpoint import checkpoint_path
from fifthave.train.config import load_config
from fifthave.train.policy_agent import PolicyFactory
from fifthave.train.train import DEFAULT_CONFIG, train

LAYOUTS = (0, 1)


def trained(config):
    """The final checkpoint of ``config``'s run, training it first unless it is there."""
    final = checkpoint_path(config.run_dir, config.total_timesteps)
    if not os.path.exists(final):
        train(config, show_progress=False)
    return final


def win_rate(checkpoint, opponent, games, greedy, seed, workers):
    lineup = [("ppo", PolicyFactory(checkpoint, deterministic=greedy))] + [(opponent, agent_factory(opponent))] * 3
    return run_tournament(lineup, games=games, seed=seed, workers=workers).row("ppo")["win_rate"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10, help="training seeds per layout (0..N-1)")
    parser.add_argument("--total-timesteps", type=int, help="training steps per run (default: the config's)")
    parser.add_argument("--games", type=int, default=200, help="evaluation games per checkpoint and opponent")
    parser.add_argument("--greedy", action="store_true", help="the policy plays its most likely moves")
    parser.add_argument("--eval-seed", type=int, default=77, help="the evaluation tournaments' seed")
    parser.add_argument("--opponents", nargs="+", default=["random", "heuristic"], help="evaluation opponents")
    parser.add_argument("--out", default="runs/layouts", help="where the runs go (OUT/vV/seedS)")
    parser.add_argument("--workers", type=int, default=2, help="processes for the evaluation games")
    args = parser.parse_args(argv)
    for opponent in args.opponents:
        agent_factory(opponent)  # an unknown name fails here, not after the training runs
    rates = {}
    for layout in LAYOUTS:
        for seed in range(args.seeds):
            config = load_config(DEFAULT_CONFIG, {"seed": seed, "observation_layout": layout,
                                                  "total_timesteps": args.total_timesteps,
                                                  "run_dir": os.path.join(args.out, f"v{layout}", f"seed{seed}")})
            checkpoint = trained(config)
            for opponent in args.opponents:
                rates.setdefault((layout, opponent), []).append(win_rate(checkpoint, opponent, args.games,
                                                                         args.greedy, args.eval_seed, args.workers))
    print(f"Default config (4 players, random opponents, {config.total_timesteps} steps), seeds 0-{args.seeds - 1}; "
          f"win rate of the final policy ({'most likely moves' if args.greedy else 'sampled moves'}) "
          f"in {args.games} games "
          f"(seed {args.eval_seed}) against three of each opponent (fair share 0.25)")
    for opponent in args.opponents:
        for layout in LAYOUTS:
            values = np.asarray(rates[(layout, opponent)])
            mean, low, high = clustered_mean_interval(values, np.ones(len(values)))
            print(f"layout {layout} vs {opponent}: {' '.join(f'{v:.3f}' for v in values)}; "
                  f"mean {mean:.3f} [{low:.3f}, {high:.3f}], lowest {values.min():.3f}")
        compared = paired_difference(rates[(0, opponent)], rates[(1, opponent)])
        print(f"layout 1 - layout 0 vs {opponent}: {compared['difference']:+.3f} "
              f"[{compared['unpaired_ci_low']:+.3f}, {compared['unpaired_ci_high']:+.3f}]")


if __name__ == "__main__":
    main()
