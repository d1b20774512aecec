// Elimination orders for bucket elimination (Bistaffa et al. 2016 §2.1, Alg. 2: greedily pick the
// variable of least metric, connect its neighbours, remove it) and what an order costs — induced
// width and the largest tables — computed on the interaction graph alone, before any table is
// allocated.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

enum class OrderHeuristic : uint8_t {
    MinDegree,       // metric: number of neighbours
    MinFill,         // metric: number of fill edges the elimination adds
    WeightedMinFill, // metric: sum over fill edges {u,v} of |D(u)|·|D(v)|, so large domains weigh
    MinWeight,       // metric: entries of the table the elimination creates, |D(v)|·Π|D(neighbour)|
                     // (Kjærulff 1990's minimum weight: it aims at the total state space)
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
// tieSeed 0: ties on the metric go to the smaller table created, then the smaller index, so the
// order is a function of the graph. Other seeds: ties on the metric are broken uniformly at random
// (the randomised greedy orders of Kask et al. 2011, which an order search repeats), and with a
// slack s > 0 every vertex whose metric is at most (1 + s) times the least is a candidate: a
// wider random walk around the greedy choice (munin1: total clique entries 1.8·10^8 → 0.9·10^8
// at s = 0.5 to 1 in 100 runs, where ties alone stay at 1.8·10^8). Slack needs a tie seed.
std::vector<uint32_t> greedyOrder(const InteractionGraph &graph, OrderHeuristic heuristic,
                                  uint64_t tieSeed = 0, double slack = 0);

// Eliminates `order` on the graph, calling visit(v, neighbours) just before v goes: `neighbours`
// (ascending) are v's neighbours eliminated after it, fill edges included — its higher
// neighbours in the triangulated graph, so {v} ∪ neighbours is v's elimination clique.
void simulateElimination(
    const InteractionGraph &graph, const std::vector<uint32_t> &order,
    const std::function<void(uint32_t v, const std::vector<uint32_t> &neighbours)> &visit);

struct OrderStats {
    uint32_t inducedWidth = 0;        // largest number of neighbours at elimination
    double largestMessageEntries = 0; // largest table a bucket produces (its separator)
    double largestBucketEntries = 0;  // largest joint space of a bucket (separator × variable)
    double totalMessageEntries = 0;   // all messages together (the memory BE holds at most)
    // The maximal elimination cliques, i.e. the maximal cliques of the triangulated graph: the
    // cliques of a junction tree built from this order and the tables it holds.
    uint32_t cliques = 0;
    double totalCliqueEntries = 0;
};

// Simulates the elimination; entries are float64 so that 10^30 reports instead of overflowing.
OrderStats analyzeOrder(const InteractionGraph &graph, const std::vector<uint32_t> &order);

// Checks that `order` is a permutation of 0..n-1; message names the first problem.
Status checkOrder(const std::vector<uint32_t> &order, size_t numVariables);


} // namespace zbddc
