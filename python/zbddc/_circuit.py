"""zbddc.Circuit: one knowledge-compiled circuit, batches of literal weights in, weighted model
counts and their gradients out (the neurosymbolic batch: one circuit, B weightings)."""
import os
import sys

import numpy as np

from . import _zbddc
from ._answers import DeviceReport, Error


class Circuit:
    """A d-DNNF (.nnf: c2d's or d4's format) or an SDD (.sdd with its .vtree), smoothed over its
    variables and compiled for batches of literal weights.

    Circuit(path, vtree=None, device="auto", semiring="probability", gpu=0)

    vtree      an .sdd's vtree file; None: the .vtree of the same name beside the .sdd
    device     "auto" (a usable GPU, else the CPU), "cpu", "cuda"
    semiring   "probability": WMC in float64; "log": ln WMC, summed in log space (no underflow
               where a float64 WMC would round to 0). Weights are linear in both.
    gpu        the GPU's ordinal where it runs on one

    Weights are an array of shape (B, n, 2) (a batch) or (n, 2) (one weighting), n =
    `variables`: weights[b, v - 1, 0] is w(not x_v) and weights[b, v - 1, 1] is w(x_v) in
    weighting b (from separate arrays: np.stack([neg, pos], axis=-1)). That is the library's
    batch as it lies in memory, so it is read where it is, without a copy:

    - a NumPy array (or anything NumPy converts; other real dtypes are converted to float64):
      the results are NumPy arrays;
    - any array with __dlpack__ (a PyTorch tensor, CuPy, JAX) must be float64 and contiguous.
      In host memory it is read as a NumPy array is. In the circuit's GPU's memory (device
      "cuda"), the pass reads it there and writes its results to new GPU memory, nothing
      crossing to the host; they come back as arrays of the input's library (torch.from_dlpack,
      cupy.from_dlpack), or where that library has no from_dlpack as DLPack-capable arrays
      of shape (B,) and (B, n, 2) (pass them to your library's from_dlpack). The array is
      handed over for CUDA's legacy default stream (DLPack's stream 1: its library orders its
      own writes before), where the pass runs and is waited for; a tensor requiring grad is
      read detached.

    forward(weights)             WMC (ln WMC in the log semiring): shape (B,), or a scalar
    forward(weights, grad=True)  (values, gradient), the gradient shaped as the weights: the
                                 derivative of each value by each weight, dWMC/dw in the
                                 probability semiring and d ln WMC / dw in the log semiring
                                 (where WMC is 0 that is NaN or infinite)
    backward(weights)            the gradient alone (one forward and backward pass)

    The count is over every variable 1..n (a smoothed circuit), so a variable the circuit does
    not mention contributes w(x_v) + w(not x_v). Errors raise zbddc.Error with one line.
    """

    def __init__(self, path, *, vtree=None, device="auto", semiring="probability", gpu=0):
        self._c = _zbddc.Circuit.open(os.fspath(path),
                                      vtree="" if vtree is None else os.fspath(vtree),
                                      device=device, semiring=semiring, gpu=int(gpu))
        self.semiring = semiring

    @property
    def path(self):
        return self._c.path

    @property
    def variables(self):
        """n: the circuit's variables x_1..x_n (the weights' second axis)."""
        return self._c.variables

    @property
    def ops(self):
        """The lowered circuit's + and * operations."""
        return self._c.ops

    @property
    def device(self):
        """Where the passes run, in words: "cpu (LLVM JIT, float64)", "cuda: NVIDIA ..."."""
        return self._c.device

    @property
    def device_report(self):
        return DeviceReport(**self._c.device_report)

    @property
    def on_gpu(self):
        return self._c.on_gpu

    def forward(self, weights, *, grad=False):
        """WMC of each weighting (ln WMC in the log semiring); with grad=True (values,
        gradient). See the class's documentation for the layout."""
        weights, library, on_device = _weights(weights)
        if isinstance(weights, np.ndarray) and weights.ndim == 0:
            n = self.variables
            raise Error(f"weights: expected shape (batch, {n}, 2) or ({n}, 2), got a scalar")
        if on_device and library is None and grad and self.semiring == "log":
            raise Error("weights: the log semiring's gradient of an array in GPU memory is "
                        "computed with the array's library, and this array's has no "
                        "from_dlpack (PyTorch and CuPy have)")
        values, adjoints, single = self._c.forward(weights, grad)
        if on_device:
            if library is None:  # DLPack-capable arrays, one row per weighting
                return (values, adjoints) if grad else values
            values = library.from_dlpack(values)
            adjoints = None if adjoints is None else library.from_dlpack(adjoints)
        xp = np if library is None else library
        if adjoints is not None and self.semiring == "log":
            # d ln WMC / dw = exp(ln dWMC/dw - ln WMC)
            with np.errstate(invalid="ignore", over="ignore"):
                adjoints = xp.exp(adjoints - values[:, None, None])
        if single:  # one weighting: (n, 2)
            values = values[0]
            adjoints = None if adjoints is None else adjoints[0]
        return (values, adjoints) if grad else values

    def backward(self, weights):
        """The gradient of each weighting's value by its weights, shaped as the weights."""
        return self.forward(weights, grad=True)[1]

    def __repr__(self):
        return (f"<zbddc.Circuit {self.path}: {self.variables} variables, {self.ops} ops, "
                f"{self.semiring}, {self.device}>")


def _weights(weights):
    """The array the library reads (for a CUDA array its DLPack capsule); for an array in GPU
    memory its library where that has from_dlpack (the results become its arrays), else None;
    and whether it is in GPU memory."""
    if isinstance(weights, np.ndarray) or not hasattr(weights, "__dlpack__"):
        try:
            array = np.asarray(weights)
        except (TypeError, ValueError) as e:
            raise Error(f"weights: expected a NumPy array or an array with __dlpack__, got "
                        f"{type(weights).__name__} ({e})") from None
        if array.dtype.kind not in "fiu":
            raise Error(f"weights: expected real numbers, got {array.dtype}")
        return np.asarray(array, dtype=np.float64, order="C"), None, False
    if getattr(weights, "requires_grad", False):
        weights = weights.detach()
    device_type = weights.__dlpack_device__()[0] if hasattr(weights, "__dlpack_device__") else 1
    if device_type == 1:  # kDLCPU: read in place, answered with NumPy arrays
        return weights, None, False
    library = sys.modules.get(type(weights).__module__.split(".")[0])
    # DLPack's stream 1, CUDA's legacy default stream, where the pass runs: the producer makes
    # it wait for the work that writes the array (PyTorch's current stream, say).
    capsule = weights.__dlpack__(stream=1) if device_type == 2 else weights
    return capsule, (library if hasattr(library, "from_dlpack") else None), True
