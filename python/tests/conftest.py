"""Where the tests find their inputs: small models kept in the repository (the readers' fuzz
seeds, examples/), benchmark networks bundled under tests/data or in the shared benchmark folder
(tests needing one are skipped where neither has it), and the command line (for its messages)."""
import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SEEDS = REPO / "tests" / "fuzz" / "seeds"


def repo_file(relative):
    return str(REPO / relative)


def benchmark(kind, name):
    """A benchmark input (kind: bn, wcsp, uai): bundled copy first, then the shared folder."""
    shared = os.environ.get("ZBDDC_SHARED_BENCHMARKS") or str(REPO.parent / "shared" / "benchmarks")
    for folder in (REPO / "tests" / "data" / kind, REPO / "tests" / "data",
                   pathlib.Path(shared) / kind):
        if (folder / name).is_file():
            return str(folder / name)
    pytest.skip(f"{name} is neither bundled under tests/data nor in {shared}/{kind}")


def cli():
    """The zbddc command line of the same build, for comparing messages; skipped without it."""
    path = os.environ.get("ZBDDC_CLI") or str(REPO / "build" / "zbddc")
    if not os.access(path, os.X_OK):
        path = shutil.which("zbddc")
    if not path:
        pytest.skip("no zbddc command line to compare with (set ZBDDC_CLI)")
    return path
