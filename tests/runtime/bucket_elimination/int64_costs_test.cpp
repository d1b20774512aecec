// WCSPs whose costs and optima exceed 2^53 (upper bounds up to 2^63 - 1) solve exactly in
// Semiring::MinSumInt64 on every CPU path: the reference interpreter, the CPU executor with fused
// and unfused buckets, incomplete tables, with and without evidence. The oracle is the
// generator's own brute force in 128-bit integers over the tuples it wrote
// (tests/support/wide_cost_wcsp.h); problem.so is checked in problem_so_test.cpp, the GPU in
// tensor_gpu_test.cpp.
#include "compiler/frontends/wcsp/wcsp_reader.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "tests/catch.hpp"
#include "tests/support/wide_cost_wcsp.h"

using namespace zbddc;
using zbddc::testing::wideCostWcsp;

namespace {
// The solution's cost as the oracle writes it (-1: infeasible).
__int128 exactCost(const Solution &sol) {
    return sol.feasible ? static_cast<__int128>(wordInt64(sol.cost)) : -1;
}
} // namespace

TEST_CASE("a WCSP whose upper bound exceeds 2^53 is read as int64 costs", "[int64]") {
    auto small = parseWcsp("p 1 2 1 9007199254740992\n2\n1 0 0 1\n1 7\n", "p.wcsp");
    REQUIRE(small.ok());
    CHECK_FALSE(small->int64Costs); // 2^53 itself is exact in float64
    auto wide = parseWcsp("p 1 2 1 9007199254740993\n2\n1 0 9007199254740993 1\n1 9007199254740991\n",
                          "p.wcsp");
    REQUIRE(wide.ok());
    REQUIRE(wide->int64Costs);
    CHECK(wordInt64(wide->upperBound) == INT64_C(9007199254740993));
    CHECK(wordInt64(wide->functions[0].defaultCost) == kInt64Forbidden); // at the bound
    CHECK(wordInt64(wide->functions[0].costs[1]) == INT64_C(9007199254740991));
    auto top = parseWcsp("p 1 2 1 9223372036854775807\n2\n1 0 0 1\n1 9223372036854775806\n",
                         "p.wcsp");
    REQUIRE(top.ok());
    CHECK(wordInt64(top->functions[0].costs[1]) == INT64_C(9223372036854775806));
}

TEST_CASE("int64 costs: every CPU path finds the exact optimum beyond 2^53", "[int64]") {
    std::mt19937_64 rng(2026);
    int beyond = 0, feasible = 0;
    for (int trial = 0; trial < 30; ++trial) {
        const unsigned scale = 50 + static_cast<unsigned>(rng() % 9); // costs near 2^50..2^58
        const auto w = wideCostWcsp(rng, 3 + rng() % 5, 2 + rng() % 7, scale, 63 - trial % 3);
        auto net = parseWcsp(w.text, "wide.wcsp");
        INFO("trial " << trial << "\n" << w.text);
        REQUIRE(net.ok());
        REQUIRE(net->int64Costs);
        std::vector<uint32_t> evidence(w.domains.size(), UINT32_MAX);
        evidence[0] = static_cast<uint32_t>(rng() % w.domains[0]);
        for (const std::vector<uint32_t> &ev : {std::vector<uint32_t>{}, evidence}) {
            const __int128 expected = w.optimum(ev);
            beyond += expected > (__int128{1} << 53);
            feasible += expected >= 0;
            for (const char *executor : {"reference", "cpu"})
                for (bool fuse : {true, false})
                    for (bool incomplete : {false, true}) {
                        BeOptions o;
                        o.executor = executor;
                        o.execution.threads = 2;
                        o.fuseBuckets = fuse;
                        o.incompleteTables = incomplete;
                        o.evidence = ev;
                        auto sol = solveBucketElimination(*net, o);
                        INFO(executor << (fuse ? " fused" : " unfused")
                                      << (incomplete ? " incomplete" : "")
                                      << (ev.empty() ? "" : " with evidence"));
                        REQUIRE(sol.ok());
                        CHECK(exactCost(*sol) == expected);
                        if (sol->feasible)
                            CHECK(w.cost(sol->assignment) == expected);
                    }
        }
    }
    CHECK(beyond > 20); // the point: optima float64 cannot hold
    CHECK(feasible > 20);
}
