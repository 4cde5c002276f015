"""Run one training config: ``fifthave train CONFIG [--set SECTION.KEY=VALUE ...] [--out DIR] [--resume DIR]``.

The config (``fifthave.train.config``'s schema; ``train/configs`` holds the committed ones) names its
``method``, which chooses the trainer: ``ppo``, ``selfplay`` and ``bc`` run ``fifthave.train.train``,
``candidate_values`` ``fifthave.train.candidate_values``, ``rllib`` ``fifthave.train.rllib.train``, and
``generations`` ``fifthave.train.generations`` (where installed). ``--set`` changes one field
(``--set run.steps=20000 --set game.num_players=3 --set ppo.net_arch=[64,64]``); each value is read as JSON
where it parses and is checked with the rest, so a bad one ends the command with one line naming the field
before anything is written.

A new run goes to a new dated directory, ``runs/YYYYMMDD-HHMMSS-METHOD`` (``--out DIR``: an unused one of
your choice), which gets ``run_config.json`` (the config as run) next to the trainer's files. ``--resume DIR``
continues an interrupted run there with its saved config (``--set run.steps=N`` may raise the budget, nothing
else changes): the same weights and evaluation table as a run never interrupted. A checkpoint is read only if
it matches the SHA-256 manifest our trainer wrote beside it (``fifthave.train.manifest``); resume only runs you
or your own machines made. A run directory of the old commands (a flat ``config.json``) resumes too, with a
notice that its config uses old names.
"""

import argparse
import importlib
import importlib.util
import json
import os
import shlex
import sys
import time

from fifthave_env.engine import checks, safejson
from fifthave_env.runtime import atomic_write_text, check_writable_directory, exit_on_interrupt

from .config import TRAINERS, current_names, load_run_config, parse_set, run_config_from_dict

PROGRAM = "fifthave train"
RUN_CONFIG = "run_config.json"
"""The config as run, in the run directory (the schema's JSON form)."""
RESUMABLE = {("run", "steps"), ("rllib", "max_seconds"), ("generations", "generations"),
             ("candidate_values", "dagger_rounds"), ("candidate_values", "replay_rounds")}
"""What ``--set`` may change when a run resumes: its budget, and which of its stored labels the candidate-value fits
read. Either reuses every label already in the run's store and keeps every generation whose fit reads the same
labels (the rest are refitted, the same as a run started with those settings)."""


def new_run_dir(method, root="runs"):
    """``ROOT/YYYYMMDD-HHMMSS-METHOD``, with ``-2``, ``-3``, ... if that exists already."""
    stem = os.path.join(root, f"{time.strftime('%Y%m%d-%H%M%S')}-{method}")
    path, k = stem, 1
    while os.path.exists(path):
        k += 1
        path = f"{stem}-{k}"
    return path


def saved_run_config(run_dir, sets=(), notify=None):
    """The config a run in ``run_dir`` was started with (its ``run_config.json``, or the flat ``config.json``
    of a run of the old commands, translated with a notice), with ``sets`` that only raise the budget."""
    parsed = [parse_set(text) for text in sets]
    refused = [".".join(parts) for parts, _ in parsed if parts not in RESUMABLE]
    if refused:
        raise checks.InvalidValueError(f"--resume continues the run in {run_dir} as it was started: --set "
                                       f"{', '.join(refused)} would change it (allowed: "
                                       f"{', '.join(sorted('.'.join(p) for p in RESUMABLE))})")
    path = os.path.join(run_dir, RUN_CONFIG)
    if not os.path.isfile(path):
        path = os.path.join(run_dir, "config.json")
        if not os.path.isfile(path):
            raise checks.InvalidValueError(f"--resume {run_dir}: it holds neither {RUN_CONFIG} nor config.json; "
                                           f"give the directory of an earlier run")
    data = safejson.load(path, f"the run config {path}")
    return run_config_from_dict(current_names(data, path, parsed, **({"notify": notify} if notify else {})))


def _check_start(config):
    """What a trainer would refuse only after its run directory is made: the checkpoint ``ppo.init_from`` names."""
    if TRAINERS.get(config.method) == "ppo" and config.sections["ppo"].init_from is not None:
        from .checkpoint import read_meta
        read_meta(config.sections["ppo"].init_from)  # CheckpointError (a ValueError) naming what is wrong


def _check_unused(out):
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise FileExistsError(f"--out {out} is not an empty directory; choose an unused one (or --resume {out} "
                              f"to continue the run there)")


