"""Train a committed recipe end to end with ``fifthave train``, evaluate it and write its results (``fifthave publish``).

    fifthave publish recipe [--write-results] [--run-dir DIR | --resume DIR] [--scale S] [--eval-games N]
    fifthave publish values [--write-results] [--run-dir DIR | --resume DIR]

``recipe``: the committed 4-player recipe (``train/configs/bc_search_advised.json``: one step of expert
iteration, a network cloned from the search agent search:4:1 with the heuristic's advice as a feature, 1,500
games and one DAgger round, no PPO; about half an hour on 2 cores), trained by ``fifthave train CONFIG --out
RUN_DIR``, which writes the run's report there (``fifthave.train.report``: ``results.csv``, ``README.md``,
``win_rate.png``, ``run.json``), then evaluated in ``--eval-games`` seat-rotated tournament games against three
HeuristicAgents and against three RandomAgents. The run directory gets the tables ``final_vs_heuristic.*`` /
``final_vs_random.*`` and ``final_evaluation.md``, which says how to reproduce them. ``--write-results`` also
copies the report to ``--out`` (the committed ``results/training``) with ``policy.zip``, the final policy
without optimizer state (to continue training from: ``ppo.init_from``), and ``policy.npz``, its agent file
(``fifthave.train.export``), and appends ``final_evaluation.md`` to its README. ``--config`` publishes another
PPO-method config (``train/configs/selfplay_experiment.json``: 4-player self-play from scratch) with its own
``--out``: the default ``--out`` holds the committed recipe.

``--scale`` multiplies the step budget, the evaluation / checkpoint / snapshot intervals (so a larger run keeps
the same number of evaluation points), the evaluation games and the behaviour cloning's games: it becomes
``--set`` options of ``fifthave train`` (``scale_sets``), so the run's README names the command that ran. Before
training the command states how long the run should take, from the throughput (or, for cloning alone, the
time per game) of the published run (``--out``'s ``run.json``). The same command and seed give the same table
and weights hash, also after ``--resume DIR`` continues an interrupted run (``fifthave train --resume``). A
trial of about a minute: ``fifthave publish recipe --eval-games 8 --scale 0.01``.

``values``: the candidate-value agent (``train/candidate_values.py``, ``train/configs/candidate_values_4p.json``):
label 2,000 games with the search's values of its candidates, fit three networks, label 500 games of their own
play (DAgger), fit again, and evaluate in 1,000 seat-rotated games against three HeuristicAgents and three
RandomAgents (30-50 min on 2 cores). ``--write-results`` copies ``values.npz``, ``report.json``, the tables and
the config as run to ``--out`` (the committed ``results/training/values``). ``--resume DIR`` continues an
interrupted run where it stopped. The budget is in the config: ``--config`` with fewer ``games``,
``dagger_games``, ``held_out_games`` and ``evaluation.games`` (say 6, 2, 2 and 8) and ``"epochs": 1`` is a
trial of a few minutes.

Every run writes a new directory ``runs/KIND-DATE-TIME`` of the checkout unless ``--run-dir`` names one; nothing
under ``results/`` changes without ``--write-results``. The training and the tournaments run as child processes
(``python -m fifthave.cli train ...``, ``python -m fifthave.cli tournament ...``) in the checkout's root, so the
commands written into the READMEs are the ones that ran.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

from fifthave_env.engine import checks, safejson

# realpath: in a checkout this file is also reached through the link fifthave/train
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
EVAL_SEED = 2026
REPORT_FILES = ("results.csv", "README.md", "win_rate.png", "run.json")
"""The report ``fifthave train`` writes in a PPO run directory (``fifthave.train.report``)."""


def _shown(path):
    """``path`` as the READMEs show it: relative to the checkout when inside it."""
    relative = os.path.relpath(path, ROOT)
    return path if relative.startswith("..") else relative


def _run(module, args, stdout=None):
    """``python -m module args`` in the checkout's root; a failure ends the command with its exit code."""
    code = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, stdout=stdout).returncode
    if code:
        raise SystemExit(code)


def _run_dir(given, kind):
    return os.path.abspath(given) if given else os.path.join(ROOT, "runs", f"{kind}-{time.strftime('%Y%m%d-%H%M%S')}")


def _existing_file(parser, option, path):
    if not os.path.isfile(path):
        parser.error(f"{option} {path}: no such file")
    return path


