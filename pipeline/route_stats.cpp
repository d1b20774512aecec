#include "pipeline/route_stats.h"
#include "compiler/elimination/elimination_stats.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/loopy/factor_graph.h"
#include "compiler/loopy/loopy_design.h"
#include "ir/number_text.h"
#include "support/json.h"
#include "support/timer.h"

#include <algorithm>
#include <cmath>

namespace zbddc::pipeline {

namespace {

Fact number(const std::string &name, double value) {
    return {name, name, jsonNumber(value), jsonNumber(value)};
}

double roundMs(double ms) { return std::round(ms * 1000) / 1000; }

struct Factors {
    std::vector<uint32_t> domains;
    std::vector<std::vector<uint32_t>> scopes;
};

Result<Factors> factorsOf(const ModelFile &m) {
    if (m.costNetwork)
        return Factors{m.costNetwork->domainSizes, functionScopes(*m.costNetwork)};
    if (m.network)
        return Factors{networkDomainSizes(*m.network), familyScopes(*m.network)};
    return errorAt(m.path, 0, std::string("a ") + modelKindName(m.kind) + " has no factors to eliminate");
}

} // namespace

Result<RouteStats> junctionTreeStats(ModelFile &m, const OrderOptions &asked) {
    auto factors = factorsOf(m);
    if (!factors)
        return factors.error();
    auto chosen = chooseOrder(factors->domains, factors->scopes, asked, "search");
    if (!chosen)
        return chosen.error();
    const SteadyTime t1 = std::chrono::steady_clock::now();
    auto jt = buildJunctionTree(factors->domains, factors->scopes, chosen->order);
    if (!jt)
        return errorAt(m.path, 0, jt.error().message);
    const double buildMs = msSince(t1);
    const JunctionTreeStats st = zbddc::junctionTreeStats(*jt);
    RouteStats out{"junction-tree", "junction tree", true, {}};
    const OrderSearchResult &search = chosen->search;
    std::string heuristic = chosen->heuristic;
    out.facts.push_back({"heuristic", "", jsonString(heuristic), ""});
    if (chosen->heuristic == "search") {
        const std::string best(orderHeuristicName(search.heuristic));
        const bool randomised = search.randomised(chosen->searchOptions);
        out.facts.push_back({"search_best", "", jsonString(best), ""});
        out.facts.push_back({"search_best_randomised", "", randomised ? "true" : "false", ""});
        out.facts.push_back({"search_runs", "", std::to_string(search.runs), ""});
        heuristic += " (best: " + best + (randomised ? ", randomised" : "") + "; " +
                     std::to_string(search.runs) + " runs)";
    }
    out.facts.push_back({"", "heuristic", "", heuristic});
    const std::pair<const char *, double> rows[] = {
        {"variables", double(st.variables)},
        {"factors", double(st.factors)},
        {"cliques", double(st.cliques)},
        {"largest_clique_variables", double(st.largestCliqueVariables)},
        {"largest_clique_entries", st.largestCliqueEntries},
        {"total_clique_entries", st.totalCliqueEntries},
        {"largest_separator_entries", st.largestSeparatorEntries},
        {"total_separator_entries", st.totalSeparatorEntries},
        {"induced_width", double(st.inducedWidth)},
        {"depth", double(st.height)},
        {"message_levels", 2.0 * st.height},
        {"widest_level", double(st.widestLevel)},
        {"order_ms", roundMs(chosen->timeMs)},
        {"build_ms", roundMs(buildMs)},
        {"time_ms", roundMs(chosen->timeMs + buildMs)},
    };
    for (auto [name, value] : rows)
        out.facts.push_back(number(name, value));
    return out;
}

Result<RouteStats> eliminationStats(ModelFile &m, const OrderOptions &asked) {
    if (!m.costNetwork)
        return errorAt(m.path, 0, "bucket elimination's sizes need a cost network");
    const CostNetwork &net = *m.costNetwork;
    auto chosen = chooseOrder(net.domainSizes, functionScopes(net), asked, "min-fill");
    if (!chosen)
        return chosen.error();
    auto st = zbddc::eliminationStats(net, chosen->order, chosen->heuristic);
    if (!st)
        return errorAt(m.path, 0, st.error().message);
    RouteStats out{"bucket-elimination", "bucket elimination", true, {}};
    out.facts.push_back({"heuristic", "heuristic", jsonString(st->heuristic), st->heuristic});
    const double bytes = sizeof(double);
    const std::pair<const char *, double> rows[] = {
        {"variables", double(st->variables)},
        {"functions", double(st->functions)},
        {"max_domain", double(st->maxDomain)},
        {"max_arity", double(st->maxArity)},
        {"induced_width", double(st->order.inducedWidth)},
        {"largest_table_entries", st->order.largestMessageEntries},
        {"largest_table_bytes", st->order.largestMessageEntries * bytes},
        {"largest_bucket_entries", st->order.largestBucketEntries},
        {"total_table_entries", st->order.totalMessageEntries},
        {"total_table_bytes", st->order.totalMessageEntries * bytes},
        {"input_entries", st->inputEntries},
        {"buckets", double(st->buckets)},
        {"levels", double(st->levels)},
    };
    for (auto [name, value] : rows)
        out.facts.push_back(number(name, value));
    return out;
}

Result<RouteStats> loopyStats(ModelFile &m) {
    Result<FactorGraph> graph = m.costNetwork ? factorGraphOfCostNetwork(*m.costNetwork, m.path)
                                : m.network   ? factorGraphOfNetwork(*m.network)
                                              : Result<FactorGraph>(errorAt(m.path, 0, "loopy BP "
                                                                       "needs a network or a "
                                                                       "cost network"));
    if (!graph)
        return graph.error();
    const FactorGraph &g = *graph;
    uint64_t largestFactor = 0;
    uint32_t largestDomain = 0, largestDegree = 0;
    for (const LoopyFactor &f : g.factors)
        largestFactor = std::max<uint64_t>(largestFactor, f.logValues.size());
    for (uint32_t v = 0; v < g.numVariables(); ++v) {
        largestDomain = std::max(largestDomain, g.domainSizes[v]);
        largestDegree = std::max(largestDegree, g.degree(v));
    }
    const std::string single = describeLoopyGpuPlan(planLoopyGpu(g, 1));
    const std::string batch = describeLoopyGpuPlan(planLoopyGpu(g, 2000));
    auto whole = [](const std::string &key, const std::string &label, uint64_t n,
                    const std::string &suffix = "") {
        return Fact{key, label, std::to_string(n), std::to_string(n) + suffix};
    };
    RouteStats out{"lbp", "loopy belief propagation", false, {}};
    out.facts = {
        whole("variables", "variables", g.numVariables()),
        whole("factors", "factors", g.factors.size(), g.pairwise() ? " (pairwise)" : ""),
        whole("edges", "edges (messages)", g.numEdges()),
        whole("message_entries", "message entries", g.messageEntries()),
        whole("largest_factor_entries", "largest factor", largestFactor, " entries"),
        whole("largest_domain", "largest domain", largestDomain),
        whole("largest_degree", "largest degree", largestDegree),
        {"pairwise", "", g.pairwise() ? "true" : "false", ""},
        {"gpu_design_1", "GPU design, 1 instance", jsonString(single), single},
        {"gpu_design_2000", "GPU design, 2000 instances", jsonString(batch), batch},
    };
    return out;
}

Result<RouteStats> routeStats(ModelFile &model, std::string_view route, const OrderOptions &order) {
    if (route == "jt")
        return junctionTreeStats(model, order);
    if (route == "lbp")
        return loopyStats(model);
    return eliminationStats(model, order);
}

} // namespace zbddc::pipeline
