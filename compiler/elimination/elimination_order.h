// Elimination orders for bucket elimination (Bistaffa et al. 2016 §2.1, Alg. 2: greedily pick the
// variable of least metric, connect its neighbours, remove it) and what an order costs — induced
// width and the largest tables — computed on the interaction graph alone, before any table is
// allocated.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

enum class OrderHeuristic : uint8_t {
    MinDegree,       // metric: number of neighbours
    MinFill,         // metric: number of fill edges the elimination adds
    WeightedMinFill, // metric: sum over fill edges {u,v} of |D(u)|·|D(v)|, so large domains weigh
};

std::string_view orderHeuristicName(OrderHeuristic h);
std::optional<OrderHeuristic> parseOrderHeuristic(std::string_view name);

// The interaction (primal) graph: a vertex per variable, an edge between two variables that share
// a scope. Built from the scopes of the cost functions.
struct InteractionGraph {
    std::vector<uint32_t> domainSizes;
    std::vector<std::vector<uint32_t>> neighbours; // sorted
};

InteractionGraph buildInteractionGraph(const std::vector<uint32_t> &domainSizes,
                                       const std::vector<std::vector<uint32_t>> &scopes);

// Sequence of variables, eliminated first to last (the first one's bucket is processed first).
std::vector<uint32_t> greedyOrder(const InteractionGraph &graph, OrderHeuristic heuristic);

struct OrderStats {
    uint32_t inducedWidth = 0;        // largest number of neighbours at elimination
    double largestMessageEntries = 0; // largest table a bucket produces (its separator)
    double largestBucketEntries = 0;  // largest joint space of a bucket (separator × variable)
    double totalMessageEntries = 0;   // all messages together (the memory BE holds at most)
};

// Simulates the elimination; entries are float64 so that 10^30 reports instead of overflowing.
OrderStats analyzeOrder(const InteractionGraph &graph, const std::vector<uint32_t> &order);

// Checks that `order` is a permutation of 0..n-1; message names the first problem.
Status checkOrder(const std::vector<uint32_t> &order, size_t numVariables);

// An order file: variable indices separated by white space, '#' comments, each variable once.
Result<std::vector<uint32_t>> readOrderFile(const std::string &path, size_t numVariables);

} // namespace zbddc
