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

// One case (B = 1) or a few: each message's InverseMax reduces onto as many rows, so it splits
// too, as the ⊕ of its rest and then the inverse max of the kept variables. Under sum-product
// that changes the scale (split_reductions.h), so the answers are compared, not the tables: each
// case's P(e) (the normaliser over the collect scales) and every normalised marginal. Under
// max-product the MPE assignment of the split program is the whole one's. No op that reduces
// onto fewer rows than minRows keeps more than minEliminated values per row.
TEST_CASE("splitWideReductions splits the scales of few cases and keeps the answers",
          "[cuda][split]") {
    std::mt19937 rng(21);
    const cuda::SplitReductionOptions small{64, 8};
    size_t scaleSplits[2] = {0, 0}; // sum-product, max-product
    for (int trial = 0; trial < 10; ++trial) {
        const BayesNet net = testing::randomBayesNet(rng, 14);
        auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
        REQUIRE(tree.ok());
        JunctionTreeLowering l;
        l.marginals = true;
        l.maxProduct = trial % 2 == 1;
        l.batch = trial < 6 ? 1 : 3;
        l.observed = {0, 1};
        if (l.maxProduct)
            l.marginals = false;
        auto jt = lowerJunctionTree(net, *tree, l);
        REQUIRE(jt.ok());
        const TensorProgram &p = jt->program;
        const TensorProgram split = cuda::splitWideReductions(p, small);
        REQUIRE(split.verify().ok());
        for (const TensorOp &op : split.ops) {
            uint64_t m = 1;
            for (uint32_t v : op.vars)
                m *= split.domainSizes[v];
            if (op.kind != TensorOpKind::Join && op.vars.size() > 1 &&
                split.tables[op.output].entries() < small.minRows)
                CHECK(m < small.minEliminated * 32);
        }
        for (const TensorOp &op : p.ops)
            if (op.kind == TensorOpKind::InverseMax)
                for (const TensorOp &s : split.ops)
                    if (s.output == op.output && s.inputs != op.inputs)
                        ++scaleSplits[l.maxProduct];
        auto a = runTensorProgramCpu(p, {1});
        auto b = runTensorProgramCpu(split, {1});
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        if (l.maxProduct) // the walk skips the scales' first stages (scaleOnlyTables)
            for (uint32_t c = 0; c < l.batch; ++c) {
                std::vector<uint32_t> whole(split.domainSizes.size(), 0), parts;
                std::vector<uint8_t> pinned(whole.size(), 0);
                whole[jt->batchVariable] = c;
                pinned[jt->batchVariable] = 1;
                parts = whole;
                recoverAssignment(p, *a, whole, &pinned);
                recoverAssignment(split, *b, parts, &pinned);
                CHECK(parts == whole);
            }
        const uint32_t cases = l.batch; // the case index fastest in every batched table
        for (uint32_t c = 0; c < cases; ++c) {
            auto logEvidence = [&](const std::vector<std::vector<double>> &t) {
                auto value = [&](uint32_t table) { // an input (a table of ones) as given
                    const uint64_t row = c * variableStride(p.tables[table], jt->batchVariable);
                    return p.tables[table].input ? p.tables[table].values[row] : t[table][row];
                };
                double log = std::log(value(jt->normaliser));
                for (uint32_t s : jt->collectScales)
                    log -= std::log(value(s));
                return log;
            };
            CHECK(logEvidence(*b) == Approx(logEvidence(*a)).epsilon(1e-12));
            for (uint32_t table : jt->marginalTable) {
                if (table == kNoTable)
                    continue;
                const std::vector<double> &x = (*a)[table], &y = (*b)[table];
                double sx = 0, sy = 0;
                for (size_t i = c; i < x.size(); i += cases)
                    sx += x[i], sy += y[i];
                for (size_t i = c; i < x.size(); i += cases)
                    CHECK(y[i] / sy == Approx(x[i] / sx).epsilon(1e-12).margin(1e-15));
            }
        }
    }
    CHECK(scaleSplits[0] > 0);
    CHECK(scaleSplits[1] > 0);
}

// A scale split in three stages (its second stage still wide): the traceback skips every stage,
// so the assignment is decided by the ops of the optimum alone. Max-product: m(x) = max_a t(a, x)
// over six variables of 8 values, s = 1 / max_x m(x), the result max_x g(x) m(x) s with
// g = 1 / m², whose best x is m's least: a stage walked as a step would pick m's largest.
TEST_CASE("the traceback skips every stage of a split scale", "[cuda][split]") {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> value(0.1, 1.0);
    TensorProgram p;
    p.semiring = Semiring::MaxProduct;
    p.domainSizes.assign(7, 8); // x0..x5, then a
    p.domainSizes[6] = 2;
    const std::vector<uint32_t> xs = {0, 1, 2, 3, 4, 5};
    auto table = [&](std::vector<uint32_t> scope, bool input) {
        Table t;
        t.scope = std::move(scope);
        for (uint32_t v : t.scope)
            t.domains.push_back(p.domainSizes[v]);
        t.input = input;
        if (input)
            for (uint64_t r = 0; r < t.entries(); ++r)
                t.values.push_back(value(rng));
        p.tables.push_back(std::move(t));
        return static_cast<uint32_t>(p.tables.size() - 1);
    };
    const uint32_t t = table({6, 0, 1, 2, 3, 4, 5}, true), g = table(xs, true);
    const uint64_t n = p.tables[g].entries(); // t's rows: a (slowest), then x
    for (uint64_t x = 0; x < n; ++x) {
        const double mx = std::max(p.tables[t].values[x], p.tables[t].values[n + x]);
        p.tables[g].values[x] = 1 / (mx * mx);
    }
    const uint32_t m = table(xs, false), scale = table({}, false), result = table({}, false);
    p.ops.push_back({TensorOpKind::Marginalize, {t}, m, {6}, {}});
    p.ops.push_back({TensorOpKind::InverseMax, {m}, scale, xs, {}});
    p.ops.push_back({TensorOpKind::EliminateBucket, {g, m, scale}, result, xs, {}});
    p.results = {result};
    computeLevels(p);
    REQUIRE(p.verify().ok());
    const TensorProgram split = cuda::splitWideReductions(p, {1024, 8});
    REQUIRE(split.verify().ok());
    const std::vector<uint8_t> scaleOnly = scaleOnlyTables(split);
    size_t stages = 0;
    for (const TensorOp &op : split.ops)
        stages += scaleOnly[op.output];
    CHECK(stages == 2); // the scale's two Marginalize stages before its InverseMax
    auto a = runTensorProgramCpu(p, {1});
    auto b = runTensorProgramCpu(split, {1});
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    std::vector<uint32_t> whole(p.domainSizes.size(), 0), parts = whole;
    recoverAssignment(p, *a, whole);
    recoverAssignment(split, *b, parts);
    CHECK(parts == whole);
}
