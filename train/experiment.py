"""The reproducible experiment: win rate of the learned agent against RandomAgent and HeuristicAgent as it trains.

Command (documented in ``results/training/README.md``)::

    fifthave-experiment [--scale 1.0] [--config train/configs/experiment.json] [--out results/training]

It trains with the config and seed kept in the repo (``--scale`` multiplies the
step budget and the evaluation / checkpoint / snapshot intervals, so a larger
run keeps the same number of evaluation points), evaluating along the way, then
writes to ``--out``:

- ``results.csv``: one row per evaluation point and opponent (steps, games,
  win rate, Wilson 95% interval, mean VP and rank, the opponents' mean VP);
- ``README.md``: the same table, the exact command, the config, the measured
  throughput, versions and wall time (command and timing also in ``run.json``);
- ``win_rate.png``: win rate against the steps with the intervals shaded.

The default (``train/configs/experiment.json``, about 30 minutes on 2 CPU cores)
is 4-player self-play from scratch: each opponent seat is a past snapshot of the
learner or, with probability 0.4 (and always until the first snapshot), a
RandomAgent; HeuristicAgent is never a training opponent, only an evaluation
one. (Training directly against a mix with HeuristicAgent, which wins nearly
every game then, gave the learner almost no winning signal and its policy
drifted towards random play in our trials.)

``--resume`` continues an interrupted experiment; ``--report-only`` rewrites the
outputs from the run directory's ``eval.csv`` and ``--out``'s ``run.json``
without training.
"""

import argparse
import csv
import dataclasses
import json
import os
import shlex
import sys

from .checkpoint import atomic_write_bytes, versions
from .config import load_config
from .train import EVAL_FIELDS, format_table, read_eval_log, train

DEFAULT_CONFIG = os.path.join(os.path.dirname(__file__), "configs", "experiment.json")


def scaled(config, scale):
    """``config`` with the step budget and the evaluation / checkpoint / snapshot intervals times ``scale``."""
    if scale <= 0:
        raise ValueError(f"--scale must be positive, got {scale}")
    def times(steps):
        return max(1, round(steps * scale)) if steps else 0
    selfplay = config.selfplay
    if selfplay is not None:
        selfplay = dataclasses.replace(selfplay, snapshot_every=times(selfplay.snapshot_every))
    league = config.league
    if league is not None:
        league = dataclasses.replace(league, snapshot_every=times(league.snapshot_every))
    return dataclasses.replace(config, total_timesteps=times(config.total_timesteps), selfplay=selfplay, league=league,
                               eval_every=times(config.eval_every), checkpoint_every=times(config.checkpoint_every))


def plot(rows, config, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opponent]
        steps = [int(r["timesteps"]) for r in mine]
        ax.plot(steps, [float(r["win_rate"]) for r in mine], marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, [float(r["ci_low"]) for r in mine], [float(r["ci_high"]) for r in mine], alpha=0.2)
    ax.axhline(1 / config.num_players, color="gray", linestyle="--", linewidth=1,
               label=f"even share (1/{config.num_players})")
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1)
    training = "self-play" if config.selfplay is not None else "vs " + "/".join(dict.fromkeys(config.opponents))
    ax.set_title(f"MaskablePPO ({training}), {config.num_players} players, {config.board}-plot board, "
                 f"seed {config.seed}")
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _opponents_text(config):
    scripted = f"scripted opponents drawn per seat from {config.opponents}"
    sp = config.selfplay
    league = config.league
    if league is not None:
        return (f"a league sampled by prioritized fictitious self-play (weight (1 - win rate)^{league.pfsp_power}): "
                f"anchors {league.anchors} and up to {league.max_snapshots} snapshots of the learner "
                f"(one every {league.snapshot_every} steps); one entry plays all opponent seats of a game")
    if sp is None:
        return f"training against {scripted}"
    return (f"self-play: each opponent seat is one of the learner's past snapshots (pool of {sp.pool_size}, "
            f"a snapshot every {sp.snapshot_every} steps or when it wins {sp.promote_win_rate:.0%} of its last "
            f"{sp.promote_window} games), or with probability {sp.scripted_fraction} one of the {scripted}")


def write_report(config, out, run=None):
    """Write the table, plot and README to ``out``.

    ``run``: the command and timing of the training (saved as ``out/run.json``);
    None reuses ``out/run.json``, so a rewritten report keeps the command that made the results.
    """
    rows = read_eval_log(config.run_dir)
    os.makedirs(out, exist_ok=True)
    run_path = os.path.join(out, "run.json")
    if run is not None:
        atomic_write_bytes(run_path, json.dumps(run, indent=2).encode())
    elif not os.path.exists(run_path):
        raise FileNotFoundError(f"{run_path} does not exist: run the experiment (without --report-only) first")
    else:
        with open(run_path) as f:
            run = json.load(f)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, config, os.path.join(out, "win_rate.png"))
    lines = [
        "# Training results: MaskablePPO on FifthAvenue-v0", "",
        f"Command: `{run['command']}`", "",
        f"{config.num_players} players, {config.board}-plot board, seed {config.seed}, "
        f"{config.total_timesteps} env steps; {_opponents_text(config)}; "
        f"{config.eval_games} evaluation games per opponent and point (the learner rotates through the seats, "
        "every other seat plays the opponent; a win shared by k players counts 1/k); 95% Wilson intervals.", "",
        format_table(rows), "",
        "![win rate](win_rate.png)", "",
    ]
    lines += [f"Wall time {run['wall_seconds']:.0f} s ({run['eval_seconds']:.0f} s of it evaluation); "
              f"training throughput {run['steps_per_second']:.0f} env steps/s on this machine.", ""]
    lines += ["Versions: " + ", ".join(f"{k} {v}" for k, v in versions().items()), "",
              "Config:", "", "```json", json.dumps(config.to_dict(), indent=2), "```", ""]
    atomic_write_bytes(os.path.join(out, "README.md"), "\n".join(lines).encode())
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(prog="fifthave-experiment", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=DEFAULT_CONFIG, help=f"JSON TrainConfig (default {DEFAULT_CONFIG})")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the step budget (default 1.0)")
    parser.add_argument("--run-dir", help="training output directory (default: the config's run_dir)")
    parser.add_argument("--out", default=os.path.join("results", "training"), help="where the table and plot go")
    parser.add_argument("--resume", action="store_true", help="continue an interrupted experiment")
    parser.add_argument("--report-only", action="store_true", help="rewrite the outputs from the run's eval.csv")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    config = scaled(load_config(args.config, {"run_dir": args.run_dir}), args.scale)
    run = None
    if not args.report_only:
        result = train(config, resume=args.resume, show_progress=not args.no_progress)
        command = "fifthave-experiment " + shlex.join(argv if argv is not None else sys.argv[1:])
        run = {"command": command.strip(), "steps": result.steps, "wall_seconds": result.wall_seconds,
               "eval_seconds": result.eval_seconds, "steps_per_second": result.steps_per_second}
    rows = write_report(config, args.out, run)
    print(format_table(rows))
    print(f"\nwritten: {args.out}/results.csv, README.md, win_rate.png, run.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
