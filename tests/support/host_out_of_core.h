// The out-of-core path's host model on a whole network, checked table by table on the way.
#pragma once

#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"
#include "tests/backends/tensor/devices/chunk_host_run.h"

#include "tests/catch.hpp"
#include "tests/support/wide_networks.h"

namespace zbddc::testing {

// Runs a generated network's bucket program through the host model of the out-of-core path under
// a budget `divisor` times smaller than its largest table; returns the optimum, after checking
// every computed table against the CPU executor.
inline Cost hostOutOfCoreOptimum(const bench::GeneratedNetwork &g, uint64_t divisor) {
    auto p = buildBucketProgram(g.network, g.order);
    REQUIRE(p.ok());
    uint64_t largest = 0;
    for (const Table &t : p->tables)
        largest = std::max(largest, 8 * t.entries());
    ChunkPlanOptions o;
    o.budgetBytes = largest / divisor;
    auto plan = planChunks(*p, o);
    INFO(g.network.name << ": " << (plan ? "" : plan.error().str()));
    REQUIRE(plan.ok());
    REQUIRE(plan->outOfCore);
    auto host = runChunkPlanOnHost(*p, *plan);
    auto cpu = runTensorProgramCpu(*p, {});
    REQUIRE(host.ok());
    REQUIRE(cpu.ok());
    CHECK(*host == *cpu);
    return programResult(*p, *host);
}

} // namespace zbddc::testing
