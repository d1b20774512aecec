"""Every form evidence takes gives the same cases: dicts by state name or index, None, 1-D and
2-D integer arrays of any integer type, lists of dicts; bad evidence is one clear error."""
import numpy as np
import pytest

import zbddc
from conftest import SEEDS


@pytest.fixture(scope="module")
def tiny():
    return zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")


def test_the_forms_of_one_case_agree(tiny):
    by_name = tiny.mar({"A": "no", "C": "lo"})
    by_index = tiny.mar({"A": 1, "C": 0, "B": None})
    by_row = tiny.mar(np.array([1, -1, 0], dtype=np.int32))
    for other in (by_index, by_row):  # to rounding: later calls may run the full tables
        assert other.single
        np.testing.assert_allclose(other.probabilities, by_name.probabilities, rtol=1e-12,
                                   atol=1e-15)
    assert by_name.probabilities.shape == (7,)
    assert by_name["C"].shape == (3,)


def test_no_evidence(tiny):
    assert tiny.pr().value == pytest.approx(1.0)
    assert tiny.pr({}).value == pytest.approx(1.0)


def test_the_forms_of_a_batch_agree(tiny):
    dicts = [{"A": "yes"}, {}, {"B": "off", "C": "mid"}]
    rows = np.array([[0, -1, -1], [-1, -1, -1], [-1, 1, 1]], dtype=np.int16)
    encoded, single = tiny.evidence(dicts)
    assert not single
    np.testing.assert_array_equal(encoded, rows)
    a, b = tiny.mar(dicts), tiny.mar(rows)
    assert a.probabilities.shape == (3, 7)
    close = dict(rtol=1e-12, atol=1e-15)  # to rounding: later calls may run the full tables
    np.testing.assert_allclose(a.probabilities, b.probabilities, **close)
    np.testing.assert_allclose(tiny.mar(rows.tolist()).probabilities, a.probabilities, **close)


def test_an_empty_batch(tiny):
    answer = tiny.mar(np.zeros((0, 3), dtype=np.int64))
    assert len(answer) == 0 and answer.probabilities.shape == (0, 7)


@pytest.mark.parametrize("evidence, message", [
    ({"Z": "yes"}, "evidence: unknown variable 'Z'"),
    ({"A": "maybe"}, "evidence: unknown state 'maybe' of variable 'A'"),
    ({"C": 3}, "evidence: state 3 is out of range for variable 'C'"),
    ({"A": 1.5}, "evidence: the state of variable 'A' is neither a state name nor an index"),
    ([{"A": "yes"}, {"B": "up"}], "evidence: case 1: unknown state 'up' of variable 'B'"),
    (np.array([[0, 0, 0], [0, 2, 0]]), "evidence: case 1: state 2 is out of range for "
                                       "variable 'B'"),
    (np.array([[0, 0]]), "evidence: the array has 2 columns but the model has 3 variables"),
    (np.array([[0.0, 1.0, 0.0]]), "evidence: an array of evidence holds state indices"),
])
def test_bad_evidence_is_one_clear_error(tiny, evidence, message):
    with pytest.raises(zbddc.Error) as raised:
        tiny.mar(evidence)
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


def test_the_cli_names_a_bad_state_the_same_way(tiny):
    import subprocess
    from conftest import cli
    run = subprocess.run([cli(), "run", str(SEEDS / "tiny.bif"), "--task", "mar", "--evidence",
                          "A=maybe"], capture_output=True, text=True)
    assert run.returncode != 0
    with pytest.raises(zbddc.Error) as raised:
        tiny.mar({"A": "maybe"})
    assert run.stderr.strip().endswith(str(raised.value))
