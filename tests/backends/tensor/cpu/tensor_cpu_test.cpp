// The CPU executor of complete tables (backends/tensor/cpu/tensor_cpu.h) against the reference
// interpreter, table by table, on bucket programs of random networks with and without evidence.
#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

using namespace zbddc;
using zbddc::testing::minFillOrder;
using zbddc::testing::randomNetwork;

TEST_CASE("tensor program: the CPU executor equals the reference interpreter table by table",
          "[tensor]") {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 40; ++trial) {
        const CostNetwork net =
            randomNetwork(rng, 3 + rng() % 7, 2 + rng() % 10, 5, 4, 50, trial % 2);
        std::vector<uint32_t> evidence;
        if (trial % 3 == 2) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[1] = rng() % net.domainSizes[1];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 4 != 0, evidence});
        REQUIRE(p.ok());
        auto ref = interpretTensorProgram(*p);
        auto cpu = runTensorProgramCpu(*p, {1 + static_cast<unsigned>(trial % 3)});
        REQUIRE(ref.ok());
        REQUIRE(cpu.ok());
        CHECK(*cpu == *ref); // integer costs: bit-exact
    }
}