def scale_sets(config, scale):
    """The ``--set`` texts that multiply the budget of ``config`` (a PPO method's ``RunConfig``) by ``scale``: the
    env steps, the evaluation / checkpoint / snapshot intervals, the evaluation games (at least one per seat)
    and the behaviour cloning's recorded, held-out and DAgger games. None for ``scale`` 1."""
    if scale == 1:
        return []
    flat = config.trainer_config("unused")

    def times(steps):
        return max(1, round(steps * scale)) if steps else 0
    sets = [f"run.steps={times(flat.total_timesteps)}", f"evaluation.every={times(flat.eval_every)}",
            f"run.checkpoint_every={times(flat.checkpoint_every)}",
            f"evaluation.games={max(flat.num_players, round(flat.eval_games * scale))}"]
    for name in ("selfplay", "league"):
        if getattr(flat, name) is not None:
            sets.append(f"{name}.snapshot_every={times(getattr(flat, name).snapshot_every)}")
    if flat.bc is not None:  # the recipe's budget is its games, not PPO steps
        sets += [f"bc.{name}={times(getattr(flat.bc, name))}" for name in ("games", "held_out_games", "dagger_games")]
    return sets


def expected_seconds(config, published_run):
    """How long ``config`` (a ``TrainConfig``) should take on the machine that made ``published_run`` (its
    run.json), or None."""
    from .report import cloning_games

    if not os.path.exists(published_run):
        return None
    run = safejson.load(published_run)
    if run.get("steps") == 0 and config.total_timesteps == 0:  # cloning alone: its time goes with its games
        games = cloning_games(config)
        return run["wall_seconds"] * games / run["cloning_games"] if games and run.get("cloning_games") else None
    if not run.get("steps") or not run.get("steps_per_second"):
        return None
    evaluation = run["eval_seconds"] / run["steps"] * config.total_timesteps  # same evaluation points per step
    return config.total_timesteps / run["steps_per_second"] + evaluation


def publish_run(run_dir, out):
    """Copy the report of the PPO run in ``run_dir`` to ``out`` and export its final policy as ``out/policy.zip``
    (to continue training from: ``ppo.init_from``) and ``out/policy.npz`` (the agent file every command plays,
    ``fifthave.train.export``); returns the size of ``policy.zip`` in bytes."""
    from .checkpoint import export_policy, latest_checkpoint
    from .export import export_checkpoint

    os.makedirs(out, exist_ok=True)
    for name in REPORT_FILES:
        if os.path.exists(os.path.join(run_dir, name)):  # win_rate.png needs matplotlib
            shutil.copyfile(os.path.join(run_dir, name), os.path.join(out, name))
    final = latest_checkpoint(run_dir)
    export_checkpoint(final, os.path.join(out, "policy.npz"))
    return export_policy(final, os.path.join(out, "policy.zip"))


def _train_args(args, kind, parser):
    """The run directory and the ``fifthave train`` arguments of this publish command."""
    if args.resume:
        run_dir = os.path.abspath(args.resume)
        return run_dir, ["train", "--resume", _shown(run_dir), "--no-progress"]
    from .config import TRAINERS, load_run_config

    run_dir = _run_dir(args.run_dir, kind)
    sets = []
    try:
        config = load_run_config(args.config, notify=lambda message: None)
        if kind == "recipe":
            if TRAINERS.get(config.method) != "ppo":
                raise ValueError(f"--config {args.config} is a {config.method} run; recipe publishes a PPO method's")
            sets = scale_sets(config, args.scale)
            flat = load_run_config(args.config, sets, notify=lambda message: None).trainer_config(run_dir)
            expected = expected_seconds(flat, os.path.join(args.out, "run.json"))
            if expected:
                print(f"the published run says about {expected / 60:.0f} min", flush=True)
    except ValueError as error:
        parser.error(str(error))
    return run_dir, ["train", _shown(args.config), "--out", _shown(run_dir), "--no-progress",
                     *(f"--set={text}" for text in sets)]


