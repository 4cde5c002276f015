"""scripts/run.sh: a fresh run directory per run, --resume continues the newest, --run-dir is respected;
scripts/train_recipe.sh and train_values.sh: a run directory per run, results/ only with --publish."""

import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fake_repo(tmp_path):
    """run.sh in a copy of the layout, with setup.sh doing nothing and fifthave-train printing its arguments."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "run.sh", tmp_path / "scripts" / "run.sh")
    (tmp_path / "scripts" / "setup.sh").write_text("echo setup\n")
    train = tmp_path / ".venv" / "bin" / "fifthave-train"
    train.parent.mkdir(parents=True)
    train.write_text('#!/usr/bin/env bash\necho "$@"\n')
    train.chmod(train.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def run(repo, *args):
    result = subprocess.run(["bash", str(repo / "scripts" / "run.sh"), *args], capture_output=True, text=True,
                            cwd="/")
    return result.returncode, result.stdout.splitlines()[-1] if result.stdout else "", result.stderr


def test_every_run_gets_its_own_directory_and_resume_continues_the_newest(tmp_path):
    repo = fake_repo(tmp_path)
    code, _, error = run(repo, "--resume")
    assert code == 2 and "no runs/run-* directory to continue; pass --run-dir DIR" in error
    code, first, _ = run(repo, "--total-timesteps", "2048")
    assert code == 0 and first.startswith("--total-timesteps 2048 --run-dir runs/run-")
    os.makedirs(repo / first.split()[-1])
    time.sleep(1.1)  # directories are named to the second
    code, second, _ = run(repo)
    assert code == 0 and second.startswith("--run-dir runs/run-") and second.split()[-1] != first.split()[-1]
    os.makedirs(repo / second.split()[-1])
    assert run(repo, "--resume")[1] == f"--resume --run-dir {second.split()[-1]}"
    assert run(repo, "--run-dir", "runs/mine")[1] == "--run-dir runs/mine"
    assert run(repo, "--resume", "--run-dir=runs/mine")[1] == "--resume --run-dir=runs/mine"


FAKE_PYTHON = r'''#!/usr/bin/env bash
# Records its arguments and writes what fifthave.train.experiment, fifthave.agents.tournament and fifthave.train.candidate_values would.
echo "$*" >> calls.log
module=$2; shift 2
run_dir="" out="" publish=""
while (($#)); do
    case $1 in --run-dir) run_dir=$2 ;; --out) out=$2 ;; --publish) publish=1 ;; esac
    shift
done
case $module in
    fifthave.train.experiment)
        mkdir -p "$run_dir/checkpoints"
        echo "# experiment" > "$run_dir/README.md"
        touch "$run_dir/checkpoints/ckpt_0000000000.zip" "$run_dir/checkpoints/ckpt_0000000015.zip"
        touch "$run_dir/checkpoints/ckpt_0000000000.npz" "$run_dir/checkpoints/ckpt_0000000015.npz"
        if [ -n "$publish" ]; then mkdir -p "$out"; echo "# experiment" > "$out/README.md"; touch "$out/policy.zip" "$out/policy.npz"; fi ;;
    fifthave.agents.tournament) echo "table"; echo "wrote $out.csv" ;;
    fifthave.train.candidate_values) mkdir -p "$run_dir"; touch "$run_dir/values.npz" "$run_dir/report.json" "$run_dir/values_vs_heuristic.csv" ;;
esac
'''


def fake_training_repo(tmp_path):
    """The training scripts in a copy of the layout, with committed results and a PYTHON that only records."""
    (tmp_path / "scripts").mkdir()
    for script in ("train_recipe.sh", "train_values.sh", "publish_options.sh"):
        shutil.copy(ROOT / "scripts" / script, tmp_path / "scripts" / script)
    (tmp_path / "train" / "configs").mkdir(parents=True)
    (tmp_path / "train" / "configs" / "candidate_values.json").write_text("{}\n")
    (tmp_path / "results" / "training" / "values").mkdir(parents=True)
    (tmp_path / "results" / "training" / "README.md").write_text("# committed\n")
    (tmp_path / "results" / "training" / "values" / "values.npz").write_text("committed\n")
    python = tmp_path / "fake_python"
    python.write_text(FAKE_PYTHON)
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def run_training_script(repo, script, *args):
    return subprocess.run(["bash", str(repo / "scripts" / script), *args], capture_output=True, text=True, cwd="/",
                          env={**os.environ, "PYTHON": str(repo / "fake_python"), "EVAL_GAMES": "8"})


def files_under(directory):
    return {path: path.read_bytes() for path in directory.rglob("*") if path.is_file()}


def test_train_recipe_writes_a_run_directory_and_publishes_only_when_asked(tmp_path):
    repo = fake_training_repo(tmp_path)
    committed = files_under(repo / "results")
    result = run_training_script(repo, "train_recipe.sh", "--scale", "0.01")
    assert result.returncode == 0, result.stderr
    assert files_under(repo / "results") == committed
    (run_dir,) = (repo / "runs").glob("recipe-*")
    experiment, *tournaments = (repo / "calls.log").read_text().splitlines()
    assert "--publish" not in experiment and f"--run-dir runs/{run_dir.name}" in experiment
    assert experiment.endswith("--no-progress --scale 0.01")
    newest = f"runs/{run_dir.name}/checkpoints/ckpt_0000000015.npz"
    assert tournaments[0].startswith(f"-m fifthave.agents.tournament --agents policy:{newest}:greedy heuristic*3 --games 8")
    assert f"--out runs/{run_dir.name}/final_vs_random" in tournaments[1]
    evaluation = (run_dir / "final_evaluation.md").read_text()
    assert "Retrain: `bash scripts/train_recipe.sh --scale 0.01`." in evaluation
    assert (run_dir / "README.md").read_text() == "# experiment\n"  # the run's own README is not appended to

    for _ in range(2):  # the experiment rewrites the README, so publishing twice appends the evaluation once
        result = run_training_script(repo, "train_recipe.sh", "--publish", "--run-dir=runs/mine")
        assert result.returncode == 0, result.stderr
    readme = (repo / "results" / "training" / "README.md").read_text()
    assert readme.startswith("# experiment\n") and readme.count("## Final evaluation of policy.npz") == 1
    assert "policy:results/training/policy.npz:greedy heuristic*3" in readme
    assert "--out results/training --publish --no-progress" in (repo / "calls.log").read_text()


def test_train_values_writes_a_run_directory_and_publishes_only_when_asked(tmp_path):
    repo = fake_training_repo(tmp_path)
    committed = files_under(repo / "results")
    result = run_training_script(repo, "train_values.sh")
    assert result.returncode == 0, result.stderr
    assert files_under(repo / "results") == committed
    (run_dir,) = (repo / "runs").glob("values-*")
    assert f"play it as values:runs/{run_dir.name}/values.npz" in result.stdout

    result = run_training_script(repo, "train_values.sh", "--run-dir", "runs/mine", "--publish")
    assert result.returncode == 0, result.stderr
    published = repo / "results" / "training" / "values"
    assert sorted(path.name for path in published.iterdir()) == [
        "config.json", "report.json", "values.npz", "values_vs_heuristic.csv"]
    assert (published / "values.npz").read_text() == ""

    result = run_training_script(repo, "train_values.sh", "--games", "6")
    assert result.returncode == 2 and "unknown option --games" in result.stderr
