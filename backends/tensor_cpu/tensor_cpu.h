// The CPU executor of a TensorProgram: plain C++, multithreaded over the independent ops of a
// level and over chunks of output rows. Every op is one strided loop nest — output rows in an
// odometer that updates each input's offset incrementally, and for bucket ops the eliminated
// values innermost — so a bucket's joined table is never materialised (seed 001's fused
// aggregate-project; seed 000 Alg. 3's closed-form indexing, done on the CPU).
#pragma once

#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

struct CpuExecOptions {
    unsigned threads = 0; // 0: all hardware threads
};

// Complete values of every computed table (index = table id; input tables stay empty), like
// interpretTensorProgram.
Result<std::vector<std::vector<double>>> runTensorProgramCpu(const TensorProgram &program,
                                                             const CpuExecOptions &options = {});

} // namespace zbddc