def publish_recipe(args, command, parser):
    """Train (``fifthave train``) and evaluate the recipe; returns the run directory."""
    run_dir, train_args = _train_args(args, "recipe", parser)
    out = os.path.abspath(args.out)
    started = time.monotonic()
    _run("fifthave.cli", train_args)
    if args.write_results:
        size = publish_run(run_dir, out)
        print(f"published the report and the policy to {_shown(out)} (policy.zip: {size / 1e6:.1f} MB)")
        policy, tables, notes = os.path.join(out, "policy.npz"), out, "[RECIPE.md](RECIPE.md)"
    else:
        # agent files are ckpt_<10-digit steps>.npz, so the last in sort order is the final one
        checkpoints = sorted(glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.npz")))
        if not checkpoints:
            raise SystemExit(f"fifthave publish: the run wrote no agent file to {_shown(run_dir)}/checkpoints")
        policy, tables, notes = checkpoints[-1], run_dir, "results/training/RECIPE.md"
    trained = time.monotonic()

    tournaments, outputs = [], []
    for opponent in ("heuristic", "random"):
        stem = os.path.join(tables, f"final_vs_{opponent}")
        agents = ["--agents", f"policy:{_shown(policy)}:greedy", f"{opponent}*3", "--games", str(args.eval_games),
                  "--seed", str(EVAL_SEED)]
        with open(f"{stem}.txt", "w") as table:
            _run("fifthave.cli", ["tournament", *agents, "--workers", str(args.workers), "--quiet",
                                  "--out", _shown(stem)], stdout=table)
        with open(f"{stem}.txt") as table:
            outputs.append(table.read())
        print(outputs[-1], end="", flush=True)
        tournaments.append(" ".join(["fifthave tournament", *agents, "--out", _shown(stem)]))
    finished = time.monotonic()

    lines = ["", f"## Final evaluation of {os.path.basename(policy)} ({args.eval_games} seat-rotated games per table)",
             "", f"Training (cloning, PPO if any, and the evaluations above) took {trained - started:.0f} s, this "
             f"evaluation {finished - trained:.0f} s. Reproduce without retraining:", ""]
    lines += [f"    {tournament}" for tournament in tournaments]
    lines += ["", f"Retrain: `{command}`.", "", f"What the recipe is, what each part gave and what limits it: {notes}."]
    for output in outputs:
        lines += ["", "```", *(line for line in output.splitlines() if not line.startswith("wrote ")), "```"]
    evaluation = "\n".join(lines) + "\n"
    with open(os.path.join(run_dir, "final_evaluation.md"), "w") as f:
        f.write(evaluation)
    if args.write_results:
        with open(os.path.join(out, "README.md"), "a") as f:
            f.write(evaluation)
        print(f"published into {_shown(out)}; the evaluation is appended to {_shown(out)}/README.md")
    else:
        print(f"wrote {_shown(run_dir)} (evaluation: {_shown(run_dir)}/final_evaluation.md); results/ is unchanged "
              "(--write-results writes them)")
    return run_dir


def publish_values(args, parser):
    """Train (``fifthave train``) and evaluate the candidate-value agent; returns the run directory."""
    run_dir, train_args = _train_args(args, "values", parser)
    out = os.path.abspath(args.out)
    started = time.monotonic()
    _run("fifthave.cli", train_args)
    elapsed = time.monotonic() - started
    if args.write_results:
        os.makedirs(out, exist_ok=True)
        for name in ["values.npz", "report.json",
                     *sorted(os.path.basename(p) for p in glob.glob(os.path.join(run_dir, "values_vs_*")))]:
            shutil.copy(os.path.join(run_dir, name), out)
        shutil.copy(os.path.join(run_dir, "run_config.json"), os.path.join(out, "config.json"))  # as run
        print(f"published {_shown(run_dir)} into {_shown(out)} after {elapsed:.0f} s; "
              f"play it as values:{_shown(out)}/values.npz")
    else:
        print(f"wrote {_shown(run_dir)} after {elapsed:.0f} s; play it as values:{_shown(run_dir)}/values.npz "
              "(results/ is unchanged: --write-results writes them)")
    return run_dir


def _parser():
    parser = argparse.ArgumentParser(description="Train a committed recipe end to end (fifthave train), evaluate it "
                                                 "and write its results README.",
                                     epilog="fifthave publish KIND --help lists the options of one kind.")
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind, help_text, config, out in [
            ("recipe", "the committed 4-player recipe (cloning of search:4:1 with DAgger), its report and its "
                       "evaluation", "train/configs/bc_search_advised.json", "results/training"),
            ("values", "the candidate-value agent (train/candidate_values.py) and its evaluation",
             "train/configs/candidate_values_4p.json", "results/training/values")]:
        sub = kinds.add_parser(kind, help=help_text, description=help_text)
        sub.add_argument("--write-results", action="store_true",
                         help=f"also write the results to --out (default {out}, the committed ones)")
        where = sub.add_mutually_exclusive_group()
        where.add_argument("--run-dir", help=f"an unused run directory (default runs/{kind}-DATE-TIME in the "
                                             "checkout)")
        where.add_argument("--resume", metavar="DIR", help="continue the interrupted run in DIR (fifthave train "
                                                           "--resume) and publish it")
        sub.add_argument("--config", default=os.path.join(ROOT, config), help=f"default {config}")
        sub.add_argument("--out", default=os.path.join(ROOT, out), help=f"where --write-results writes (default {out})")
        if kind == "recipe":
            sub.add_argument("--scale", type=checks.cli_positive, default=1.0,
                             help="multiply the step budget, the intervals, the evaluation games and the cloning's "
                                  "games (default 1.0)")
            sub.add_argument("--eval-games", type=checks.cli_int(1), default=1000,
                             help="games per evaluation table (default 1000)")
            sub.add_argument("--workers", type=checks.cli_int(1), default=2, help="tournament processes (default 2)")
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(argv)
    args.config = os.path.abspath(_existing_file(parser, "--config", args.config))
    if args.resume and not os.path.isdir(args.resume):
        parser.error(f"--resume {args.resume}: no such run directory")
    if args.kind == "recipe":
        publish_recipe(args, " ".join(["fifthave publish", *argv]), parser)
    else:
        publish_values(args, parser)


if __name__ == "__main__":
    main()
