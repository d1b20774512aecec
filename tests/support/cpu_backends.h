// Every backend a Model runs on without a GPU — the reference evaluator, the LLVM JIT and the
// data-driven batched loop — for the tests that answer the tasks on each.
#pragma once

#include "runtime/model.h"

namespace zbddc::testing {

struct CpuBackend {
    const char *name;
    DeviceOptions options;
};

inline const CpuBackend kCpuBackends[] = {
    {"reference", {.device = DeviceKind::Reference}},
    {"LLVM JIT", {.device = DeviceKind::Cpu, .cpuCode = DeviceOptions::CpuCode::Jit}},
    {"data-driven loop", {.device = DeviceKind::Cpu, .cpuCode = DeviceOptions::CpuCode::Loop}},
};

} // namespace zbddc::testing
