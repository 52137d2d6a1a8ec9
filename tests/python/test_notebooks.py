"""The notebooks of notebooks/: committed without outputs, identical to what notebooks/make_notebooks.py
writes, and each one executes headless (nbclient, kernel python3) against the sandbox without a cell error.

Executing them takes a few seconds each, so they are marked `slow`; they still run in the default test
command (nothing deselects the marker).
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
NAMES = ["01-quick-start.ipynb", "02-flaky-test-triage.ipynb", "03-merge-queue-automation.ipynb",
         "04-merge-queue-what-if.ipynb", "05-history-with-duckdb.ipynb", "06-your-queues-twin.ipynb"]


def _generator():
    spec = importlib.util.spec_from_file_location("make_notebooks", NOTEBOOK_DIR / "make_notebooks.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def python3_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The kernel the notebooks name, running this interpreter (the one with the trunk_api under test): a
    kernelspec of its own, first on JUPYTER_PATH, so a "python3" kernel registered for the user (perhaps by
    another interpreter or a deleted venv) is not the one that runs them. Nothing is written outside tmp."""
    from jupyter_client.kernelspec import KernelSpecManager

    jupyter_path = tmp_path_factory.mktemp("jupyter")
    subprocess.run([sys.executable, "-m", "ipykernel", "install", "--prefix", str(jupyter_path)], check=True,
                   capture_output=True)
    kernels = jupyter_path / "share" / "jupyter"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", os.pathsep.join(filter(None, [str(kernels), os.environ.get("JUPYTER_PATH")])))
        spec = KernelSpecManager().get_kernel_spec("python3")
        assert Path(spec.resource_dir).is_relative_to(kernels)
        assert spec.argv[0] == sys.executable
        yield "python3"


def test_the_notebooks_are_there():
    assert sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb")) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_has_no_outputs(name):
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def _cells(notebook) -> list[tuple[str, str, str]]:
    return [(cell.cell_type, cell.get("id", ""), cell.source) for cell in notebook.cells]


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_is_what_the_generator_writes(name):
    # Compared cell by cell rather than byte for byte, so another nbformat version's JSON layout does not matter.
    committed = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    generated = nbformat.reads(_generator().render(name), as_version=4)
    assert _cells(committed) == _cells(generated), "run python3 notebooks/make_notebooks.py and commit the result"
    assert committed.metadata.kernelspec.name == "python3"


def _outputs(notebook, output_type: str) -> list:
    return [out for cell in notebook.cells if cell.cell_type == "code" for out in cell.outputs
            if out.output_type == output_type]


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_executes_without_errors(name, python3_kernel, tmp_path):
    notebook = nbformat.read(NOTEBOOK_DIR / name, as_version=4)
    # Runs in a scratch directory so nothing is written into the repository. A failing cell raises
    # CellExecutionError, with the cell and the traceback in the message.
    NotebookClient(notebook, timeout=180, kernel_name=python3_kernel,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert _outputs(notebook, "error") == []
    # Nothing is left in the notebook's own folder (in a clone: notebooks/, where it would stay untracked).
    assert list(tmp_path.iterdir()) == []
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count is not None for cell in code_cells)
    # Every notebook shows results (tables, text); the triage notebook also draws its chart.
    assert _outputs(notebook, "execute_result") or _outputs(notebook, "display_data")
    if name[:2] in ("02", "04", "05"):
        images = [out for out in _outputs(notebook, "display_data") if "image/png" in out.get("data", {})]
        assert len(images) == 1
    if name.startswith("06"):
        # The twin's notebook draws the arrivals, the CI durations and latency against cost, answers for every
        # configuration it names, and sets the service's own month beside the prediction.
        images = [out for out in _outputs(notebook, "display_data") if "image/png" in out.get("data", {})]
        assert len(images) == 3
        text = "".join(str(out.get("data", {}).get("text/plain", "")) for out in _outputs(notebook, "execute_result"))
        assert all(config in text for config in ("today: 3 at once", "1 at a time, batches of 4", "6 at once")), text
        assert "inside the interval" in text and "hidden truth" in text, text
    if name.startswith("04"):
        # The what-if compares the three configurations (Trunk's meanings), and names a winner worked out from
        # the results table.
        text = "".join(str(out.get("data", {}).get("text/plain", "")) for out in _outputs(notebook, "execute_result"))
        assert all(config in text for config in ("single-1", "single-4", "parallel-4")), text
        verdict = "".join(str(out.get("data", {}).get("text/markdown", ""))
                          for out in _outputs(notebook, "execute_result"))
        assert re.search(r"\*\*(single-1|single-4|parallel-4)\*\* wins", verdict), verdict
    if name.startswith("03"):
        # The mode change while pull request 101 tests: one row per five minutes of virtual clock, the queue
        # switching_modes while 101 tests, running (in parallel mode) once 101 has merged.
        steps = next(cell for cell in notebook.cells if cell.cell_type == "code" and "steps = []" in cell.source)
        table = "".join(str(out.get("data", {}).get("text/plain", "")) for out in steps.outputs
                        if out.output_type == "execute_result")
        rows = [line.split()[2:] for line in table.splitlines()[1:]]  # index, minutes, then the two states
        assert len(rows) >= 2
        assert all(row == ["switching_modes", "testing"] for row in rows[:-1]), table
        assert rows[-1] == ["running", "merged"], table
        final = notebook.cells[notebook.cells.index(steps) + 1]
        assert "parallel" in str(final.outputs[0].get("data", {}).get("text/plain", ""))
