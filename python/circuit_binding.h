// zbddc._zbddc.Circuit: circuit_handle.h bound, with weights from any array NumPy or DLPack hands
// over (host memory, or a GPU's, read where it lies) and results in the same memory.
#pragma once

#include <nanobind/nanobind.h>

namespace zbddc::python {

void bindCircuit(nanobind::module_ &m);

} // namespace zbddc::python
