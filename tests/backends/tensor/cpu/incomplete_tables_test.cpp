// Bucket elimination over incomplete tables (Bistaffa et al. 2017 §IV): the primitives against the
// standard library, the CPU executor against the reference interpreter table by table, against the
// complete path capped at the bound, and against brute force; the VALUE phase over incomplete
// tables.
#include "backends/tensor/cpu/incomplete_cpu.h"
#include "backends/tensor/cpu/incomplete_ops.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "ir/tensor_interpret.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <filesystem>
#include <map>

using namespace zbddc;
using zbddc::testing::minFillOrder;
using zbddc::testing::bruteForceOptimum;
using zbddc::testing::randomNetwork;

namespace {
// Random networks whose hard constraints make many rows infeasible: top is low against the costs.
CostNetwork tightNetwork(std::mt19937 &rng, int trial) {
    CostNetwork net = randomNetwork(rng, 3 + rng() % 6, 2 + rng() % 9, 4, 3, 30, true);
    net.upperBound = trial % 3 == 0 ? 1000 : 40 + rng() % 60; // some tops cut sums of soft costs
    for (auto &f : net.functions)
        for (auto &c : f.costs)
            if (c >= net.upperBound)
                c = kForbidden;
    for (auto &f : net.functions)
        if (f.defaultCost >= net.upperBound)
            f.defaultCost = kForbidden;
    return net;
}
} // namespace

TEST_CASE("incomplete primitives: radix sort is a stable sort, groups and min per key",
          "[incomplete]") {
    std::mt19937_64 rng(4);
    for (uint64_t maxKey : {uint64_t{0}, uint64_t{1}, uint64_t{2047}, uint64_t{2048},
                            uint64_t{1} << 40, ~uint64_t{0}}) {
        std::vector<incomplete::KeyedRow> rows(3000);
        const uint64_t step = std::max<uint64_t>(1, maxKey / 63); // 64 keys: many repeats
        for (size_t i = 0; i < rows.size(); ++i)
            rows[i] = {std::min(maxKey, rng() % 64 * step), i, double(rng() % 50)};
        auto expected = rows;
        std::stable_sort(expected.begin(), expected.end(),
                         [](auto &a, auto &b) { return a.key < b.key; });
        incomplete::radixSortByKey(rows, maxKey);
        for (size_t i = 0; i < rows.size(); ++i) {
            REQUIRE(rows[i].key == expected[i].key);
            REQUIRE(rows[i].payload == expected[i].payload); // stable
        }
        const incomplete::Groups g = incomplete::groupSortedRows(rows);
        REQUIRE(g.offsets.size() == g.keys.size() + 1);
        REQUIRE(g.offsets.back() == rows.size());
        for (size_t k = 0; k < g.keys.size(); ++k) {
            REQUIRE(g.find(g.keys[k]) == int64_t(k));
            for (uint64_t i = g.offsets[k]; i < g.offsets[k + 1]; ++i)
                REQUIRE(rows[i].key == g.keys[k]);
        }
        std::vector<uint64_t> outRows;
        std::vector<double> outValues;
        incomplete::segmentedMin(rows, 10, outRows, outValues);
        std::map<uint64_t, double> least;
        for (const auto &r : rows)
            least[r.key] = least.count(r.key) ? std::min(least[r.key], r.value) : r.value;
        size_t i = 0;
        for (auto [key, v] : least)
            if (v < 10) {
                REQUIRE(i < outRows.size());
                CHECK(outRows[i] == key);
                CHECK(outValues[i++] == v);
            }
        CHECK(i == outRows.size());
    }
}

