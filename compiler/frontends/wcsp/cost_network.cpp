#include "compiler/frontends/wcsp/cost_network.h"

#include "ir/number_text.h"
#include "ir/sparse_rows.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace zbddc {

Cost CostFunction::costAtRow(uint64_t row) const {
    return sparse ? valueAtListedRow(rows, costs, defaultCost, row) : costs[row];
}

bool tableSize(std::span<const uint32_t> domains, std::span<const uint32_t> scope, uint64_t &out) {
    uint64_t size = 1;
    for (uint32_t v : scope) {
        const uint64_t d = domains[v];
        if (d != 0 && size > UINT64_MAX / d)
            return false;
        size *= d;
    }
    out = size;
    return true;
}

uint64_t rowOf(const std::vector<uint32_t> &domains, std::span<const uint32_t> scope,
               std::span<const uint32_t> assignment) {
    uint64_t row = 0;
    for (uint32_t v : scope)
        row = row * domains[v] + assignment[v];
    return row;
}

CostFunction probabilityCosts(std::vector<uint32_t> scope, std::span<const double> table,
                              size_t line) {
    CostFunction f;
    f.scope = std::move(scope);
    f.line = line;
    f.costs.reserve(table.size());
    for (double p : table)
        f.costs.push_back(p == 0 ? kForbidden : -std::log(p));
    return f;
}

Cost assignmentCost(const CostNetwork &network, std::span<const uint32_t> assignment) {
    const SemiringOps ring{network.semiring()};
    Cost total = ring.one();
    for (const CostFunction &f : network.functions)
        total = ring.times(total, f.costAtRow(rowOf(network.domainSizes, f.scope, assignment)));
    return network.feasible(total) ? total : network.forbidden();
}

bool CostNetwork::sameCost(Cost a, Cost b) const {
    if (int64Costs) // bit patterns: some are NaN as doubles
        return wordInt64(a) == wordInt64(b);
    if (integerCosts)
        return a == b;
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

std::string CostNetwork::costText(Cost cost) const {
    if (int64Costs)
        return std::to_string(wordInt64(cost));
    return integerCosts ? std::to_string(static_cast<long long>(cost)) : shortestText(cost);
}

double CostNetwork::costValue(Cost cost) const {
    if (!int64Costs)
        return cost;
    const int64_t v = wordInt64(cost);
    return v == kInt64Forbidden ? std::numeric_limits<double>::infinity() : static_cast<double>(v);
}

void normalizeSparseRows(CostFunction &function) {
    const size_t n = function.rows.size();
    std::vector<size_t> perm(n);
    std::iota(perm.begin(), perm.end(), size_t{0});
    // Stable sort keeps file order among equal rows, so the last one is the one that counts.
    std::stable_sort(perm.begin(), perm.end(),
                     [&](size_t a, size_t b) { return function.rows[a] < function.rows[b]; });
    std::vector<uint64_t> rows;
    std::vector<Cost> costs;
    for (size_t i = 0; i < n; ++i) {
        const size_t k = perm[i];
        if (!rows.empty() && rows.back() == function.rows[k])
            costs.back() = function.costs[k];
        else {
            rows.push_back(function.rows[k]);
            costs.push_back(function.costs[k]);
        }
    }
    function.rows = std::move(rows);
    function.costs = std::move(costs);
}

} // namespace zbddc
