"""Command-line tools: a bad option or a missing file gives one clear error line (exit code 2),
naming the flag and what is allowed, never a traceback."""

import re

import pytest

from fifthave.agents import bidlab_cli, play, tournament
from fifthave.agents.registry import AGENT_FACTORIES, PARAMETERIZED_AGENT_NAMES, agent_names_help
from fifthave_env import demo
from fifthave.train import publish

RANDOMS = ["--agents", "random*3", "--games", "3", "--workers", "1", "--quiet"]


@pytest.mark.parametrize("main,argv,match", [
    (tournament.main, ["--agents", "policy:missing.zip", "random*3", "--games", "4", "--workers", "1", "--quiet"],
     r"cannot read the agent file missing.zip: No such file"),
    (tournament.main, ["--agents", "search:-5", "random*3", "--games", "4", "--workers", "1", "--quiet"],
     r"ROLLOUTS of 'search:-5' must be an int from 1 to 4096, got -5"),
    (tournament.main, ["--agents", "values:nope.pt", "random*3", "--games", "4", "--workers", "1", "--quiet"],
     r"cannot read the agent file nope.pt: No such file"),
    (tournament.main, ["--agents", "rllib:nope", "random*3", "--games", "4", "--workers", "1", "--quiet"],
     r"'nope' is not a fifthave.train.rllib checkpoint"),
    (tournament.main, [*RANDOMS, "--seed", "-1"], r"argument --seed: must be an int from 0 to 4294967295, got -1"),
    (tournament.main, [*RANDOMS, "--workers", "0"], r"argument --workers: must be an int from 1 to 256, got 0"),
    (tournament.main, [*RANDOMS, "--orders-per-deal", "2"], r"orders_per_deal needs seat_orders='sample'"),
    (tournament.main, ["--resummarize", "no/such/result"], r"--resummarize no/such/result: .*No such file"),
    (play.main, ["--opponents", "policy:nope.zip"], r"cannot read the agent file nope.zip: No such file"),
    (play.main, ["--seed", "-1"], r"argument --seed: must be an int from 0 to 4294967295, got -1"),
    (publish.main, ["recipe", "--scale", "nan"], r"argument --scale: must be a finite number > 0, got 'nan'"),
    (demo.main, ["--every", "0"], r"argument --every: must be an int >= 1, got 0"),
    (demo.main, ["--every", "-2"], r"argument --every: must be an int >= 1, got -2"),
    (demo.main, ["--seed", "-1"], r"argument --seed: must be an int from 0 to 4294967295, got -1"),
    (bidlab_cli.main, ["study", "--workers", "-1"], r"argument --workers: must be an int from 1 to 256, got -1"),
    (bidlab_cli.main, ["compare", "--candidate", "reach", "--seed", "-1"], r"argument --seed: must be an int from 0 to 4294967295"),
    (bidlab_cli.main, ["compare", "--candidate", "reach", "--orders-per-deal", "2"],
     r"orders_per_deal needs seat_orders='sample'"),
])
def test_a_bad_option_is_one_clear_error_line(main, argv, match, capsys, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda *_: "q")  # fifthave play reads moves from stdin
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "error:" in error and re.search(match, error), error


@pytest.mark.parametrize("main", [tournament.main, play.main])
def test_every_command_taking_agents_lists_every_agent_name_in_its_help(main, capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps the list at any space
    assert f"agents: {agent_names_help()}" in help_text
    assert all(name in help_text for name in [*AGENT_FACTORIES, *PARAMETERIZED_AGENT_NAMES])
