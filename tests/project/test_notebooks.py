"""Every notebook runs top to bottom (small budgets) and is saved without outputs.

The notebooks read ``FIFTHAVE_NOTEBOOK_QUICK=1`` to shrink their budgets. They
run in a fresh kernel of this very interpreter (a kernel spec written for the
test, so that a "python3" kernel installed elsewhere for another Python cannot
be picked up), with a temporary working directory, so the files they write
(game.json, game.gif, checkpoints) do not land in the repository.
"""

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
CELL_TIMEOUT = 150  # seconds; the whole quick run of all notebooks stays under 3 minutes
KERNEL_NAME = "fifthave-test"


@pytest.fixture
def this_interpreter_kernel(tmp_path, monkeypatch):
    """A kernel spec running ``sys.executable``, found first through JUPYTER_PATH."""
    spec_dir = tmp_path / "jupyter" / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "fifthave test", "language": "python"}
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return KERNEL_NAME


def test_the_notebooks_are_there():
    assert [p.name for p in NOTEBOOKS] == ["01_quickstart.ipynb", "02_bidding_strategies.ipynb", "03_training.ipynb",
                                            "04_your_bidding_strategy.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_saved_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"{path.name} cell {index} has stale outputs"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom(path, tmp_path, monkeypatch, this_interpreter_kernel):
    monkeypatch.setenv("FIFTHAVE_NOTEBOOK_QUICK", "1")
    workdir = tmp_path / "work"
    workdir.mkdir()
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name=this_interpreter_kernel,
                            resources={"metadata": {"path": str(workdir)}})
    client.execute()  # raises CellExecutionError, with the failing cell and traceback, on any error
    errors = [output for cell in notebook.cells if cell.cell_type == "code"
              for output in cell.outputs if output.output_type == "error"]
    assert not errors
