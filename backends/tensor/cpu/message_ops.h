// The CPU executor's loopy-BP message ops (tensor_program.h: DampMessage, MessageResidual), row
// by row over complete tables: small tables (a message is one variable's states per case), so
// plain strided loops; the arithmetic is the IR's dampedEntry and messageDistance.
#pragma once

#include "ir/tensor_program.h"

#include <cstdint>
#include <vector>

namespace zbddc {

// Output rows [begin, end) of message op `op`; `data` holds every table's values by id.
void runMessageOpRows(const TensorProgram &program, const TensorOp &op,
                      const std::vector<const double *> &data, double *out, uint64_t begin,
                      uint64_t end);

} // namespace zbddc
