// Bucket elimination's partition function (sum-product, rescaled tables) against brute force on
// tiny random Markov networks, Z inside a double and far beyond it, with evidence: every executor
// in one piece and level by level, and the level-by-level run through the out-of-core path's host
// model (each level's program sliced into steps under a small budget).
#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/elimination/partition_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "runtime/bucket_elimination/partition_be.h"
#include "runtime/bucket_elimination/run_by_levels.h"
#include "tests/backends/tensor/devices/chunk_host_run.h"

#include "tests/catch.hpp"
#include "tests/support/markov_brute_force.h"
#include "tests/support/scratch.h"

#include <cmath>
#include <numbers>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

CostNetwork readNet(const MarkovNet &net, int trial) {
    auto read = readCostNetworkFile(writeScratch("pr" + std::to_string(trial) + ".uai",
                                                 net.uaiText()));
    REQUIRE(read.ok());
    return *read;
}

// Random evidence on about a third of the variables; -1 where free.
std::vector<int> randomEvidence(std::mt19937 &rng, const MarkovNet &net) {
    std::vector<int> e(net.domains.size(), -1);
    for (size_t v = 0; v < e.size(); ++v)
        if (rng() % 3 == 0)
            e[v] = int(rng() % net.domains[v]);
    return e;
}

std::vector<uint32_t> statesOf(const std::vector<int> &e) {
    std::vector<uint32_t> s;
    for (int x : e)
        s.push_back(x < 0 ? UINT32_MAX : uint32_t(x));
    return s;
}

void checkLog10(double got, double want) {
    if (std::isinf(want)) {
        CHECK(std::isinf(got));
        CHECK(got < 0);
        return;
    }
    CHECK(std::isfinite(got));
    CHECK(std::fabs(got - want) <= 1e-9 * std::max(1.0, std::fabs(want)));
}

} // namespace

TEST_CASE("partition function: brute force on tiny Markov networks, every executor",
          "[partition]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 60; ++trial) {
        const bool huge = trial % 3 == 0; // Z beyond a double: 10^60 per factor
        const MarkovNet net = randomMarkovNet(rng, 2 + rng() % 7, huge);
        const CostNetwork costs = readNet(net, trial);
        const std::vector<int> e = trial % 2 ? randomEvidence(rng, net)
                                             : std::vector<int>(net.domains.size(), -1);
        const double want = bruteForceMarkov(net, e).log10Z;
        INFO("trial " << trial << ": brute force log10 Z = " << want);
        for (const char *executor : {"cpu", "reference"})
            for (bool byLevels : {false, true}) {
                BeOptions o;
                o.executor = executor;
                o.execution.threads = 2;
                if (trial % 2)
                    o.evidence = statesOf(e);
                auto z = partitionFunction(costs, o, byLevels);
                REQUIRE(z.ok());
                CHECK(z->byLevels == byLevels);
                checkLog10(z->logZ / std::numbers::ln10, want);
            }
    }
}

TEST_CASE("partition function: a weighted CSP's costs are refused", "[partition]") {
    CostNetwork wcsp;
    wcsp.domainSizes = {2};
    wcsp.functions.push_back({{0}, false, {0, 1}, {}, 0, 1});
    auto z = partitionFunction(wcsp, {});
    REQUIRE_FALSE(z.ok());
    CHECK(z.error().message.find("weights") != std::string::npos);
}

TEST_CASE("partition function: level by level through the out-of-core host model",
          "[partition]") {
    std::mt19937 rng(5);
    int slicedLevels = 0;
    for (int trial = 0; trial < 30; ++trial) {
        const MarkovNet net = randomMarkovNet(rng, 6 + rng() % 4, trial % 2);
        const CostNetwork costs = readNet(net, 100 + trial);
        BeOptions o;
        BeStats stats;
        auto order = planElimination(costs, o, stats);
        REQUIRE(order.ok());
        auto p = buildPartitionProgram(costs, *order);
        REQUIRE(p.ok());
        auto ran = runByLevels(p->program, [&](const TensorProgram &level) -> Result<CompleteTables> {
            uint64_t largest = 0;
            for (const Table &t : level.tables)
                largest = std::max(largest, 8 * t.entries());
            // The smallest budget, from half the largest table up, that the planner can slice for.
            ChunkPlanOptions po;
            po.wholeInputMaxEntries = 1;
            po.budgetBytes = std::max<uint64_t>(largest / 2, 8);
            auto plan = planChunks(level, po);
            for (; !plan && po.budgetBytes < (uint64_t{1} << 30); po.budgetBytes *= 2)
                plan = planChunks(level, po);
            if (!plan)
                return plan.error();
            slicedLevels += plan->outOfCore;
            auto tables = plan->outOfCore ? runChunkPlanOnHost(level, *plan)
                                          : runTensorProgramCpu(level, {});
            if (!tables)
                return tables.error();
            return CompleteTables{std::move(*tables), {}};
        });
        INFO("trial " << trial << ": " << (ran ? "" : ran.error().str()));
        REQUIRE(ran.ok());
        checkLog10(partitionLog(*p, ran->tables) / std::numbers::ln10,
                   bruteForceMarkov(net, std::vector<int>(net.domains.size(), -1)).log10Z);
    }
    CHECK(slicedLevels > 0); // the host model did slice steps
}
