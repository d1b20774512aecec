"""zbddc.Circuit: weighted model counts of a d-DNNF or SDD over batches of literal weights, against
enumeration of the formula's models (circuit_oracle.py); gradients against the enumerated
derivative and against finite differences; the batch's shapes; and one clear zbddc.Error for
weights of the wrong shape, type or memory, and for files that cannot be used."""
import shutil

import numpy as np
import pytest

import zbddc
from circuit_oracle import (cnf_models, nnf_models, random_ddnnf, read_cnf, wmc,
                            wmc_gradient)
from conftest import REPO, SEEDS

CIRCUIT_FILES = REPO / "tests" / "compiler" / "frontends" / "circuit_files"


def random_weights(rng, batch, n):
    return rng.uniform(0.05, 2.0, size=(batch, n, 2))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Random d-DNNFs written here, each with its models enumerated from its own text."""
    rng = np.random.default_rng(7)
    folder = tmp_path_factory.mktemp("nnf")
    circuits = []
    for k, n in enumerate((1, 4, 5, 7, 8)):
        text = random_ddnnf(n, rng)
        path = folder / f"random_{k}.nnf"
        path.write_text(text)
        circuits.append((str(path), n, nnf_models(text, n)))
    return circuits


def test_the_count_of_written_d_dnnfs_is_the_enumerated_one(written):
    rng = np.random.default_rng(1)
    for path, n, models in written:
        for semiring in ("probability", "log"):
            c = zbddc.Circuit(path, device="cpu", semiring=semiring)
            assert c.variables == n
            w = random_weights(rng, 6, n)
            want = wmc(models, w)
            got = c.forward(w)
            assert got.shape == (6,)
            if semiring == "log":
                got = np.exp(got)
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", ["cnf_a", "cnf_b", "cnf_c"])
def test_sdds_and_their_d_dnnfs_count_the_cnfs_models(name):
    n, clauses = read_cnf(CIRCUIT_FILES / f"{name}.cnf")
    models = cnf_models(n, clauses)
    w = random_weights(np.random.default_rng(2), 5, n)
    want = wmc(models, w)
    for suffix in (".sdd", ".nnf", ".d4.nnf"):
        c = zbddc.Circuit(CIRCUIT_FILES / f"{name}{suffix}", device="cpu")
        if suffix == ".d4.nnf" and c.variables != n:
            continue  # d4 names no variable count: a variable it drops is not counted
        assert c.variables == n
        np.testing.assert_allclose(c.forward(w), want, rtol=1e-12)


def test_the_gradient_is_the_enumerated_derivative(written):
    rng = np.random.default_rng(3)
    for path, n, models in written:
        w = random_weights(rng, 4, n)
        c = zbddc.Circuit(path, device="cpu")
        values, grad = c.forward(w, grad=True)
        np.testing.assert_allclose(values, wmc(models, w), rtol=1e-12, atol=1e-300)
        assert grad.shape == w.shape
        np.testing.assert_allclose(grad, wmc_gradient(models, w), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(c.backward(w), grad)


def finite_difference(f, w, h=1e-6):
    """Central differences of f (one value per weighting) by every weight."""
    grad = np.zeros_like(w)
    for v in range(w.shape[1]):
        for s in (0, 1):
            up, down = w.copy(), w.copy()
            up[:, v, s] += h
            down[:, v, s] -= h
            grad[:, v, s] = (f(up) - f(down)) / (2 * h)
    return grad


@pytest.mark.parametrize("semiring", ["probability", "log"])
def test_the_gradient_against_finite_differences(semiring):
    c = zbddc.Circuit(CIRCUIT_FILES / "cnf_b.sdd", device="cpu", semiring=semiring)
    w = random_weights(np.random.default_rng(4), 3, c.variables)
    _, grad = c.forward(w, grad=True)
    numeric = finite_difference(c.forward, w)
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8 * np.abs(grad).max())


def test_the_log_semiring_counts_past_float64s_range(tmp_path):
    # 400 literals in one AND, each weighing 1e-3: the count 1e-1200 is 0 in float64.
    n = 400
    lines = [f"L {v}" for v in range(1, n + 1)] + ["A %d %s" % (n, " ".join(map(str, range(n))))]
    path = tmp_path / "long_and.nnf"
    path.write_text(f"nnf {n + 1} {n} {n}\n" + "\n".join(lines) + "\n")
    w = np.full((2, n, 2), 0.5)
    w[:, :, 1] = 1e-3
    w[1, 0, 1] = 2e-3
    assert zbddc.Circuit(path, device="cpu").forward(w)[0] == 0.0
    log = zbddc.Circuit(path, device="cpu", semiring="log")
    values, grad = log.forward(w, grad=True)
    want = np.log(w[:, :, 1]).sum(axis=1)
    np.testing.assert_allclose(values, want, rtol=1e-13)
    # d ln WMC / d w(x_v) = 1 / w(x_v); the negative literals are on no model.
    np.testing.assert_allclose(grad[:, :, 1], 1.0 / w[:, :, 1], rtol=1e-12)
    np.testing.assert_array_equal(grad[:, :, 0], 0.0)


def test_batch_shapes():
    c = zbddc.Circuit(CIRCUIT_FILES / "cnf_a.sdd", device="cpu")
    n = c.variables
    w = random_weights(np.random.default_rng(5), 7, n)
    values, grad = c.forward(w, grad=True)
    assert values.shape == (7,) and grad.shape == (7, n, 2)
    assert values.dtype == grad.dtype == np.float64
    for b in range(7):  # one weighting at a time: a scalar and an (n, 2) gradient
        one, one_grad = c.forward(w[b], grad=True)
        assert np.ndim(one) == 0 and one_grad.shape == (n, 2)
        assert one == pytest.approx(values[b], rel=1e-14)
        np.testing.assert_allclose(one_grad, grad[b], rtol=1e-14)
    empty, empty_grad = c.forward(np.zeros((0, n, 2)), grad=True)
    assert empty.shape == (0,) and empty_grad.shape == (0, n, 2)
    # Lists and other real dtypes are converted; a Fortran-ordered array is copied in order.
    np.testing.assert_allclose(c.forward(w.tolist()), values, rtol=1e-15)
    np.testing.assert_allclose(c.forward(w.astype(np.float32)),
                               c.forward(w.astype(np.float32).astype(np.float64)), rtol=1e-15)
    np.testing.assert_allclose(c.forward(np.asfortranarray(w)), values, rtol=1e-15)
    ones = c.forward(np.ones((1, n, 2), dtype=np.int64))
    assert ones[0] == len(cnf_models(*read_cnf(CIRCUIT_FILES / "cnf_a.cnf")))


def test_a_variable_the_circuit_does_not_mention_sums_its_weights(tmp_path):
    path = tmp_path / "x1.nnf"  # x1, over 3 variables: x2 and x3 are free
    path.write_text("nnf 1 0 3\nL 1\n")
    w = random_weights(np.random.default_rng(6), 3, 3)
    want = w[:, 0, 1] * w[:, 1].sum(axis=1) * w[:, 2].sum(axis=1)
    np.testing.assert_allclose(zbddc.Circuit(path, device="cpu").forward(w), want, rtol=1e-14)


class HostDLPack:
    """An array known only by the DLPack protocol (no buffer protocol, not NumPy)."""

    def __init__(self, array):
        self._array = array
        self.shape = array.shape

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_a_dlpack_array_in_host_memory_is_read_in_place():
    c = zbddc.Circuit(CIRCUIT_FILES / "cnf_a.sdd", device="cpu")
    w = random_weights(np.random.default_rng(8), 4, c.variables)
    values, grad = c.forward(HostDLPack(w), grad=True)
    want, want_grad = c.forward(w, grad=True)
    assert isinstance(values, np.ndarray) and isinstance(grad, np.ndarray)
    np.testing.assert_array_equal(values, want)
    np.testing.assert_array_equal(grad, want_grad)
    one = c.forward(HostDLPack(w[0]))
    assert one == want[0]


def error_of(call):
    with pytest.raises(zbddc.Error) as raised:
        call()
    return str(raised.value)


def test_weights_of_the_wrong_shape_type_or_layout_are_refused():
    c = zbddc.Circuit(CIRCUIT_FILES / "cnf_a.sdd", device="cpu")  # 6 variables
    shape = "expected shape (batch, 6, 2) or (6, 2)"
    for bad in (np.ones((4, 12)), np.ones((4, 7, 2)), np.ones((4, 6, 3)), np.ones(12),
                np.ones((2, 4, 6, 2))):
        message = error_of(lambda: c.forward(bad))
        assert message.startswith("weights: ") and shape in message
        assert str(bad.shape).replace(" ", "") in message.replace(" ", "")
    assert "got a scalar" in error_of(lambda: c.forward(1.0))
    assert "expected real numbers, got complex128" in error_of(
        lambda: c.forward(np.ones((2, 6, 2), dtype=complex)))
    assert "got bool" in error_of(lambda: c.forward(np.ones((2, 6, 2), dtype=bool)))
    assert "expected real numbers" in error_of(lambda: c.forward([["a", "b"]] * 6))
    # DLPack arrays are read as they are: float64 and row-major only.
    assert "expected float64, got float32" in error_of(
        lambda: c.forward(HostDLPack(np.ones((2, 6, 2), dtype=np.float32))))
    strided = np.ones((4, 6, 2))[::2]
    assert "contiguous" in error_of(lambda: c.forward(HostDLPack(strided)))


def test_files_and_choices_that_cannot_be_used_say_why(tmp_path):
    sdd = str(SEEDS / "tiny.sdd")
    assert "unknown device 'gpu' (auto, cpu or cuda)" in error_of(
        lambda: zbddc.Circuit(sdd, device="gpu"))
    assert "unknown semiring 'real' (probability or log)" in error_of(
        lambda: zbddc.Circuit(sdd, semiring="real"))
    missing = tmp_path / "missing.nnf"
    assert str(missing) in error_of(lambda: zbddc.Circuit(missing))
    assert "an .nnf (d-DNNF) or an .sdd" in error_of(lambda: zbddc.Circuit(SEEDS / "tiny.bif"))
    bad = tmp_path / "bad.nnf"
    bad.write_text("nnf 2 1 2\nL 1\nA 2 0 7\n")
    message = error_of(lambda: zbddc.Circuit(bad))
    assert message.startswith(f"{bad}:3: ")
    # An .sdd is read with the .vtree beside it, or the one named.
    alone = tmp_path / "alone.sdd"
    shutil.copy(sdd, alone)
    shutil.copy(SEEDS / "tiny.vtree", tmp_path / "other.vtree")
    assert "alone.vtree" in error_of(lambda: zbddc.Circuit(alone))
    named = zbddc.Circuit(alone, vtree=tmp_path / "other.vtree", device="cpu")
    beside = zbddc.Circuit(sdd, device="cpu")
    w = random_weights(np.random.default_rng(9), 3, 3)
    np.testing.assert_array_equal(named.forward(w), beside.forward(w))


def test_the_sdd_and_the_d_dnnf_of_one_formula_agree():
    # tests/fuzz/seeds: (x1 and x2) or (not x1 and x3), as an SDD and in c2d's and d4's formats.
    w = random_weights(np.random.default_rng(10), 5, 3)
    text = (SEEDS / "tiny_c2d.nnf").read_text()
    want = wmc(nnf_models(text, 3), w)
    for name in ("tiny.sdd", "tiny_c2d.nnf", "tiny_d4.nnf"):
        c = zbddc.Circuit(SEEDS / name, device="cpu")
        np.testing.assert_allclose(c.forward(w), want, rtol=1e-14)


def test_the_circuit_says_where_it_runs():
    c = zbddc.Circuit(SEEDS / "tiny.sdd", device="cpu", semiring="log")
    report = c.device_report
    assert isinstance(report, zbddc.DeviceReport)
    assert (report.kind, report.arithmetic, report.ordinal) == ("cpu", "log", None)
    assert c.device.startswith("cpu") and not c.on_gpu
    assert "3 variables" in repr(c) and "log" in repr(c)
