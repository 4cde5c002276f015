"""The reproducible experiment: win rate of the learned agent against RandomAgent and HeuristicAgent as it trains.

Command (documented in ``results/training/README.md``)::

    python -m fifthave.train.experiment [--scale 1.0] [--config train/configs/bc_search_advised.json] [--run-dir DIR] [--publish]

It trains with the config and seed kept in the repo, evaluating along the way,
into a new run directory (the config's ``run_dir`` with the date and time appended,
``runs/recipe-<date>-<time>``, unless ``--run-dir`` names one), and writes there:

- ``results.csv``: one row per evaluation point and opponent (steps, games,
  win rate with its 95% interval clustered by deal, mean VP and rank, the opponents' mean VP,
  truncated games);
- ``README.md``: the same table with the fair share (1 / players), the exact command, the config, the measured
  wall time and throughput, the final weights' hash, versions (command, timing and
  hash also in ``run.json``);
- ``win_rate.png``: win rate against the steps with the intervals shaded.

``--publish`` also copies them to ``--out`` (default ``results/training``) with
``policy.zip``, the final policy without optimizer state
(``fifthave.train.checkpoint.export_policy``), and ``policy.npz``, its agent file (``fifthave.train.export``), playable as
``results/training/policy.npz``
in ``fifthave tournament`` and ``fifthave play``. Nothing in ``results/`` changes
without ``--publish``.

``--scale`` multiplies the step budget, the evaluation / checkpoint / snapshot
intervals (so a larger run keeps the same number of evaluation points), the
evaluation games and the behaviour cloning's games (the recipe's budget). Before
training the command states how long the run should take, from the throughput (or,
for cloning alone, the time per game) of the published run (``--out``'s ``run.json``);
at the end it prints how long it took. The same command and seed give the same table and
weights hash, also after ``--resume --run-dir DIR`` continues an interrupted run;
``--report-only --run-dir DIR`` rewrites the outputs from the run's ``eval.csv``.

The default (``train/configs/bc_search_advised.json``) is the committed 4-player experiment, the one
``results/training`` publishes: a network cloned from the search agent ``search:4:1`` with the
heuristic's advice as a feature, 1,500 games and one DAgger round, no PPO (about half an hour on
2 cores; ``fifthave publish recipe`` adds the 1,000-game evaluation). ``--config
train/configs/selfplay_experiment.json`` is 4-player PPO self-play from scratch on observation layout 1: each opponent seat is a
past snapshot of the learner or, with probability 0.4 (and always until the first snapshot), a
RandomAgent; HeuristicAgent is never a training opponent, only an evaluation one. (Training
directly against a mix with HeuristicAgent, which wins nearly every game then, gave the learner
almost no winning signal and its policy drifted towards random play in our trials.) Publish
another config with its own ``--out``: the default ``--out`` holds the committed experiment.
"""

import argparse
import csv
import dataclasses
import json
import os
import shlex
import shutil
import sys
import time

from fifthave_env.engine import checks
from fifthave_env.runtime import atomic_open

from .checkpoint import CheckpointError, atomic_write_bytes, export_policy, latest_checkpoint, versions
from .export import export_checkpoint
from .config import load_config
from .evaluate import EVAL_FIELDS, format_table, read_eval_log
from .train import train

DEFAULT_CONFIG = os.path.join(os.path.dirname(__file__), "configs", "bc_search_advised.json")


def scaled(config, scale):
    """``config`` with the step budget, the evaluation / checkpoint / snapshot intervals, the evaluation games
    (at least one per seat) and the behaviour cloning's recorded, held-out and DAgger games times ``scale``."""
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
    bc = config.bc
    if bc is not None:  # the recipe's budget is its games, not PPO steps
        bc = dataclasses.replace(bc, games=times(bc.games), held_out_games=times(bc.held_out_games),
                                 dagger_games=times(bc.dagger_games))
    return dataclasses.replace(config, total_timesteps=times(config.total_timesteps), selfplay=selfplay, league=league,
                               bc=bc,
                               eval_every=times(config.eval_every), checkpoint_every=times(config.checkpoint_every),
                               eval_games=max(config.num_players, round(config.eval_games * scale)))


