#include "compiler/elimination/elimination_order.h"

#include "ir/text_lines.h"
#include "support/name_table.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <tuple>

namespace zbddc {

namespace {
using H = OrderHeuristic;
constexpr Named<OrderHeuristic> kHeuristicNames[] = {
    {H::MinDegree, "min-degree"}, {H::MinFill, "min-fill"},
    {H::WeightedMinFill, "weighted-min-fill"}, {H::MinWeight, "min-weight"}};
} // namespace

std::string_view orderHeuristicName(OrderHeuristic h) { return nameIn(kHeuristicNames, h); }

std::optional<OrderHeuristic> parseOrderHeuristic(std::string_view name) {
    return valueNamed(kHeuristicNames, name);
}

InteractionGraph buildInteractionGraph(const std::vector<uint32_t> &domainSizes,
                                       const std::vector<std::vector<uint32_t>> &scopes) {
    InteractionGraph g;
    g.domainSizes = domainSizes;
    g.neighbours.resize(domainSizes.size());
    for (const auto &scope : scopes)
        for (uint32_t u : scope)
            for (uint32_t v : scope)
                if (u != v)
                    g.neighbours[u].push_back(v);
    for (auto &n : g.neighbours) {
        std::sort(n.begin(), n.end());
        n.erase(std::unique(n.begin(), n.end()), n.end());
    }
    return g;
}

namespace {

// Adjacency as sorted vectors plus a dense bit matrix for O(1) edge tests; the greedy loop only
// recomputes the metric of vertices within distance 2 of the eliminated one.
class EliminationGraph {
  public:
    // Sorted adjacency lists only: a bit matrix took n^2 bits (5 GB at 200,000 variables).
    explicit EliminationGraph(const InteractionGraph &g) : adj_(g.neighbours) {
        for (auto &a : adj_)
            std::sort(a.begin(), a.end());
    }

    const std::vector<uint32_t> &neighbours(uint32_t v) const { return adj_[v]; }
    bool adjacent(uint32_t u, uint32_t v) const {
        return std::binary_search(adj_[u].begin(), adj_[u].end(), v);
    }

    // Connects the neighbours of v pairwise and removes v.
    void eliminate(uint32_t v) {
        const std::vector<uint32_t> nb = adj_[v];
        for (uint32_t u : nb) {
            auto &a = adj_[u];
            a.erase(std::lower_bound(a.begin(), a.end(), v));
        }
        for (size_t i = 0; i < nb.size(); ++i)
            for (size_t j = i + 1; j < nb.size(); ++j)
                if (!adjacent(nb[i], nb[j])) {
                    insertSorted(adj_[nb[i]], nb[j]);
                    insertSorted(adj_[nb[j]], nb[i]);
                }
        adj_[v].clear();
    }

