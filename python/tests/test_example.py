"""examples/python_inference.py runs to the end on the repository's small models."""
import subprocess
import sys

import pytest

from conftest import SEEDS, repo_file


@pytest.mark.parametrize("model", [None, str(SEEDS / "tiny.bif")])
def test_the_example_runs(model):
    run = subprocess.run([sys.executable, repo_file("examples/python_inference.py")] +
                         ([model] if model else []), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "the .so gives the same P(e): True" in run.stdout
