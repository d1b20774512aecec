// splitWideReductions keeps every table's values (the CPU executor runs both programs) on
// bucket-elimination programs of every semiring and on batched junction trees, and it splits.
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/plan/split_reductions.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

using namespace zbddc;

namespace {
void checkSplitKeepsValues(const TensorProgram &p) {
    const cuda::SplitReductionOptions small{64, 8};
    const TensorProgram split = cuda::splitWideReductions(p, small);
    REQUIRE(split.verify().ok());
    auto a = runTensorProgramCpu(p, {1});
    auto b = runTensorProgramCpu(split, {1});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    for (size_t t = 0; t < p.tables.size(); ++t) {
        REQUIRE((*a)[t].size() == (*b)[t].size());
        for (size_t r = 0; r < (*a)[t].size(); ++r)
            CHECK((*b)[t][r] == Approx((*a)[t][r]).epsilon(1e-12).margin(1e-300));
    }
}
} // namespace

TEST_CASE("splitWideReductions keeps values: bucket elimination", "[cuda][split]") {
    std::mt19937 rng(4);
    for (int trial = 0; trial < 8; ++trial) {
        const CostNetwork net = testing::randomNetwork(rng, 6, 6, 4, 3, 9, trial % 2);
        auto p = buildBucketProgram(net, testing::minFillOrder(net), {trial % 2 == 0, {}});
        REQUIRE(p.ok());
        p->semiring = static_cast<Semiring>(trial % 4);
        checkSplitKeepsValues(*p);
    }
}

TEST_CASE("splitWideReductions keeps values and splits: batched junction trees", "[cuda][split]") {
    std::mt19937 rng(9);
    size_t splits = 0;
    for (int trial = 0; trial < 8; ++trial) {
        const BayesNet net = testing::randomBayesNet(rng, 8);
        auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
        REQUIRE(tree.ok());
        JunctionTreeLowering l;
        l.marginals = trial % 2 == 0;
        l.maxProduct = trial % 2 == 1;
        l.batch = 3;
        l.observed = {0, 1, 2, 3, 4, 5, 6, 7};
        auto jt = lowerJunctionTree(net, *tree, l);
        REQUIRE(jt.ok());
        checkSplitKeepsValues(jt->program);
        splits +=
            cuda::splitWideReductions(jt->program, {64, 8}).ops.size() - jt->program.ops.size();
    }
    CHECK(splits > 0);
}
