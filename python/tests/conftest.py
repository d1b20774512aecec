"""Where the tests find their inputs: small models kept in the repository (the readers' fuzz
seeds, examples/), benchmark networks from the bundled test data (tests/data, unpacked into the
build tree's tests/data by the configure step) or else the shared benchmark folder (tests that
need one are skipped where neither has it), and the command line (for its messages)."""
import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SEEDS = REPO / "tests" / "fuzz" / "seeds"


def repo_file(relative):
    return str(REPO / relative)


def benchmark(kind, name):
    """A benchmark input (kind: bn, wcsp, uai): the unpacked test data first, then the shared
    folder."""
    unpacked = os.environ.get("ZBDDC_TEST_DATA") or str(REPO / "build" / "tests" / "data")
    shared = os.environ.get("ZBDDC_SHARED_BENCHMARKS") or str(REPO.parent / "shared" / "benchmarks")
    for folder in (pathlib.Path(unpacked) / kind, pathlib.Path(shared) / kind):
        if (folder / name).is_file():
            return str(folder / name)
    pytest.skip(f"{name} is neither in {unpacked}/{kind} nor in {shared}/{kind}")


def cli():
    """The zbddc command line of the same build, for comparing messages; skipped without it."""
    path = os.environ.get("ZBDDC_CLI") or str(REPO / "build" / "zbddc")
    if not os.access(path, os.X_OK):
        path = shutil.which("zbddc")
    if not path:
        pytest.skip("no zbddc command line to compare with (set ZBDDC_CLI)")
    return path
