"""The ``fifthave`` command (fifthave/cli.py): every subcommand answers --help, an unknown one says what exists,
and ``fifthave --help`` imports none of the heavy libraries (so it answers at once)."""

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from fifthave import cli

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "ray", "sb3_contrib", "stable_baselines3", "starlette", "uvicorn", "gymnasium", "pettingzoo")


def _module(name):
    return cli.COMMANDS[name][0].split(":")[0]


def _exists(module):
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def test_the_only_console_script_is_fifthave():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"fifthave": "fifthave.cli:main"}


def test_help_lists_every_subcommand_with_its_summary(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for name, (_, summary, _) in cli.COMMANDS.items():
        assert f"  {name} " in out and summary in out
    assert {"play", "tournament", "evaluate", "bidlab", "replay", "serve", "demo", "train", "publish", "bench",
            "models"} <= set(cli.COMMANDS)


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_subcommand_answers_help_under_its_own_name(name, capsys):
    argv0 = sys.argv[0]
    with pytest.raises(SystemExit) as exit_info:
        cli.main([name, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: fifthave {name}") or f"usage: fifthave {name}" in out.splitlines()[0], out
    assert sys.argv[0] == argv0  # the program name is lent to the subcommand, then restored


def test_every_subcommand_names_a_module_that_exists():
    missing = [name for name in cli.COMMANDS if not _exists(_module(name))]
    assert missing == []
    for name, (target, _, _) in cli.COMMANDS.items():
        if _exists(_module(name)):
            assert callable(getattr(importlib.import_module(_module(name)), target.split(":")[1]))


@pytest.mark.parametrize("argv,match", [
    (["nosuch"], "fifthave: error: unknown command 'nosuch'; commands: play, tournament, "),
    (["tournement"], "unknown command 'tournement' (did you mean 'tournament'?)"),
    ([], "fifthave: error: choose a command: play, tournament, "),
    (["--nosuch"], "fifthave: error: unrecognized arguments: --nosuch"),
])
def test_an_unknown_or_missing_subcommand_says_what_exists(argv, match, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert match in error
    if argv != ["--nosuch"]:
        assert error.endswith(", ".join(cli.COMMANDS))


def test_a_subcommand_error_keeps_its_exit_code_and_names_fifthave_sub(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["tournament", "--agents", "random*4", "--seed", "-1"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error == "fifthave tournament: error: argument --seed: must be an int from 0 to 4294967295, got -1"


def test_a_missing_module_or_library_is_one_clear_line(monkeypatch, capsys):
    def missing(name):
        def import_module(module_name):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return import_module

    monkeypatch.setattr(cli.importlib, "import_module", missing("torch"))
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", "config.json"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == ("fifthave train: needs the library 'torch', which is not installed; install "
                                       "the train extra: pip install 'fifthave[train]'\n")
    monkeypatch.setattr(cli.importlib, "import_module", missing("fifthave.bench"))
    with pytest.raises(SystemExit):
        cli.main(["bench"])
    assert capsys.readouterr().err == "fifthave bench: this install has no fifthave.bench, which the command runs\n"


def test_models_lists_the_committed_models(capsys):
    from fifthave.agents import models

    assert cli.main(["models"]) is None
    out = capsys.readouterr().out
    assert all(f"results/{model.path}" in out and model.name in out for model in models.available())


def test_help_imports_no_heavy_library():
    code = ("import sys\nfrom fifthave import cli\ntry:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"
    assert "  train " in result.stdout


def test_the_console_script_runs_the_command():
    """``python -m fifthave.cli`` is the installed ``fifthave``; the exit code reaches the shell."""
    result = subprocess.run([sys.executable, "-m", "fifthave.cli", "nosuch"], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 2 and "unknown command 'nosuch'" in result.stderr


def test_a_reader_that_goes_away_ends_the_command_without_a_traceback():
    """``fifthave tournament ... | head``: the closed pipe is exit code 1 and no traceback."""
    code = ("import sys\nfrom fifthave import cli\n"
            "def spam(argv):\n    for _ in range(10**6):\n        print('x' * 100)\n"
            "cli.spam = spam\ncli.COMMANDS['spam'] = ('fifthave.cli:spam', 'prints', None)\n"
            "sys.exit(cli.main(['spam']))\n")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    process.stdout.readline()
    process.stdout.close()
    error = process.stderr.read().decode()
    assert process.wait(timeout=60) == 1 and error == ""