TEST_CASE("incomplete tables: CPU executor equals the interpreter, the capped complete path and "
          "brute force",
          "[incomplete]") {
    std::mt19937 rng(17);
    size_t droppedRows = 0;
    for (int trial = 0; trial < 80; ++trial) {
        const CostNetwork net = tightNetwork(rng, trial);
        std::vector<uint32_t> order = minFillOrder(net);
        if (trial % 3 == 1)
            std::shuffle(order.begin(), order.end(), rng);
        std::vector<uint32_t> evidence;
        if (trial % 4 == 1) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[0] = rng() % net.domainSizes[0];
        }
        const Cost bf = bruteForceOptimum(net, evidence);
        for (bool fuse : {true, false}) {
            auto complete = buildBucketProgram(net, order, {fuse, evidence});
            REQUIRE(complete.ok());
            TensorProgram sparse = *complete;
            REQUIRE(markIncomplete(sparse, net.upperBound).ok());
            INFO("trial " << trial << " fuse " << fuse << "\n" << sparse.dump());
            auto oracle = interpretTensorProgram(sparse);
            auto full = runTensorProgramCpu(*complete, {2});
            IncompleteExecOptions options;
            options.completeAbove = trial % 2 ? 0.5 : 2.0; // both storage choices
            auto got = runIncompleteTensorProgramCpu(sparse, options);
            REQUIRE(oracle.ok());
            REQUIRE(full.ok());
            REQUIRE(got.ok());
            for (const TensorOp &op : sparse.ops) {
                const uint64_t entries = sparse.tables[op.output].entries();
                const std::vector<double> mine = (*got)[op.output].densify(entries);
                const std::vector<double> &ref = (*oracle)[op.output];
                REQUIRE(mine.size() == ref.size());
                for (uint64_t r = 0; r < entries; ++r) {
                    const double capped = std::min((*full)[op.output][r], net.upperBound);
                    CHECK(mine[r] == ref[r]); // exact: integer costs
                    CHECK(capped == ref[r]);
                }
                if ((*got)[op.output].sparse)
                    droppedRows += entries - (*got)[op.output].rows.size();
            }
            const double optimum = programResultOf(sparse, *got);
            CHECK((optimum >= net.upperBound ? kForbidden : optimum) == bf);
            if (bf != kForbidden) {
                std::vector<uint32_t> a(net.numVariables(), 0);
                for (size_t v = 0; v < evidence.size(); ++v)
                    if (evidence[v] != UINT32_MAX)
                        a[v] = evidence[v];
                recoverAssignmentOf(sparse, *got, a);
                CHECK(assignmentCost(net, a) == bf);
            }
        }
    }
    CHECK(droppedRows > 0); // the tests exercise dropped rows, not only complete ones
}

TEST_CASE("incomplete tables: the solver's optimum and assignment match brute force",
          "[incomplete]") {
    std::mt19937 rng(23);
    for (int trial = 0; trial < 40; ++trial) {
        const CostNetwork net = tightNetwork(rng, trial);
        const Cost bf = bruteForceOptimum(net);
        for (const char *e : {"cpu", "reference"}) {
            BeOptions o;
            o.incompleteTables = true;
            o.executor = e;
            o.fuseBuckets = trial % 2;
            auto sol = solveBucketElimination(net, o);
            REQUIRE(sol.ok());
            CHECK(sol->feasible == (bf != kForbidden));
            CHECK(sol->cost == bf);
            if (sol->feasible)
                CHECK(assignmentCost(net, sol->assignment) == bf);
        }
    }
}

TEST_CASE("incomplete tables: a join beyond the row limit is refused with a message",
          "[incomplete]") {
    std::mt19937 rng(2);
    CostNetwork net = randomNetwork(rng, 8, 12, 4, 3, 30, false);
    net.upperBound = 1e9;
    BeOptions o;
    o.incompleteTables = true;
    o.execution.maxIncompleteRows = 3;
    auto sol = solveBucketElimination(net, o);
    REQUIRE(!sol.ok());
    CHECK(sol.error().message.find("beyond the limit") != std::string::npos);
}

TEST_CASE("incomplete tables: the small benchmark WCSPs give the complete path's optimum",
          "[incomplete]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
    REQUIRE(std::filesystem::exists(dir));
    for (const char *name : {"example", "warehouse", "zebra", "4queens"}) {
        auto net = readCostNetworkFile(dir + "/" + name + ".wcsp");
        REQUIRE(net.ok());
        BeOptions complete, sparse;
        sparse.incompleteTables = true;
        auto a = solveBucketElimination(*net, complete);
        auto b = solveBucketElimination(*net, sparse);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        INFO(name);
        CHECK(a->cost == b->cost);
        CHECK(assignmentCost(*net, b->assignment) == b->cost);
    }
}