def plot(rows, config, path):
    """The win rates against the steps in ``path``; False (nothing drawn) without matplotlib (the analysis extra)."""
    try:
        import matplotlib
    except ImportError:
        return False

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        mine = [r for r in rows if r["opponent"] == opponent]
        steps = [int(r["timesteps"]) for r in mine]
        rate, low, high = ([float(r[key]) for r in mine] for key in ("win_rate", "ci_low", "ci_high"))
        if len(steps) == 1:  # a band needs two points: an error bar
            ax.errorbar(steps, rate, yerr=[[rate[0] - low[0]], [high[0] - rate[0]]], marker="o", capsize=4,
                        label=f"vs {opponent}")
            continue
        ax.plot(steps, rate, marker="o", label=f"vs {opponent}")
        ax.fill_between(steps, low, high, alpha=0.2)
    ax.axhline(1 / config.num_players, color="gray", linestyle="--", linewidth=1,
               label=f"even share (1/{config.num_players})")
    ax.set_xlabel("env steps (learner decisions)")
    ax.set_ylabel("win rate (95% CI, clustered by deal)")
    ax.set_ylim(0, 1)
    if config.total_timesteps == 0:  # one point per opponent: the cloned policy
        ax.set_xticks([0])
        ax.set_xlim(-1, 1)
        training = f"teacher {config.bc.teacher}"
    elif config.selfplay is not None:
        training = "self-play"
    else:
        training = "vs " + "/".join(dict.fromkeys(config.opponents))
    ax.set_title(f"{_method(config)} ({training}), {config.num_players} players, {config.board}-plot board, "
                 f"seed {config.seed}")
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _method(config):
    """What trains the policy, in a few words (titles)."""
    if config.total_timesteps == 0:
        return "behaviour cloning"
    return "behaviour cloning, then MaskablePPO" if config.bc is not None else "MaskablePPO"


