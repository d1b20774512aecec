// CUDA source for loopy BP's message ops (tensor_program.h: DampMessage, MessageResidual), the
// same arithmetic as the IR's dampedEntry and messageDistance, specialised to the op's shape like
// every other tensor kernel (same signature: inputs, out, rowBegin, rowCount):
//   damp_message      a thread per output row; it reads its whole normalisation group (one
//                     message's states: a handful) of fresh and old;
//   message_residual  a warp per output row (a case), the lanes splitting the pairs and merging
//                     their largest distance by shuffles; pairs of one shape form a run, one loop
//                     each (a lowering orders its pairs by shape, so a sweep has a few runs).
#pragma once

#include "ir/tensor_program.h"

#include <string>
#include <string_view>

namespace zbddc::cuda {

// The kernel of message op `op` (isMessageOp) under `name`.
std::string messageKernelText(const TensorProgram &program, uint32_t op, std::string_view name,
                              unsigned blockThreads);

} // namespace zbddc::cuda
