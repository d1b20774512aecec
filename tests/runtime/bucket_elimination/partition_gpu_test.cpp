// Bucket elimination's partition function on a real GPU against brute force: the CUDA executor
// and the host/device split, the program in one piece and level by level, and under a device
// budget of a few kilobytes, where the run goes level by level by itself and a level's tables
// may go out of core. Exits 77 (skipped) where no GPU is present.
#include "backends/cuda/driver.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/partition_be.h"

#include "tests/catch.hpp"
#include "tests/support/markov_brute_force.h"
#include "tests/support/scratch.h"
#include "tests/support/skip.h"

#include <cmath>
#include <numbers>

using namespace zbddc;
using namespace zbddc::testing;

namespace {
const bool gpuPresent = skipProgramUnless(cuda::cudaAvailable(), "no GPU");
} // namespace

TEST_CASE("partition function on the GPU equals brute force", "[gpu][partition]") {
    std::mt19937 rng(17);
    for (int trial = 0; trial < 24; ++trial) {
        const MarkovNet net = randomMarkovNet(rng, 4 + rng() % 7, /*huge=*/trial % 3 == 0);
        auto costs = readCostNetworkFile(writeScratch("gpu_pr.uai", net.uaiText()));
        REQUIRE(costs.ok());
        const double want = bruteForceMarkov(net, std::vector<int>(net.domains.size(), -1)).log10Z;
        for (const char *executor : {"cuda", "split"})
            for (int mode = 0; mode < 3; ++mode) { // in one piece, by levels, under a small budget
                INFO("trial " << trial << ", " << executor << ", mode " << mode);
                BeOptions o;
                o.executor = executor;
                if (mode == 2)
                    o.execution.gpuBudgetBytes = 4096;
                auto z = partitionFunction(*costs, o, mode == 1);
                if (!z)
                    FAIL(z.error().message);
                const double got = z->logZ / std::numbers::ln10;
                if (std::isinf(want))
                    CHECK((std::isinf(got) && got < 0));
                else
                    CHECK(std::fabs(got - want) <= 1e-9 * std::max(1.0, std::fabs(want)));
            }
    }
}