def _training_text(config):
    bc = config.bc
    cloning = (f"behaviour cloning of {bc.teacher} ({bc.games} games, teacher in "
               f"{'one seat' if bc.teacher_seats == 'one' else 'every seat'}, {bc.dagger_rounds} DAgger rounds of "
               f"{bc.dagger_games} games)" if bc is not None else "")
    if config.total_timesteps == 0:
        return f"{cloning} against {config.opponents}, no PPO"
    ppo = f"{config.total_timesteps} env steps of PPO; {_opponents_text(config)}"
    return f"{cloning}, then {ppo}" if cloning else ppo


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
    with atomic_open(os.path.join(out, "results.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    plotted = plot(rows, config, os.path.join(out, "win_rate.png"))
    lines = [
        f"# Training results: {_method(config)} on {versions(config)['gym_env_id']}", "",
        f"Command: `{run['command']}`", "",
        f"{config.num_players} players, {config.board}-plot board, seed {config.seed}, "
        f"{_training_text(config)}; "
        f"{config.eval_games} evaluation games per opponent and point (the learner rotates through the seats, "
        "every other seat plays the opponent; a win shared by k players counts 1/k); 95% intervals clustered "
        "by deal (the games of a deal share its cards; `fifthave.agents.stats.clustered_rate_interval`).", "",
        format_table(rows, config.num_players), "",
    ] + (["![win rate](win_rate.png)", ""] if plotted else [])
    throughput = (f"training throughput {run['steps_per_second']:.0f} env steps/s on this machine"
                  if run["steps"] else "no PPO steps, so the time is the cloning's")
    lines += [f"Wall time {run['wall_seconds']:.0f} s ({run['eval_seconds']:.0f} s of it evaluation); {throughput}.", ""]
    bc_report = os.path.join(config.run_dir, "bc.json")
    if config.bc is not None and os.path.exists(bc_report):
        with open(bc_report) as f:
            rounds = json.load(f)["rounds"]
        lines += ["Cloning (`bc.json`): held-out agreement with the teacher (decisions with a choice) " + ", ".join(
            f"{r['held_out_agreement']:.3f} after fit {i + 1} ({r['decisions']} decisions)"
            for i, r in enumerate(rounds)) + ".", ""]
    if run.get("weights_sha256"):
        lines += [f"Final weights sha256 (the same for every rerun of the command): `{run['weights_sha256']}`", ""]
    lines += ["Versions: " + ", ".join(f"{k} {v}" for k, v in versions(config).items()), "",
              "Config:", "", "```json", json.dumps(config.to_dict(), indent=2), "```", ""]
    atomic_write_bytes(os.path.join(out, "README.md"), "\n".join(lines).encode())
    return rows


def new_run_dir(base):
    """``base-<date>-<time>``, with a suffix if that exists already."""
    stem = f"{base}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, k = stem, 1
    while os.path.exists(path):
        k += 1
        path = f"{stem}-{k}"
    return path


def cloning_games(config):
    """Games the behaviour cloning plays (recorded, held out, DAgger), 0 without cloning."""
    bc = config.bc
    return bc.games + bc.held_out_games + bc.dagger_rounds * bc.dagger_games if bc is not None else 0


def expected_seconds(config, published_run):
    """How long ``config`` should take on the machine that made ``published_run`` (its run.json), or None."""
    if not os.path.exists(published_run):
        return None
    with open(published_run) as f:
        run = json.load(f)
    if run.get("steps") == 0 and config.total_timesteps == 0:  # cloning alone: its time goes with its games
        games = cloning_games(config)
        return run["wall_seconds"] * games / run["cloning_games"] if games and run.get("cloning_games") else None
    if not run.get("steps") or not run.get("steps_per_second"):
        return None
    evaluation = run["eval_seconds"] / run["steps"] * config.total_timesteps  # same evaluation points per step
    return config.total_timesteps / run["steps_per_second"] + evaluation


def publish(config, run_dir, out):
    """Copy the run's outputs to ``out`` and export its final policy as ``out/policy.zip`` (to continue training
    from: ``init_from``) and ``out/policy.npz`` (the agent file every command plays, ``fifthave.train.export``)."""
    os.makedirs(out, exist_ok=True)
    for name in ("results.csv", "README.md", "win_rate.png", "run.json"):
        shutil.copyfile(os.path.join(run_dir, name), os.path.join(out, name))
    final = latest_checkpoint(run_dir)
    export_checkpoint(final, os.path.join(out, "policy.npz"))
    return export_policy(final, os.path.join(out, "policy.zip"))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m fifthave.train.experiment", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=DEFAULT_CONFIG, help=f"JSON TrainConfig (default {DEFAULT_CONFIG})")
    parser.add_argument("--scale", type=checks.cli_positive, default=1.0,
                        help="multiply the step budget, the intervals, the evaluation games and the cloning's games "
                             "(default 1.0)")
    parser.add_argument("--run-dir", help="run directory (default: a new one named after the config's run_dir)")
    parser.add_argument("--publish", action="store_true", help="also copy the outputs and the policy to --out")
    parser.add_argument("--out", default=os.path.join("results", "training"),
                        help="where --publish writes (default results/training)")
    parser.add_argument("--resume", action="store_true", help="continue the interrupted run in --run-dir")
    parser.add_argument("--report-only", action="store_true", help="rewrite the outputs from --run-dir's eval.csv")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if (args.resume or args.report_only) and not args.run_dir:
        parser.error("--resume and --report-only need --run-dir (the run to continue or report)")
    config = scaled(load_config(args.config), args.scale)
    run_dir = args.run_dir or new_run_dir(config.run_dir)
    config = dataclasses.replace(config, run_dir=run_dir)
    run = None
    if not args.report_only:
        expected = expected_seconds(config, os.path.join(args.out, "run.json"))
        budget = (f"{config.total_timesteps} env steps" if config.total_timesteps or config.bc is None
                  else f"{cloning_games(config)} games of behaviour cloning")
        print(f"{budget} into {run_dir}" + (
            f"; the published run says about {expected / 60:.0f} min" if expected else ""))
        try:
            result = train(config, resume=args.resume, show_progress=not args.no_progress)
        except (FileExistsError, CheckpointError) as error:
            parser.error(str(error))
        command = "python -m fifthave.train.experiment " + shlex.join(argv if argv is not None else sys.argv[1:])
        run = {"command": command.strip(), "steps": result.steps, "wall_seconds": result.wall_seconds,
               "eval_seconds": result.eval_seconds, "steps_per_second": result.steps_per_second,
               "weights_sha256": result.weights_sha256, "cloning_games": cloning_games(config)}
        print(f"took {result.wall_seconds / 60:.1f} min ({result.eval_seconds / 60:.1f} of it evaluation); "
              f"final weights sha256 {result.weights_sha256}")
    rows = write_report(config, run_dir, run)
    print(format_table(rows, config.num_players))
    print(f"\nwritten: {run_dir}/results.csv, README.md, win_rate.png, run.json")
    if args.publish:
        size = publish(config, run_dir, args.out)
        print(f"published to {args.out} (policy.zip: {size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
