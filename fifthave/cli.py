"""The ``fifthave`` command: one entry point, a subcommand per tool.

    fifthave --help                  every subcommand with one line on what it does
    fifthave tournament --help       that subcommand's own options
    fifthave tournament --agents heuristic random*3 --games 40

Each subcommand is the ``main(argv)`` of an existing module, imported only when that subcommand runs, so
``fifthave --help`` imports no training or web library (torch, Ray, sb3, starlette) and answers at once.
``python -m fifthave.agents.tournament ...`` and the other modules keep working on their own.
"""

import argparse
import difflib
import importlib
import os
import sys
from collections.abc import Sequence
from contextlib import contextmanager


def _models_main(argv=None):
    """List the committed models (``fifthave.agents.models.available()``)."""
    parser = argparse.ArgumentParser(
        description="The trained models committed with the repository; each name is an agent name of every "
                    "command (fifthave tournament --agents values-4p heuristic*3).")
    parser.parse_args(argv)
    from fifthave.agents import models

    for model in models.available():
        print(f"{model.name:12s} {model.num_players} players, board {model.board}  results/{model.path}")
        print(f"{'':12s} {model.description}")


# name: ("module:function", one-line summary, the extra the module needs beyond the base install)
COMMANDS = {
    "play": ("fifthave.agents.play:main", "play a game in the terminal against agents", None),
    "tournament": ("fifthave.agents.tournament:main",
                   "seat-rotated games between agents: win rates with intervals, tables to CSV/JSON", None),
    "evaluate": ("fifthave.agents.panel:main",
                 "one agent against the robustness panel of opponent fields (the panel minimum is the headline)",
                 None),
    "leaderboard": ("fifthave.agents.leaderboard:main",
                    "every committed agent against the same panel fields, one page (results/leaderboard)", None),
    "bidlab": ("fifthave.agents.bidlab_cli:main", "the bidding lab: paired comparisons of bidding strategies", None),
    "replay": ("fifthave_env.replay:main", "turn a recorded game or a saved state into a GIF or PNG frames", None),
    "demo": ("fifthave_env.demo:main", "a demonstration game between random players, printed in the terminal", None),
    "serve": ("fifthave.agents.web.server:main", "the web app: play against agents in a browser", "web"),
    "train": ("fifthave.train.run:main",
              "train an agent from one config file (PPO, self-play, cloning, candidate values, RLlib)", "train"),
    "publish": ("fifthave.train.publish:main",
                "train a committed recipe end to end, evaluate it and write its results README", "train"),
    "bench": ("fifthave.bench:main", "time the workloads users run, each as a cost in engine steps", None),
    "models": ("fifthave.cli:_models_main", "list the trained models committed with the repository", None),
}


def _version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fifthave")
    except PackageNotFoundError:
        return "(not installed)"


def _parser():
    width = max(map(len, COMMANDS))
    listing = "\n".join(f"  {name:{width}s}  {summary}" for name, (_, summary, _) in COMMANDS.items())
    parser = argparse.ArgumentParser(
        prog="fifthave", formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="fifthave [-h] [--version] COMMAND [ARGS ...]",
        description="Fifth Avenue, the board game, as a reinforcement-learning environment.",
        epilog=f"commands:\n{listing}\n\n'fifthave COMMAND --help' lists the options of one command.")
    parser.add_argument("--version", action="version", version=f"fifthave {_version()}")
    return parser


@contextmanager
def _command_line(name, argv):
    """``sys.argv`` as if ``fifthave NAME`` were the program and ``argv`` its arguments, so that the
    subcommand's argparse calls itself ``fifthave NAME`` and its ``main()`` reads its own command line (as when
    its module runs: ``fifthave train`` of an RLlib config restarts itself with unsalted string hashes)."""
    saved = list(sys.argv)
    sys.argv[:] = [name, *argv]
    try:
        yield
    finally:
        sys.argv[:] = saved


def _load(name):
    """The subcommand's function, or a clear error if its module (or a library it needs) is missing."""
    target, _, extra = COMMANDS[name]
    module_name, function = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or str(error)
        if missing == module_name or module_name.startswith(f"{missing}."):
            _parser().exit(2, f"fifthave {name}: this install has no {module_name}, which the command runs\n")
        hint = f"; install the {extra} extra: pip install 'fifthave[{extra}]'" if extra else ""
        _parser().exit(2, f"fifthave {name}: needs the library {missing!r}, which is not installed{hint}\n")
    return getattr(module, function)


def main(argv: Sequence[str] | None = None) -> int | None:
    """Run ``fifthave COMMAND ARGS``; returns the subcommand's exit code (``None`` for 0)."""
    from_command_line = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    if not argv or argv[0].startswith("-"):
        parser.parse_args(argv)  # --help and --version exit here; any other option is an error
        parser.error(f"choose a command: {', '.join(COMMANDS)}")
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        close = difflib.get_close_matches(name, COMMANDS, n=1)
        parser.error(f"unknown command {name!r}" + (f" (did you mean {close[0]!r}?)" if close else "")
                     + f"; commands: {', '.join(COMMANDS)}")
    command = _load(name)
    with _command_line(f"fifthave {name}", rest):
        try:  # from the command line the subcommand reads it as its own (argv None), as its module would
            return command(None if from_command_line else rest)
        except BrokenPipeError:
            # the reader went away (fifthave tournament ... | head): no traceback; as the Python docs advise,
            # point stdout at devnull so the interpreter's final flush does not fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1


if __name__ == "__main__":
    sys.exit(main())
