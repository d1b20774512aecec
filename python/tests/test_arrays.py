"""Answers are NumPy arrays over the library's buffers: no copy on the way out, read-only, and a
variable's posterior is a view into the batch's matrix."""
import numpy as np
import pytest

import zbddc
from conftest import SEEDS


@pytest.fixture(scope="module")
def batch():
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")
    return model.mar(np.array([[0, -1, -1], [1, 0, -1]]))


def test_the_matrix_is_not_owned_by_numpy(batch):
    matrix = batch.probabilities
    assert not matrix.flags.owndata and matrix.base is not None
    assert matrix.flags.c_contiguous and matrix.dtype == np.float64
    assert batch.probabilities is matrix or np.shares_memory(batch.probabilities, matrix)


def test_answers_are_read_only(batch):
    with pytest.raises(ValueError):
        batch.probabilities[0, 0] = 2.0
    with pytest.raises(ValueError):
        batch.value[0] = 2.0


def test_a_variable_is_a_view_of_its_columns(batch):
    c = batch["C"]
    assert c.shape == (2, 3) and np.shares_memory(c, batch.probabilities)
    np.testing.assert_array_equal(c, batch.probabilities[:, batch.offsets[2]:batch.offsets[3]])
    np.testing.assert_allclose(c.sum(axis=1), 1.0, rtol=1e-12)
    assert batch.offsets.tolist() == [0, 2, 4, 7]


def test_to_dict_and_repr():
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")
    one = model.mar({"A": "yes"})
    d = one.to_dict()
    assert list(d) == ["A", "B", "C"] and list(d["C"]) == ["lo", "mid", "hi"]
    assert d["A"] == {"yes": 1.0, "no": 0.0}
    assert repr(one).splitlines()[0].startswith("A: yes=1, no=0")
    assert "2 cases, 0 failed" in repr(model.mar([{}, {}]))


def test_the_answers_outlive_the_model():
    model = zbddc.compile(str(SEEDS / "tiny.bif"), route="jt", device="cpu")
    answer = model.mar({"B": "on"})
    expected = answer.probabilities.copy()
    del model
    import gc
    gc.collect()
    np.testing.assert_array_equal(answer.probabilities, expected)
