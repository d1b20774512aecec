"""What the command line says beside its answers reaches Python: the reader's warnings (as
ReadingWarning, the command line's line), and loopy BP's convergence per case."""
import subprocess
import warnings

import numpy as np
import pytest

import zbddc
from conftest import SEEDS, cli
from pyagrum_oracle import Oracle


def test_a_row_not_summing_to_one_is_a_reading_warning(tmp_path):
    odd = tmp_path / "odd.bif"
    odd.write_text("network n {\n}\nvariable A {\n  type discrete [ 2 ] { yes, no };\n}\n"
                   "probability ( A ) {\n  table 0.3, 0.6;\n}\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = zbddc.load(str(odd))
    assert [w.category for w in caught] == [zbddc.ReadingWarning]
    assert caught[0].filename == __file__  # pointed at the caller of load
    (line,) = model.warnings
    assert line.startswith(f"{odd}:6: ") and str(caught[0].message) == line
    run = subprocess.run([cli(), "run", str(odd), "--task", "pr"], capture_output=True, text=True)
    assert line.replace(": ", ": warning: ", 1) in run.stderr.splitlines()


def test_loopy_bp_says_how_it_converged(tmp_path):
    """tiny is a polytree, where loopy BP is exact (Pearl 1988): pyAgrum's posteriors."""
    oracle = Oracle(str(SEEDS / "tiny.bif"), tmp_path)
    model = zbddc.compile(oracle.path, route="lbp", device="cpu")
    cases = [{}, {"A": "yes"}, {"C": "mid"}]
    answer = model.mar(cases)
    iterations, converged, residual = answer.convergence
    assert converged.all() and (iterations > 0).all() and (residual < 1e-9).all()
    assert all(note.startswith("approximate: ") for note in answer.notes)
    for c, evidence in enumerate(cases):
        _, posteriors = oracle.answer(evidence)
        theirs = np.concatenate([posteriors[v.name] for v in model.variables])
        np.testing.assert_allclose(answer.probabilities[c], theirs, atol=1e-9)
    assert zbddc.compile(oracle.path, route="jt").mar({}).convergence is None
