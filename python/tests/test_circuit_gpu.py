"""zbddc.Circuit with PyTorch tensors: CUDA tensors are read in GPU memory through DLPack and
Model::passOnDevice, and answered with CUDA tensors (no host copy), against the CPU circuit's
answers and enumeration; CPU tensors are read in place and answered with NumPy arrays. Skipped
where PyTorch is not installed, and the GPU tests where no usable GPU is."""
import numpy as np
import pytest

import zbddc
from circuit_oracle import cnf_models, read_cnf, wmc, wmc_gradient
from conftest import REPO

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch): these "
                            "tests pass torch tensors")

CIRCUIT_FILES = REPO / "tests" / "compiler" / "frontends" / "circuit_files"
SDD = CIRCUIT_FILES / "cnf_b.sdd"


def weights(batch, n, seed=0):
    return np.random.default_rng(seed).uniform(0.05, 2.0, size=(batch, n, 2))


@pytest.fixture(scope="module")
def models():
    return cnf_models(*read_cnf(CIRCUIT_FILES / "cnf_b.cnf"))


def gpu_circuit(semiring):
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU (torch.cuda.is_available() is False)")
    c = zbddc.Circuit(SDD, device="cuda", semiring=semiring)
    if not c.on_gpu:
        pytest.skip(f"zbddc finds no usable GPU: {c.device}")
    return c


def test_cpu_tensors_are_read_in_place_and_answered_with_numpy():
    c = zbddc.Circuit(SDD, device="cpu")
    w = weights(4, c.variables)
    values, grad = c.forward(torch.from_numpy(w), grad=True)
    assert isinstance(values, np.ndarray) and isinstance(grad, np.ndarray)
    want, want_grad = c.forward(w, grad=True)
    np.testing.assert_array_equal(values, want)
    np.testing.assert_array_equal(grad, want_grad)


@pytest.mark.parametrize("semiring", ["probability", "log"])
@pytest.mark.parametrize("batch", [1, 128, 1024])
def test_cuda_tensors_are_answered_in_gpu_memory(semiring, batch, models):
    c = gpu_circuit(semiring)
    w = weights(batch, c.variables, seed=batch)
    values, grad = c.forward(torch.tensor(w, device="cuda"), grad=True)
    assert isinstance(values, torch.Tensor) and isinstance(grad, torch.Tensor)
    assert values.device.type == grad.device.type == "cuda"
    assert values.shape == (batch,) and grad.shape == (batch, c.variables, 2)
    assert values.dtype == grad.dtype == torch.float64
    cpu = zbddc.Circuit(SDD, device="cpu", semiring=semiring)
    want, want_grad = cpu.forward(w, grad=True)
    np.testing.assert_allclose(values.cpu().numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(grad.cpu().numpy(), want_grad, rtol=1e-11, atol=1e-14)
    count = wmc(models, w)
    if semiring == "log":
        np.testing.assert_allclose(np.exp(values.cpu().numpy()), count, rtol=1e-12)
    else:
        np.testing.assert_allclose(values.cpu().numpy(), count, rtol=1e-12)
        np.testing.assert_allclose(grad.cpu().numpy(), wmc_gradient(models, w), rtol=1e-11)


def test_one_weighting_and_a_tensor_requiring_grad():
    c = gpu_circuit("probability")
    w = weights(1, c.variables)[0]
    tensor = torch.tensor(w, device="cuda", requires_grad=True)
    value, grad = c.forward(tensor, grad=True)
    assert value.shape == () and grad.shape == (c.variables, 2)
    want, want_grad = zbddc.Circuit(SDD, device="cpu").forward(w, grad=True)
    assert float(value) == pytest.approx(want, rel=1e-12)
    np.testing.assert_allclose(grad.cpu().numpy(), want_grad, rtol=1e-11)


def test_an_autograd_function_over_the_circuit():
    c = gpu_circuit("log")

    class LogWmc(torch.autograd.Function):
        @staticmethod
        def forward(ctx, w):
            values, grad = c.forward(w, grad=True)
            ctx.save_for_backward(grad)
            return values

        @staticmethod
        def backward(ctx, upstream):
            (grad,) = ctx.saved_tensors
            return upstream[:, None, None] * grad

    w = torch.tensor(weights(16, c.variables), device="cuda", requires_grad=True)
    LogWmc.apply(w).sum().backward()
    _, want = zbddc.Circuit(SDD, device="cpu", semiring="log").forward(
        w.detach().cpu().numpy(), grad=True)
    np.testing.assert_allclose(w.grad.cpu().numpy(), want, rtol=1e-11)


def test_numpy_weights_on_a_gpu_circuit_are_answered_with_numpy():
    c = gpu_circuit("probability")
    w = weights(8, c.variables)
    values = c.forward(w)
    assert isinstance(values, np.ndarray)
    np.testing.assert_allclose(values, zbddc.Circuit(SDD, device="cpu").forward(w), rtol=1e-12)


def test_device_arrays_that_cannot_be_read_in_place_are_refused():
    c = gpu_circuit("probability")
    n = c.variables
    with pytest.raises(zbddc.Error, match="expected float64, got float32"):
        c.forward(torch.ones((2, n, 2), device="cuda", dtype=torch.float32))
    with pytest.raises(zbddc.Error, match="contiguous"):
        c.forward(torch.ones((4, n, 2), device="cuda", dtype=torch.float64)[::2])
    with pytest.raises(zbddc.Error, match="expected shape"):
        c.forward(torch.ones((2, 2 * n), device="cuda", dtype=torch.float64))
    cpu = zbddc.Circuit(SDD, device="cpu")
    with pytest.raises(zbddc.Error, match="runs on cpu"):
        cpu.forward(torch.ones((2, n, 2), device="cuda", dtype=torch.float64))
