"""Train a committed recipe end to end, evaluate it and write its results (``fifthave publish``).

    fifthave publish recipe [--write-results] [--run-dir DIR] [--eval-games N] [EXPERIMENT OPTIONS ...]
    fifthave publish values [--write-results] [--run-dir DIR]

``recipe``: the committed 4-player recipe (``train/configs/bc_search_advised.json``: one step of expert iteration, a network
cloned from the search agent search:4:1 with DAgger) through ``fifthave.train.experiment``, then evaluated in
``--eval-games`` seat-rotated tournament games against three HeuristicAgents and against three RandomAgents. The
run directory gets the experiment's outputs, the tables ``final_vs_heuristic.*`` / ``final_vs_random.*`` and
``final_evaluation.md``, which says how to reproduce them. ``--write-results`` also writes the final policy, the
experiment's outputs and the tables to ``--out`` (the committed ``results/training``) and appends
``final_evaluation.md`` to its README (which the experiment has just rewritten). A trial of about a minute:
``fifthave publish recipe --eval-games 8 --scale 0.01``.

``values``: the candidate-value agent (``train/candidate_values.py``, ``train/configs/candidate_values_4p.json``):
label 2,000 games with the search's values of its candidates, fit three networks, label 500 games of their own
play (DAgger), fit again, and evaluate in 1,000 seat-rotated games against three HeuristicAgents and three
RandomAgents (30-50 min on 2 cores). ``--write-results`` copies ``values.npz``, ``report.json``, the tables and
the config to ``--out`` (the committed ``results/training/values``). An interrupted run continues where it
stopped when started again with the same ``--run-dir``. The budget is in the config: a copy with fewer
``games``, ``dagger_games``, ``held_out_games`` and ``eval_games`` (say 6, 2, 2 and 8) and ``"epochs": 1`` is a
trial of a few minutes.

Every run writes a new directory ``runs/KIND-DATE-TIME`` of the checkout unless ``--run-dir`` names one; nothing
under ``results/`` changes without ``--write-results``. The training and the tournaments run as child processes
(``python -m ...``) in the checkout's root, so the commands written into the READMEs are the ones that ran.
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

from fifthave_env.engine import checks

# realpath: in a checkout this file is also reached through the link fifthave/train
ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
EVAL_SEED = 2026


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


def publish_recipe(args, experiment_args, command):
    """Train and evaluate the recipe; returns the run directory."""
    run_dir, out = _run_dir(args.run_dir, "recipe"), os.path.abspath(args.out)
    publish_flag = ["--publish"] if args.write_results else []
    started = time.monotonic()
    # --out also names the published run when not writing results: its run.json gives the time estimate
    _run("fifthave.train.experiment", ["--config", _shown(args.config), "--run-dir", _shown(run_dir),
                                       "--out", _shown(out), *publish_flag, "--no-progress", *experiment_args])
    if args.write_results:
        policy, tables, notes = os.path.join(out, "policy.npz"), out, "[RECIPE.md](RECIPE.md)"
    else:
        # agent files are ckpt_<10-digit steps>.npz, so the last in sort order is the final one
        checkpoints = sorted(glob.glob(os.path.join(run_dir, "checkpoints", "ckpt_*.npz")))
        if not checkpoints:
            raise SystemExit(f"fifthave publish: the experiment wrote no agent file to {_shown(run_dir)}/checkpoints")
        policy, tables, notes = checkpoints[-1], run_dir, "results/training/RECIPE.md"
    trained = time.monotonic()

    tournaments, outputs = [], []
    for opponent in ("heuristic", "random"):
        stem = os.path.join(tables, f"final_vs_{opponent}")
        agents = ["--agents", f"policy:{_shown(policy)}:greedy", f"{opponent}*3", "--games", str(args.eval_games),
                  "--seed", str(EVAL_SEED)]
        with open(f"{stem}.txt", "w") as table:
            _run("fifthave.agents.tournament", [*agents, "--workers", str(args.workers), "--quiet",
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


def publish_values(args):
    """Train and evaluate the candidate-value agent; returns the run directory."""
    run_dir, out = _run_dir(args.run_dir, "values"), os.path.abspath(args.out)
    started = time.monotonic()
    _run("fifthave.train.candidate_values", ["--config", _shown(args.config), "--run-dir", _shown(run_dir)])
    elapsed = time.monotonic() - started
    if args.write_results:
        os.makedirs(out, exist_ok=True)
        for name in ["values.npz", "report.json",
                     *sorted(os.path.basename(p) for p in glob.glob(os.path.join(run_dir, "values_vs_*")))]:
            shutil.copy(os.path.join(run_dir, name), out)
        shutil.copy(args.config, os.path.join(out, "config.json"))
        print(f"published {_shown(run_dir)} into {_shown(out)} after {elapsed:.0f} s; "
              f"play it as values:{_shown(out)}/values.npz")
    else:
        print(f"wrote {_shown(run_dir)} after {elapsed:.0f} s; play it as values:{_shown(run_dir)}/values.npz "
              "(results/ is unchanged: --write-results writes them)")
    return run_dir


def _parser():
    parser = argparse.ArgumentParser(description="Train a committed recipe end to end, evaluate it and write its "
                                                 "results README.",
                                     epilog="fifthave publish KIND --help lists the options of one kind.")
    kinds = parser.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind, help_text, config, out in [
            ("recipe", "the committed 4-player recipe (cloning of search:4:1 with DAgger) and its evaluation; "
                       "other options go to fifthave.train.experiment (e.g. --scale 0.01)",
             "train/configs/bc_search_advised.json", "results/training"),
            ("values", "the candidate-value agent (train/candidate_values.py) and its evaluation",
             "train/configs/candidate_values_4p.json", "results/training/values")]:
        sub = kinds.add_parser(kind, help=help_text, description=help_text)
        sub.add_argument("--write-results", action="store_true",
                         help=f"also write the results to --out (default {out}, the committed ones)")
        sub.add_argument("--run-dir", help=f"the run directory (default runs/{kind}-DATE-TIME in the checkout)")
        sub.add_argument("--config", default=os.path.join(ROOT, config), help=f"default {config}")
        sub.add_argument("--out", default=os.path.join(ROOT, out), help=f"where --write-results writes (default {out})")
        if kind == "recipe":
            sub.add_argument("--eval-games", type=checks.cli_int(1), default=1000,
                             help="games per evaluation table (default 1000)")
            sub.add_argument("--workers", type=checks.cli_int(1), default=2, help="tournament processes (default 2)")
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args, rest = parser.parse_known_args(argv)
    if args.kind == "values" and rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)} (fifthave publish values takes its budget from "
                     "--config)")
    args.config = os.path.abspath(_existing_file(parser, "--config", args.config))
    if args.kind == "recipe":
        publish_recipe(args, rest, " ".join(["fifthave publish", *argv]))
    else:
        publish_values(args)


if __name__ == "__main__":
    main()