def _run_ppo(config, out, resume, show_progress, argv):
    from .checkpoint import CheckpointError, checkpoint_path, latest_checkpoint
    from .evaluate import best_checkpoint_report, eval_seed, format_table, how_to_use, read_eval_log
    from .report import cloning_games, write_report
    from .train import train

    flat = config.trainer_config(out)

    def kept():
        newest = latest_checkpoint(out)
        return f"{newest} kept; continue with {PROGRAM} --resume {out}" if newest else "no checkpoint was written yet"
    try:
        with exit_on_interrupt(PROGRAM, kept):
            result = train(flat, resume=resume, show_progress=show_progress)
    except CheckpointError as error:
        raise ValueError(str(error)) from None
    print(f"\n{result.steps} env steps in {result.wall_seconds:.0f} s ({result.eval_seconds:.0f} s of evaluation): "
          f"{result.steps_per_second:.0f} training steps/s")
    print(f"final weights sha256: {result.weights_sha256}")
    run = {"command": f"{PROGRAM} {shlex.join(argv)}", "steps": result.steps, "wall_seconds": result.wall_seconds,
           "eval_seconds": result.eval_seconds, "steps_per_second": result.steps_per_second,
           "weights_sha256": result.weights_sha256, "cloning_games": cloning_games(flat)}
    rows = write_report(flat, out, run)  # results.csv, README.md, win_rate.png (with matplotlib), run.json
    print(f"\nEvaluation of {out} ({flat.num_players} players, {flat.board}-plot board):")
    print(format_table(read_eval_log(out), flat.num_players))
    for line in best_checkpoint_report(rows, flat.eval_opponents, "timesteps", lambda step: checkpoint_path(out, step),
                                       "policy", flat.eval_deterministic, flat.num_players, eval_seed(flat)):
        print(line)
    print("\n" + "\n".join(how_to_use(latest_checkpoint(out), flat.num_players, flat.eval_deterministic)))


def _run_candidate_values(config, out, resume, show_progress, argv):
    from .candidate_values import train_values

    train_values(config.trainer_config(out))


def _newest_rllib_checkpoint(out):
    directory = os.path.join(out, "checkpoints")
    names = sorted(name for name in os.listdir(directory) if name.startswith("iter_")) \
        if os.path.isdir(directory) else []
    if not names:
        raise ValueError(f"--resume {out}: no checkpoint in {directory} to continue from")
    return os.path.join(directory, names[-1])


def _run_rllib(config, out, resume, show_progress, argv):
    from fifthave.agents.ray_backend import require_ray

    from .rllib.agent import actor_weights_hash
    from .rllib.train import best_checkpoint_lines, train

    require_ray()
    flat = config.trainer_config(out)
    checkpoint = _newest_rllib_checkpoint(out) if resume else None
    num_cpus = max(os.cpu_count() or 1, flat.num_env_runners + 1)
    address = os.environ.get("RAY_ADDRESS") or None  # Ray's own variable: join that cluster instead of a local Ray
    with exit_on_interrupt(PROGRAM, f"the checkpoints written are in {out}/checkpoints; continue with "
                                    f"{PROGRAM} --resume {out}"):
        directory, _, seconds = train(flat, address=address, num_cpus=num_cpus, resume=checkpoint)
    print(f"done in {seconds:.0f} s; last checkpoint {directory}")
    print(f"final weights sha256: {actor_weights_hash(directory)}")
    print(f"play it: fifthave tournament --agents rllib:{directory} random*{flat.num_players - 1}")
    for line in best_checkpoint_lines(flat):
        print(line)


def _run_generations(config, out, resume, show_progress, argv):
    if importlib.util.find_spec("fifthave.train.generations") is None:
        raise ValueError("method generations needs fifthave.train.generations, which this install does not have")
    importlib.import_module("fifthave.train.generations").run(config, out, resume)


RUNNERS = {"ppo": _run_ppo, "candidate_values": _run_candidate_values, "rllib": _run_rllib}


def runner(method):
    """The function that runs a config of ``method``: ``(config, out, resume, show_progress, argv)``."""
    return RUNNERS[TRAINERS[method]] if method in TRAINERS else _run_generations


def build_parser():
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n\n")[0],
                                     epilog="Committed configs: train/configs/*.json (docs/guide.md, 'Training').")
    parser.add_argument("config", nargs="?", metavar="CONFIG",
                        help="a run config (JSON; method + game, evaluation, run and the method's section)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="change one field (value read as JSON where it parses); repeat for more")
    parser.add_argument("--out", metavar="DIR", help="an unused run directory (default runs/YYYYMMDD-HHMMSS-METHOD)")
    parser.add_argument("--resume", metavar="DIR", help="continue the interrupted run in DIR with its saved config "
                        "(only --set run.steps may raise its budget). Checkpoints are read only if they match the "
                        "SHA-256 manifest written beside them; resume only runs you or your own machines made")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv=None):
    """``fifthave train``: run (or resume) one config; returns the exit code."""
    from_command_line = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # a bad config, --set or directory ends here with one line, before anything is written
        if args.resume:
            if args.config or (args.out and os.path.abspath(args.out) != os.path.abspath(args.resume)):
                raise ValueError("--resume DIR continues the run in DIR with its saved config: give no CONFIG "
                                 "and no other --out")
            config = saved_run_config(args.resume, args.set)
            out = args.resume
        else:
            if not args.config:
                raise ValueError("give a CONFIG to run (train/configs/*.json), or --resume DIR")
            config = load_run_config(args.config, args.set)
            out = args.out or new_run_dir(config.method)
            _check_unused(out)
            _check_start(config)
        check_writable_directory("--out", out)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    if config.method == "rllib" and from_command_line and os.environ.get("PYTHONHASHSEED", "random") == "random":
        # RLlib's sampling follows Python's string hashes: one salt for every run (fifthave.train.rllib.train)
        os.execve(sys.executable, [sys.executable, "-m", "fifthave.train.run", *argv],
                  dict(os.environ, PYTHONHASHSEED="0"))
    atomic_write_text(os.path.join(out, RUN_CONFIG), json.dumps(config.to_dict(), indent=2))
    print(f"{config.method} run in {out}", flush=True)
    try:
        runner(config.method)(config, out, bool(args.resume), not args.no_progress, argv)
    except (FileExistsError, ValueError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
