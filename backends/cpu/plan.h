// The layout shared by every CPU code path: which ops run, in which order, how they are cut into
// bounded functions, and which values cross a function boundary (and so live in a slot).
#pragma once

#include "backends/cpu/cpu_options.h"
#include "ir/result.h"

#include <vector>

namespace zbddc {

struct CpuPlan {
    Semiring semiring = Semiring::SumProduct;
    Numeric numeric = Numeric::Float64;
    std::vector<NodeId> ops;      // the Plus/Times/MulAdd nodes the outputs need, in order
    std::vector<uint32_t> position; // per node: index into `ops`, kNone for leaves and unused ops
    std::vector<uint32_t> slot;   // per node: forward slot, kNone when the value stays in a register
    uint32_t numSlots = 0;
    size_t opsPerFunction = 1000;
    size_t numFunctions() const { return (ops.size() + opsPerFunction - 1) / opsPerFunction; }
    size_t functionOf(NodeId id) const { return position[id] / opsPerFunction; }
};

// Checks the options against the circuit (semiring/numeric pair, order a topological order that
// covers every op the outputs need) and lays the ops out.
Result<CpuPlan> planCpu(const Circuit &circuit, const CpuOptions &options);

} // namespace zbddc
