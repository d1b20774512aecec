// NumPy arrays over buffers the C++ side filled: the vector moves onto the heap and a capsule
// frees it when NumPy lets go, so the numbers cross into Python without a copy.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <array>
#include <vector>

namespace zbddc::python {

namespace nb = nanobind;

template <class T, size_t Dims>
nb::object numpyArray(std::vector<T> &&values, const std::array<size_t, Dims> &shape) {
    auto *held = new std::vector<T>(std::move(values));
    if (held->empty())
        held->reserve(1); // a zero-sized array still needs an address
    nb::capsule owner(held, [](void *p) noexcept { delete static_cast<std::vector<T> *>(p); });
    return nb::ndarray<nb::numpy, T>(held->data(), Dims, shape.data(), owner).cast();
}

} // namespace zbddc::python
