// A cost function's table transposed into another layout of its scope: every assignment keeps its
// cost, checked assignment by assignment against the row arithmetic of both layouts (the last
// variable of a scope fastest), for dense and sparse functions.
#include "compiler/elimination/bucket_program.h"

#include "tests/catch.hpp"

#include <algorithm>
#include <numeric>
#include <random>

using namespace zbddc;

namespace {

// The row of `assignment` (by variable) in a table over `scope`, the last variable fastest.
uint64_t rowOf(const std::vector<uint32_t> &scope, const std::vector<uint32_t> &domains,
               const std::vector<uint32_t> &assignment) {
    uint64_t row = 0;
    for (uint32_t v : scope)
        row = row * domains[v] + assignment[v];
    return row;
}

} // namespace

TEST_CASE("cost function tables keep every assignment's cost in any layout", "[wcsp]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 40; ++trial) {
        const uint32_t n = 1 + rng() % 5;
        std::vector<uint32_t> domains(n);
        for (uint32_t &d : domains)
            d = 2 + rng() % 3;
        CostFunction f;
        f.scope.resize(n);
        std::iota(f.scope.begin(), f.scope.end(), 0u);
        std::shuffle(f.scope.begin(), f.scope.end(), rng);
        uint64_t entries = 1;
        for (uint32_t d : domains)
            entries *= d;
        f.sparse = trial % 4 == 3;
        for (uint64_t r = 0; r < entries; ++r)
            if (!f.sparse || rng() % 3 == 0) {
                f.costs.push_back(static_cast<Cost>(rng() % 1000));
                if (f.sparse)
                    f.rows.push_back(r);
            }
        f.defaultCost = 5000;
        std::vector<uint32_t> layout = f.scope;
        if (trial % 5 != 0) // every fifth keeps the function's own layout
            std::shuffle(layout.begin(), layout.end(), rng);
        const Table t = costFunctionTable(f, layout, domains);
        REQUIRE(t.sparse == f.sparse);
        const std::vector<double> dense = t.denseValues();
        REQUIRE(dense.size() == entries);
        std::vector<uint32_t> assignment(n, 0);
        for (uint64_t k = 0; k < entries; ++k) {
            uint64_t rest = k;
            for (uint32_t v = 0; v < n; ++v) {
                assignment[v] = static_cast<uint32_t>(rest % domains[v]);
                rest /= domains[v];
            }
            INFO("trial " << trial << " assignment " << k);
            CHECK(dense[rowOf(layout, domains, assignment)] ==
                  static_cast<double>(f.costAtRow(rowOf(f.scope, domains, assignment))));
        }
    }
}
