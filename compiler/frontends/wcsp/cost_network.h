// A cost network (weighted CSP, or a Markov/Bayesian network read as an MPE problem): discrete
// variables and cost functions over them; the task is an assignment of least total cost. Costs are
// float64: WCSP costs are integers below 2^53 (exact in float64, and so are their sums below the
// upper bound), UAI probabilities p become -ln p. A forbidden tuple costs +infinity.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

using Cost = double;
inline constexpr Cost kForbidden = std::numeric_limits<double>::infinity();
// The largest WCSP cost (and upper bound) we accept: integers up to 2^53 are exact in float64.
inline constexpr uint64_t kMaxExactCost = uint64_t{1} << 53;

// A cost function (a table). Its rows are numbered row-major over `scope` (scope.back() varies
// fastest). Complete: `costs` holds every row. Sparse: `rows` (ascending, unique) with `costs`
// beside them, and every other row costs `defaultCost` — toulbar2's default-cost tables.
struct CostFunction {
    std::vector<uint32_t> scope;
    bool sparse = false;
    std::vector<Cost> costs;
    std::vector<uint64_t> rows;
    Cost defaultCost = 0;
    size_t line = 0; // where it starts in its file, for messages

    // Cost of a row of this table (row index over the scope).
    Cost costAtRow(uint64_t row) const;
};

struct CostNetwork {
    std::string name;
    std::vector<std::string> variableNames; // may be empty; then variables are named by index
    std::vector<uint32_t> domainSizes;
    std::vector<CostFunction> functions;
    // Totals at or above `upperBound` are infeasible (toulbar2's "top"); +infinity for UAI.
    Cost upperBound = kForbidden;
    bool integerCosts = true; // WCSP: costs are integers; UAI: -ln p

    size_t numVariables() const { return domainSizes.size(); }
};

// Product of the domain sizes of `scope`, or false when it does not fit in 64 bits.
bool tableSize(std::span<const uint32_t> domains, std::span<const uint32_t> scope, uint64_t &out);

// Row index of `assignment` (indexed by variable) in a table over `scope`.
uint64_t rowOf(const std::vector<uint32_t> &domains, std::span<const uint32_t> scope,
               std::span<const uint32_t> assignment);

// Total cost of a complete assignment, recomputed from the original tables (the check every
// answer must pass); kForbidden when the total reaches the upper bound.
Cost assignmentCost(const CostNetwork &network, std::span<const uint32_t> assignment);

// Sorts sparse rows ascending and keeps the last cost given for a repeated row (a later tuple in
// the file overrides an earlier one).
void normalizeSparseRows(CostFunction &function);

} // namespace zbddc
