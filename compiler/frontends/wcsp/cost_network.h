// A cost network (weighted CSP, or a Markov/Bayesian network read as an MPE problem): discrete
// variables and cost functions over them; the task is an assignment of least total cost. Costs are
// float64: WCSP costs are integers (exact in float64 below 2^53, and so are their sums below an
// upper bound that is), UAI probabilities p become -ln p. A forbidden tuple costs +infinity.
// A WCSP whose upper bound exceeds 2^53 (up to 2^63 - 1, as toulbar2 reads them) keeps each cost's
// int64 bit pattern in its Cost instead (`int64Costs`; ir/semiring.h), and is solved in
// Semiring::MinSumInt64, exactly.
#pragma once

#include "ir/result.h"
#include "ir/semiring.h"

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

using Cost = double;
inline constexpr Cost kForbidden = std::numeric_limits<double>::infinity();
// The largest upper bound kept in float64: integers up to 2^53 are exact there.
inline constexpr uint64_t kMaxExactCost = uint64_t{1} << 53;
// The largest upper bound accepted (toulbar2's costs are int64).
inline constexpr uint64_t kMaxInt64Cost = static_cast<uint64_t>(kInt64Forbidden);

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
    // Every Cost above (costs, defaultCost, upperBound) holds an int64's bit pattern, forbidden
    // being int64Word(kInt64Forbidden): a WCSP whose upper bound exceeds kMaxExactCost.
    bool int64Costs = false;

    size_t numVariables() const { return domainSizes.size(); }
    Semiring semiring() const { return int64Costs ? Semiring::MinSumInt64 : Semiring::MinSum; }
    Cost forbidden() const { return SemiringOps{semiring()}.zero(); }
    // Whether a total is feasible: below the upper bound.
    bool feasible(Cost total) const { return SemiringOps{semiring()}.better(total, upperBound); }
    // Whether two costs agree: exactly where costs are integers, to 1e-9 (relative) where real.
    bool sameCost(Cost a, Cost b) const;
    // A cost as text: integers in full, reals as the shortest text that reads back as the double.
    std::string costText(Cost cost) const;
    // A cost as a double (rounded beyond 2^53 where costs are int64), for approximate uses.
    double costValue(Cost cost) const;
};

// Product of the domain sizes of `scope`, or false when it does not fit in 64 bits.
bool tableSize(std::span<const uint32_t> domains, std::span<const uint32_t> scope, uint64_t &out);

// Row index of `assignment` (indexed by variable) in a table over `scope`.
uint64_t rowOf(const std::vector<uint32_t> &domains, std::span<const uint32_t> scope,
               std::span<const uint32_t> assignment);

// Total cost of a complete assignment, recomputed from the original tables (the check every
// answer must pass); network.forbidden() when the total reaches the upper bound.
Cost assignmentCost(const CostNetwork &network, std::span<const uint32_t> assignment);

// A table of probabilities (or weights) over `scope` as costs: each entry p as -ln p, 0
// forbidden.
CostFunction probabilityCosts(std::vector<uint32_t> scope, std::span<const double> table,
                              size_t line);

// Sorts sparse rows ascending and keeps the last cost given for a repeated row (a later tuple in
// the file overrides an earlier one).
void normalizeSparseRows(CostFunction &function);

} // namespace zbddc