  private:
    static void insertSorted(std::vector<uint32_t> &a, uint32_t x) {
        a.insert(std::lower_bound(a.begin(), a.end(), x), x);
    }
    std::vector<std::vector<uint32_t>> adj_;
};

double metric(const EliminationGraph &g, const std::vector<uint32_t> &domains, uint32_t v,
              OrderHeuristic h) {
    const auto &nb = g.neighbours(v);
    if (h == OrderHeuristic::MinDegree)
        return static_cast<double>(nb.size());
    if (h == OrderHeuristic::MinWeight) {
        double entries = domains[v];
        for (uint32_t u : nb)
            entries *= domains[u];
        return entries;
    }
    double fill = 0;
    for (size_t i = 0; i < nb.size(); ++i)
        for (size_t j = i + 1; j < nb.size(); ++j)
            if (!g.adjacent(nb[i], nb[j]))
                fill += h == OrderHeuristic::MinFill
                            ? 1.0
                            : static_cast<double>(domains[nb[i]]) * domains[nb[j]];
    return fill;
}

// Tie-break: the smaller table the elimination would create, then the smaller index.
double separatorLog(const EliminationGraph &g, const std::vector<uint32_t> &domains, uint32_t v) {
    double s = 0;
    for (uint32_t u : g.neighbours(v))
        s += std::log2(static_cast<double>(domains[u]));
    return s;
}

} // namespace

// The deterministic greedy: the least (score, tie, index) each step, from a heap whose entries
// go stale when a vertex's score is recomputed (the scan over every vertex each step was
// quadratic: 200,000 variables took 78 s).
static std::vector<uint32_t> greedyOrderByHeap(const InteractionGraph &graph,
                                               OrderHeuristic heuristic) {
    const size_t n = graph.neighbours.size();
    EliminationGraph g(graph);
    using Entry = std::tuple<double, double, uint32_t>; // score, tie, vertex
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    std::vector<Entry> current(n);
    std::vector<bool> done(n, false);
    auto rescore = [&](uint32_t v) {
        current[v] = {metric(g, graph.domainSizes, v, heuristic),
                      separatorLog(g, graph.domainSizes, v), v};
        heap.push(current[v]);
    };
    for (uint32_t v = 0; v < n; ++v)
        rescore(v);
    std::vector<uint32_t> order;
    order.reserve(n);
    std::vector<uint32_t> touched;
    std::vector<bool> mark(n, false);
    while (order.size() < n) {
        const Entry top = heap.top();
        heap.pop();
        const uint32_t best = std::get<2>(top);
        if (done[best] || top != current[best])
            continue; // stale
        touched.clear(); // within distance two: their scores change
        for (uint32_t u : g.neighbours(best)) {
            if (!mark[u])
                mark[u] = true, touched.push_back(u);
            for (uint32_t w : g.neighbours(u))
                if (!mark[w])
                    mark[w] = true, touched.push_back(w);
        }
        g.eliminate(best);
        done[best] = true;
        order.push_back(best);
        for (uint32_t u : touched) {
            mark[u] = false;
            if (!done[u])
                rescore(u);
        }
    }
    return order;
}

std::vector<uint32_t> greedyOrder(const InteractionGraph &graph, OrderHeuristic heuristic,
                                  uint64_t tieSeed, double slack) {
    if (tieSeed == 0)
        return greedyOrderByHeap(graph, heuristic);
    // Randomised ties (the order search): every vertex with the best score is seen once per
    // step and one is drawn by reservoir sampling; with slack, every vertex within (1 + slack)
    // of the best, in a second pass over the scores.
    const size_t n = graph.neighbours.size();
    EliminationGraph g(graph);
    std::vector<double> score(n);
    std::vector<bool> done(n, false), dirty(n, true);
    std::vector<uint32_t> order;
    order.reserve(n);
    std::mt19937_64 rng(tieSeed);
    for (size_t step = 0; step < n; ++step) {
        uint32_t best = UINT32_MAX;
        uint64_t ties = 0;
        for (uint32_t v = 0; v < n; ++v) {
            if (done[v])
                continue;
            if (dirty[v]) {
                score[v] = metric(g, graph.domainSizes, v, heuristic);
                dirty[v] = false;
            }
            if (best == UINT32_MAX || score[v] < score[best]) {
                best = v;
                ties = 1;
            } else if (score[v] == score[best] && rng() % ++ties == 0) {
                best = v;
            }
        }
        if (slack > 0) {
            const double bound = score[best] * (1 + slack);
            ties = 0;
            for (uint32_t v = 0; v < n; ++v)
                if (!done[v] && score[v] <= bound && rng() % ++ties == 0)
                    best = v;
        }
        for (uint32_t u : g.neighbours(best)) {
            dirty[u] = true;
            for (uint32_t w : g.neighbours(u))
                dirty[w] = true;
        }
        g.eliminate(best);
        done[best] = true;
        order.push_back(best);
    }
    return order;
}

void simulateElimination(
    const InteractionGraph &graph, const std::vector<uint32_t> &order,
    const std::function<void(uint32_t v, const std::vector<uint32_t> &neighbours)> &visit) {
    EliminationGraph g(graph);
    for (uint32_t v : order) {
        visit(v, g.neighbours(v));
        g.eliminate(v);
    }
}

OrderStats analyzeOrder(const InteractionGraph &graph, const std::vector<uint32_t> &order) {
    const size_t n = graph.neighbours.size();
    std::vector<uint32_t> pos(n);
    for (uint32_t i = 0; i < order.size(); ++i)
        pos[order[i]] = i;
    // Blair and Peyton 1993 §4: in a perfect elimination order, v's clique {v} ∪ N+(v) is maximal
    // unless some u whose first higher neighbour is v has |N+(u)| = |N+(v)| + 1 (and then
    // contains it). childSize[v]: the largest |N+(u)| over such u, known before v goes.
    std::vector<int64_t> childSize(n, -1);
    OrderStats s;
    simulateElimination(graph, order, [&](uint32_t v, const std::vector<uint32_t> &nb) {
        double message = 1;
        for (uint32_t u : nb)
            message *= graph.domainSizes[u];
        const double bucket = message * graph.domainSizes[v];
        s.inducedWidth = std::max<uint32_t>(s.inducedWidth, nb.size());
        s.largestMessageEntries = std::max(s.largestMessageEntries, message);
        s.largestBucketEntries = std::max(s.largestBucketEntries, bucket);
        s.totalMessageEntries += message;
        if (childSize[v] != static_cast<int64_t>(nb.size()) + 1) {
            ++s.cliques;
            s.totalCliqueEntries += bucket;
        }
        if (!nb.empty()) {
            const uint32_t first = *std::min_element(
                nb.begin(), nb.end(), [&](uint32_t a, uint32_t b) { return pos[a] < pos[b]; });
            childSize[first] = std::max<int64_t>(childSize[first], nb.size());
        }
    });
    return s;
}

Status checkOrder(const std::vector<uint32_t> &order, size_t numVariables) {
    std::vector<bool> seen(numVariables, false);
    for (uint32_t v : order) {
        if (v >= numVariables)
            return error("order names unknown variable " + std::to_string(v));
        if (seen[v])
            return error("order names variable " + std::to_string(v) + " twice");
        seen[v] = true;
    }
    for (size_t v = 0; v < numVariables; ++v)
        if (!seen[v])
            return error("order misses variable " + std::to_string(v));
    return Ok{};
}

} // namespace zbddc
