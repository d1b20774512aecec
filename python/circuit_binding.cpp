#include "circuit_binding.h"

#include "circuit_handle.h"
#include "device_report_dict.h"
#include "numpy_arrays.h"
#include "python_error.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/driver.h"
#endif

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <array>
#include <string>

namespace nb = nanobind;
using namespace nb::literals;

namespace zbddc::python {

namespace {

// Any dtype, any device, read-only: checked here, so that a wrong array gets a message saying
// what was expected rather than nanobind's list of overloads.
using AnyArray = nb::ndarray<nb::ro>;

std::string dtypeName(nb::dlpack::dtype t) {
    using Code = nb::dlpack::dtype_code;
    const std::string bits = std::to_string(t.bits);
    switch (static_cast<Code>(t.code)) {
    case Code::Int:
        return "int" + bits;
    case Code::UInt:
        return "uint" + bits;
    case Code::Float:
        return "float" + bits;
    case Code::Bfloat:
        return "bfloat" + bits;
    case Code::Complex:
        return "complex" + bits;
    case Code::Bool:
        return "bool";
    default:
        return "DLPack type code " + std::to_string(t.code);
    }
}

std::string shapeText(const AnyArray &a) {
    std::string s = "(";
    for (size_t i = 0; i < a.ndim(); ++i)
        s += (i ? ", " : "") + std::to_string(a.shape(i));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

bool cContiguous(const AnyArray &a) {
    if (!a.stride_ptr() || a.size() == 0)
        return true; // DLPack: no strides means row-major; no element has no layout
    int64_t expected = 1;
    for (size_t i = a.ndim(); i-- > 0;) {
        if (a.shape(i) != 1 && a.stride(i) != expected)
            return false;
        expected *= static_cast<int64_t>(a.shape(i));
    }
    return true;
}

// The batch's case count, where `w` is float64 weights of shape (B, n, 2) or (n, 2), row-major.
size_t checkedCount(const AnyArray &w, uint32_t n) {
    const std::string layout = "(batch, " + std::to_string(n) + ", 2) or (" + std::to_string(n) +
                               ", 2): w(x_v = 0), w(x_v = 1) for each of the circuit's " +
                               std::to_string(n) + " variables";
    if (w.ndim() != 2 && w.ndim() != 3)
        throw Error("weights: expected shape " + layout + "; got shape " + shapeText(w));
    if (w.shape(w.ndim() - 2) != n || w.shape(w.ndim() - 1) != 2)
        throw Error("weights: expected shape " + layout + "; got shape " + shapeText(w));
    if (w.dtype() != nb::dtype<double>())
        throw Error("weights: expected float64, got " + dtypeName(w.dtype()) +
                    " (an array on a device is not converted: make it float64 first)");
    if (!cContiguous(w))
        throw Error("weights: expected a contiguous (row-major) array; make a contiguous copy "
                    "first");
    return w.ndim() == 3 ? w.shape(0) : 1;
}

nb::tuple forwardOnHost(CircuitHandle &c, const AnyArray &w, size_t count, bool gradient) {
    const size_t width = 2 * size_t{c.numVars()};
    Result<CircuitHandle::Pass> pass = error("");
    {
        nb::gil_scoped_release unlocked;
        const double *data = count ? static_cast<const double *>(w.data()) : nullptr;
        pass = c.forward({data, count * width}, count, gradient);
    }
    CircuitHandle::Pass p = valueOrRaise(std::move(pass));
    nb::object values = numpyArray(std::move(p.values), std::array{count});
    if (!gradient)
        return nb::make_tuple(values, nb::none(), w.ndim() == 2);
    return nb::make_tuple(
        values,
        numpyArray(std::move(p.adjoints), std::array{count, size_t{c.numVars()}, size_t{2}}),
        w.ndim() == 2);
}

#ifdef ZBDDC_HAVE_CUDA_BACKEND
// An array over GPU memory from the device's pool, returned to the pool when the array's last
// user lets go.
template <size_t Dims>
nb::object deviceArray(cuda::DeviceBuffer &&buffer, const std::array<size_t, Dims> &shape,
                       int ordinal) {
    auto *held = new cuda::DeviceBuffer(std::move(buffer));
    nb::capsule owner(held, [](void *p) noexcept { delete static_cast<cuda::DeviceBuffer *>(p); });
    return nb::ndarray<nb::array_api, double>(reinterpret_cast<void *>(held->ptr()), Dims,
                                              shape.data(), owner, nullptr, nb::dtype<double>(),
                                              nb::device::cuda::value, ordinal)
        .cast();
}

nb::tuple forwardOnDevice(CircuitHandle &c, const AnyArray &w, size_t count, bool gradient) {
    if (!c.onGpu())
        throw Error("weights: the array is in GPU memory and " + c.path() + " runs on " +
                    c.report().label() + "; pass a NumPy array, or open it with device='cuda'");
    if (w.device_id() != c.gpu())
        throw Error("weights: the array is on GPU " + std::to_string(w.device_id()) + " and " +
                    c.path() + " runs on GPU " + std::to_string(c.gpu()) +
                    " (zbddc.Circuit(..., gpu=" + std::to_string(w.device_id()) + "))");
    cuda::Device &device = *valueOrRaise(cuda::openDevice(c.gpu()));
    const size_t width = 2 * size_t{c.numVars()};
    cuda::DeviceBuffer values =
        valueOrRaise(device.allocate(std::max<size_t>(count, 1) * sizeof(double)));
    cuda::DeviceBuffer adjoints;
    if (gradient)
        adjoints =
            valueOrRaise(device.allocate(std::max<size_t>(count * width, 1) * sizeof(double)));
    Status ran = Ok{};
    {
        nb::gil_scoped_release unlocked;
        ran = c.forwardOnDevice(reinterpret_cast<uint64_t>(w.data()), count, values.ptr(),
                                gradient ? adjoints.ptr() : 0);
    }
    valueOrRaise(std::move(ran));
    nb::object out = deviceArray(std::move(values), std::array{count}, c.gpu());
    if (!gradient)
        return nb::make_tuple(out, nb::none(), w.ndim() == 2);
    return nb::make_tuple(out,
                          deviceArray(std::move(adjoints),
                                      std::array{count, size_t{c.numVars()}, size_t{2}}, c.gpu()),
                          w.ndim() == 2);
}
#endif

// (values, adjoints or None, whether the weights were one (n, 2) weighting): in host memory as
// NumPy arrays, in GPU memory as DLPack arrays; one row per weighting either way.
nb::tuple forward(CircuitHandle &c, const AnyArray &weights, bool gradient) {
    const size_t count = checkedCount(weights, c.numVars());
    if (weights.device_type() == nb::device::cpu::value)
        return forwardOnHost(c, weights, count, gradient);
    if (weights.device_type() == nb::device::cuda::value) {
#ifdef ZBDDC_HAVE_CUDA_BACKEND
        return forwardOnDevice(c, weights, count, gradient);
#else
        throw Error("weights: the array is in GPU memory and this build has no CUDA backend");
#endif
    }
    throw Error("weights: expected an array in host or CUDA memory, not DLPack device type " +
                std::to_string(weights.device_type()));
}

std::unique_ptr<CircuitHandle> openCircuit(const CircuitRequest &request) {
    Result<std::unique_ptr<CircuitHandle>> opened = error("");
    {
        nb::gil_scoped_release unlocked;
        opened = CircuitHandle::open(request);
    }
    return valueOrRaise(std::move(opened));
}

} // namespace

void bindCircuit(nb::module_ &m) {
    nb::class_<CircuitHandle>(m, "Circuit")
        .def_static(
            "open",
            [](const std::string &path, const std::string &vtree, const std::string &device,
               const std::string &semiring, int gpu) {
                return openCircuit({path, vtree, device, semiring, gpu});
            },
            "path"_a, "vtree"_a = "", "device"_a = "auto", "semiring"_a = "probability",
            "gpu"_a = 0)
        .def_prop_ro("path", &CircuitHandle::path)
        .def_prop_ro("variables", &CircuitHandle::numVars)
        .def_prop_ro("ops", &CircuitHandle::numOps)
        .def_prop_ro("log_space", &CircuitHandle::logSpace)
        .def_prop_ro("on_gpu", &CircuitHandle::onGpu)
        .def_prop_ro("gpu", &CircuitHandle::gpu)
        .def_prop_ro("device", [](const CircuitHandle &c) { return c.report().label(); })
        .def_prop_ro("device_report",
                     [](const CircuitHandle &c) { return deviceReportDict(c.report()); })
        .def("forward", &forward, "weights"_a, "gradient"_a = false);
}

} // namespace zbddc::python
