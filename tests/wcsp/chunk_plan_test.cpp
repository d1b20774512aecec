// The out-of-core chunk planner (seed 002 §V) on random bucket programs and small budgets: chunks
// tile each output exactly along its most significant variables, what is resident at once stays
// within the budget, and impossible budgets are refused with a message.
#include "backends/cuda_tensor/chunk_plan.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/elimination/elimination_order.h"
#include "random_networks.h"

#include "tests/catch.hpp"

using namespace zbddc;

namespace {
TensorProgram randomProgram(std::mt19937 &rng) {
    const CostNetwork net = testing::randomNetwork(rng, 4 + rng() % 6, 3 + rng() % 8, 6, 4, 50, false);
    std::vector<std::vector<uint32_t>> scopes;
    for (const auto &f : net.functions)
        scopes.push_back(f.scope);
    auto order = greedyOrder(buildInteractionGraph(net.domainSizes, scopes), OrderHeuristic::MinFill);
    auto p = buildBucketProgram(net, order, {true, {}});
    REQUIRE(p.ok());
    return std::move(*p);
}
} // namespace

TEST_CASE("chunk plans tile outputs within the memory budget", "[wcsp][chunks]") {
    std::mt19937 rng(5);
    int outOfCore = 0, multiChunk = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const TensorProgram p = randomProgram(rng);
        uint64_t total = 0, largestOp = 0;
        for (const Table &t : p.tables)
            total += 8 * t.entries();
        for (const TensorOp &op : p.ops) {
            uint64_t in = 0;
            for (uint32_t i : op.inputs)
                in += 8 * p.tables[i].entries();
            largestOp = std::max(largestOp, in + 8);
        }
        // Budgets from "everything fits" down to "one output row beside the inputs".
        const uint64_t budget = trial % 4 == 0 ? total : largestOp + rng() % (total / 8 + 1);
        const uint32_t maxInFlight = 1 + rng() % 4;
        auto plan = planChunks(p, budget, maxInFlight);
        INFO("trial " << trial << ": " << (plan ? "" : plan.error().str()));
        REQUIRE(plan.ok());
        CHECK(plan->outOfCore == (total > budget));
        if (!plan->outOfCore)
            continue;
        ++outOfCore;
        REQUIRE(plan->ops.size() == p.ops.size());
        for (uint32_t o = 0; o < p.ops.size(); ++o) {
            const OpChunkPlan &c = plan->ops[o];
            const Table &out = p.tables[p.ops[o].output];
            uint64_t suffix = 1;
            for (size_t i = c.fixedVars; i < out.scope.size(); ++i)
                suffix *= out.domains[i];
            CHECK(c.chunkRows == suffix);
            CHECK(c.chunkRows * c.chunks == out.entries());
            CHECK(c.inFlight >= 1);
            CHECK(c.inFlight <= maxInFlight);
            CHECK(c.inFlight <= c.chunks);
            CHECK(c.inputBytes + 8 * c.inFlight * c.chunkRows <= budget);
            multiChunk += c.chunks > 1;
        }
    }
    // The trials must exercise the planner, not only its "fits" answer.
    CHECK(outOfCore > 50);
    CHECK(multiChunk > 50);
}

TEST_CASE("chunk plans refuse budgets that cannot hold an op's inputs", "[wcsp][chunks]") {
    std::mt19937 rng(9);
    const TensorProgram p = randomProgram(rng);
    uint64_t largestInputs = 0;
    for (const TensorOp &op : p.ops) {
        uint64_t in = 0;
        for (uint32_t i : op.inputs)
            in += 8 * p.tables[i].entries();
        largestInputs = std::max(largestInputs, in);
    }
    auto plan = planChunks(p, largestInputs, 2);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.error().message.find("inputs need") != std::string::npos);
}
