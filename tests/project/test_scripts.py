"""scripts/run.sh: the default config unless another is given, --resume alone continues the newest run, and setup
runs only when .venv is missing or pyproject.toml changed (so --help answers at once);
fifthave publish: a run directory per run, results/ only with --write-results; scripts/head_to_head.py: the paired
result of two named agents."""

import importlib.util
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Records every call; `-c ...` (setup's "import torch" check) succeeds; anything else prints its arguments.
FAKE_VENV_PYTHON = '#!/usr/bin/env bash\necho "$*" >> "$(dirname "$0")/../../calls.log"\necho "$@"\n'


def fake_repo(tmp_path):
    """run.sh and setup.sh in a copy of the layout, with a .venv whose python only records and echoes."""
    (tmp_path / "scripts").mkdir()
    for script in ("run.sh", "setup.sh"):
        shutil.copy(ROOT / "scripts" / script, tmp_path / "scripts" / script)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'fifthave'\n")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_VENV_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def run(repo, *args):
    result = subprocess.run(["bash", str(repo / "scripts" / "run.sh"), *args], capture_output=True, text=True,
                            cwd="/")
    last = result.stdout.splitlines()[-1] if result.stdout else ""
    return result.returncode, last.removeprefix("-m fifthave.cli train "), result.stderr


def pip_installs(repo):
    calls = repo / "calls.log"
    return sum("-m pip install" in line for line in calls.read_text().splitlines()) if calls.exists() else 0


def test_run_trains_the_default_config_unless_given_one_and_resume_continues_the_newest(tmp_path):
    repo = fake_repo(tmp_path)
    code, _, error = run(repo, "--resume")
    assert code == 2 and "no runs/DATE-TIME-METHOD directory to continue; pass --resume DIR" in error
    default = "train/configs/ppo_vs_random.json"
    assert run(repo)[:2] == (0, default)
    assert run(repo, "--set", "run.steps=2048")[:2] == (0, f"{default} --set run.steps=2048")
    selfplay = "train/configs/selfplay.json"
    assert run(repo, selfplay, "--out", "runs/mine")[1] == f"{selfplay} --out runs/mine"
    os.makedirs(repo / "runs" / "20261126-101010-ppo")
    os.makedirs(repo / "runs" / "20261126-111111-selfplay")
    assert run(repo, "--resume")[1] == "--resume runs/20261126-111111-selfplay"
    assert run(repo, "--resume", "runs/x")[1] == "--resume runs/x"


def test_run_sets_up_only_when_the_venv_is_new_or_pyproject_changed(tmp_path):
    repo = fake_repo(tmp_path)
    assert run(repo, "--help")[:2] == (0, "--help") and pip_installs(repo) == 1  # no stamp yet: setup runs
    assert (repo / ".venv" / ".setup-stamp").is_file()
    assert run(repo, "--help")[:2] == (0, "--help") and pip_installs(repo) == 1  # the stamp matches: no setup
    with open(repo / "pyproject.toml", "a") as f:
        f.write("version = '0.2.0'\n")
    assert run(repo, "--help")[:2] == (0, "--help") and pip_installs(repo) == 2  # pyproject changed: setup again
    assert run(repo, "--help")[:2] == (0, "--help") and pip_installs(repo) == 2
    result = subprocess.run(["bash", str(repo / "scripts" / "setup.sh")], capture_output=True, text=True)
    assert result.returncode == 0 and pip_installs(repo) == 3  # without --if-needed setup always installs
    result = subprocess.run(["bash", str(repo / "scripts" / "setup.sh"), "--if-neded"], capture_output=True, text=True)
    assert result.returncode == 2 and "unknown option --if-neded (allowed: --if-needed)" in result.stderr


# ---- fifthave publish ---------------------------------------------------------------------------------------

@pytest.fixture
def publish_repo(tmp_path, monkeypatch):
    """fifthave.train.publish in a copy of the layout with committed results, its child processes faked: each
    call is recorded and writes what fifthave train (a PPO run with its report, a candidate-values run) and
    fifthave tournament would; exporting the final policy is faked too."""
    from fifthave.train import publish

    (tmp_path / "train" / "configs").mkdir(parents=True)
    for config in ("bc_search_advised.json", "candidate_values_4p.json"):
        shutil.copy(os.path.join(ROOT, "train", "configs", config), tmp_path / "train" / "configs" / config)
    (tmp_path / "results" / "training" / "values").mkdir(parents=True)
    (tmp_path / "results" / "training" / "README.md").write_text("# committed\n")
    (tmp_path / "results" / "training" / "values" / "values.npz").write_text("committed\n")
    calls = []

    def fake_run(module, args, stdout=None):
        assert module == "fifthave.cli"
        calls.append(" ".join(args))
        option = {key: value for key, value in zip(args, args[1:])}
        if args[0] == "train":
            run_dir = tmp_path / (option.get("--out") or option["--resume"])
            run_dir.mkdir(parents=True, exist_ok=True)
            (run_dir / "run_config.json").write_text("{}\n")
            if "candidate_values" in args[1]:
                for name in ("values.npz", "report.json", "values_vs_heuristic.csv"):
                    (run_dir / name).touch()
                return
            (run_dir / "checkpoints").mkdir(exist_ok=True)
            (run_dir / "README.md").write_text("# report\n")
            for name in ("results.csv", "run.json"):
                (run_dir / name).touch()
            for steps in ("0000000000", "0000000015"):
                for suffix in (".zip", ".npz"):
                    (run_dir / "checkpoints" / f"ckpt_{steps}{suffix}").touch()
        elif args[0] == "tournament":
            stdout.write(f"table\nwrote {option['--out']}.csv\n")

    def fake_export(checkpoint, out):
        with open(out, "w"):
            return 0

    monkeypatch.setattr(publish, "ROOT", str(tmp_path))
    monkeypatch.setattr(publish, "_run", fake_run)
    monkeypatch.setattr("fifthave.train.export.export_checkpoint", fake_export)
    monkeypatch.setattr("fifthave.train.checkpoint.export_policy", fake_export)
    return tmp_path, publish.main, calls


def files_under(directory):
    return {path: path.read_bytes() for path in directory.rglob("*") if path.is_file()}


def test_publish_recipe_writes_a_run_directory_and_the_results_only_when_asked(publish_repo, capsys):
    repo, main, calls = publish_repo
    committed = files_under(repo / "results")
    main(["recipe", "--eval-games", "8", "--scale", "0.01"])
    assert files_under(repo / "results") == committed
    (run_dir,) = (repo / "runs").glob("recipe-*")
    training, *tournaments = calls
    # the recipe is trained by fifthave train, its --scale a list of --set options of that command
    assert training.startswith(f"train train/configs/bc_search_advised.json --out runs/{run_dir.name} "
                               "--no-progress --set=run.steps=0 --set=evaluation.every=")
    assert "--set=bc.games=15 " in training and "--set=evaluation.games=4 " in training
    newest = f"runs/{run_dir.name}/checkpoints/ckpt_0000000015.npz"
    assert tournaments[0].startswith(f"tournament --agents policy:{newest}:greedy heuristic*3 --games 8")
    assert f"--out runs/{run_dir.name}/final_vs_random" in tournaments[1]
    evaluation = (run_dir / "final_evaluation.md").read_text()
    assert "Retrain: `fifthave publish recipe --eval-games 8 --scale 0.01`." in evaluation
    assert f"    fifthave tournament --agents policy:{newest}:greedy random*3 --games 8 --seed 2026 --out " \
           f"runs/{run_dir.name}/final_vs_random\n" in evaluation
    assert "```\ntable\n```" in evaluation and "wrote " not in evaluation
    assert (run_dir / "README.md").read_text() == "# report\n"  # the run's own README is not appended to
    assert "results/ is unchanged" in capsys.readouterr().out

    # the run writes its report again when it resumes, so publishing twice appends the evaluation once
    main(["recipe", "--write-results", "--run-dir", str(repo / "runs" / "mine"), "--eval-games", "8"])
    main(["recipe", "--write-results", "--resume", str(repo / "runs" / "mine"), "--eval-games", "8"])
    readme = (repo / "results" / "training" / "README.md").read_text()
    assert readme.startswith("# report\n") and readme.count("## Final evaluation of policy.npz") == 1
    assert "fifthave tournament --agents policy:results/training/policy.npz:greedy heuristic*3" in readme
    assert calls[-6] == "train train/configs/bc_search_advised.json --out runs/mine --no-progress"
    assert calls[-3] == "train --resume runs/mine --no-progress"
    assert {"policy.npz", "policy.zip", "results.csv", "run.json"} <= set(os.listdir(repo / "results" / "training"))
    assert (repo / "runs" / "mine" / "final_evaluation.md").is_file()


def test_publish_values_writes_a_run_directory_and_the_results_only_when_asked(publish_repo, capsys):
    repo, main, calls = publish_repo
    committed = files_under(repo / "results")
    main(["values"])
    assert files_under(repo / "results") == committed
    (run_dir,) = (repo / "runs").glob("values-*")
    assert calls == [f"train train/configs/candidate_values_4p.json --out runs/{run_dir.name} --no-progress"]
    assert f"play it as values:runs/{run_dir.name}/values.npz" in capsys.readouterr().out

    main(["values", "--run-dir", str(repo / "runs" / "mine"), "--write-results"])
    published = repo / "results" / "training" / "values"
    assert sorted(path.name for path in published.iterdir()) == [
        "config.json", "report.json", "values.npz", "values_vs_heuristic.csv"]
    assert (published / "values.npz").read_text() == ""


@pytest.mark.parametrize("argv,match", [
    (["values", "--scale", "2"], "unrecognized arguments: --scale 2"),
    (["recipe", "--scale", "nan"], "argument --scale: must be a finite number > 0, got 'nan'"),
    (["recipe", "--config", "train/configs/candidate_values_4p.json"], "is a candidate_values run; recipe publishes"),
    (["recipe", "--run-dir", "a", "--resume", "b"], "argument --resume: not allowed with argument --run-dir"),
    (["recipe", "--eval-games", "0"], "argument --eval-games: must be an int >= 1, got 0"),
    (["recipe", "--config", "no/such.json"], "--config no/such.json: no such file"),
    (["nosuch"], "invalid choice: 'nosuch'"),
])
def test_publish_refuses_bad_options_in_one_line_before_running_anything(publish_repo, argv, match, capsys):
    repo, main, calls = publish_repo
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2 and match in capsys.readouterr().err.splitlines()[-1]
    assert calls == [] and not (repo / "runs").exists()


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_head_to_head_writes_the_paired_result_of_two_named_agents(tmp_path, capsys):
    from fifthave.agents.tournament import agent_factory
    from fifthave.train.values_curve import paired_head_to_head

    head_to_head = load_script("head_to_head")
    out = tmp_path / "h2h.json"
    report = head_to_head.main(["random", "heuristic", "--games", "20", "--seed", "3", "--out", str(out)])
    assert json.loads(out.read_text()) == report and json.loads(capsys.readouterr().out) == report
    assert report["command"] == "scripts/head_to_head.py random heuristic --players 2 --board 5 --games 20 --seed 3"
    direct = paired_head_to_head(("random", agent_factory("random")), ("heuristic", agent_factory("heuristic")),
                                 2, 5, 20, 3, 1)
    assert report["result"]["difference"] == round(direct["difference"], 4) > 0.3
    assert report["result"]["games"] == 20 and report["result"]["deals"] == 10
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        head_to_head.main(["random", "nobody", "--games", "20"])
