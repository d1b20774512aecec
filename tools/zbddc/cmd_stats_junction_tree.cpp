// `zbddc stats NET --route jt [--json] [--heuristic H|search | --order FILE] [--search-ms MS]`:
// the junction tree a network compiles into — cliques, the largest clique, total clique and
// separator entries, depth and message levels — built and measured before any table is
// allocated (compiler/junction_tree/build_junction_tree.h).
#include "compiler/elimination/elimination_stats.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "support/timer.h"
#include "pipeline/load_model.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <cmath>
#include <iostream>

namespace zbddc::cli {

namespace {

// What the junction tree is built from: the variables' domains and the factors' scopes (a
// network's families, or a cost network's function scopes).
struct Factors {
    std::vector<uint32_t> domains;
    std::vector<std::vector<uint32_t>> scopes;
};

Result<Factors> readFactors(const StatsOptions &o) {
    if (isCostNetworkFile(o.model)) {
        auto net = readCostNetworkFile(o.model);
        if (!net)
            return net.error();
        return Factors{net->domainSizes, functionScopes(*net)};
    }
    ReadOptions read;
    read.strict = o.modelOptions.strict;
    auto net = readNetworkFile(o.model, read);
    if (!net)
        return net.error();
    printWarnings(net->warnings);
    return Factors{networkDomainSizes(*net), familyScopes(*net)};
}

double roundMs(double ms) {
    return std::round(ms * 1000) / 1000;
}

} // namespace

int statsJunctionTreeCommand(const StatsOptions &o) {
    if (!isNetworkFile(o.model) && !isCostNetworkFile(o.model)) {
        std::cerr << "zbddc: --route jt needs a network (.bif, .xmlbif, .net, .uai) or a .wcsp, "
                     "not '"
                  << o.model << "'\n";
        return 2;
    }
    auto factors = readFactors(o);
    if (!factors)
        return reportError(factors.error());

    pipeline::OrderOptions asked = o.eliminationOrder;
    asked.searchMs = o.searchMs;
    auto chosen = pipeline::chooseOrder(factors->domains, factors->scopes, asked, "search");
    if (!chosen)
        return reportError(chosen.error());
    const std::vector<uint32_t> &order = chosen->order;
    const std::string &heuristic = chosen->heuristic;
    const OrderSearchResult &search = chosen->search;
    const OrderSearchOptions &searchOptions = chosen->searchOptions;
    const double orderMs = chosen->timeMs;
    const SteadyTime t1 = std::chrono::steady_clock::now();
    auto jt = buildJunctionTree(factors->domains, factors->scopes, order);
    if (!jt)
        return reportError(errorAt(o.model, 0, jt.error().message));
    const double buildMs = msSince(t1);
    const JunctionTreeStats st = junctionTreeStats(*jt);

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
        {"order_ms", roundMs(orderMs)},
        {"build_ms", roundMs(buildMs)},
        {"time_ms", roundMs(orderMs + buildMs)},
    };
    const bool searched = heuristic == "search";
    const std::string best(orderHeuristicName(search.heuristic));
    const bool randomised = search.randomised(searchOptions);
    if (o.json) {
        std::cout << "{\"model\":" << jsonString(o.model)
                  << ",\"route\":\"junction-tree\",\"heuristic\":" << jsonString(heuristic);
        if (searched)
            std::cout << ",\"search_best\":" << jsonString(best)
                      << ",\"search_best_randomised\":" << (randomised ? "true" : "false")
                      << ",\"search_runs\":" << search.runs;
        for (auto [name, value] : rows)
            std::cout << ",\"" << name << "\":" << jsonNumber(value);
        std::cout << "}\n";
    } else {
        std::cout << "route: junction tree\nheuristic: " << heuristic;
        if (searched)
            std::cout << " (best: " << best << (randomised ? ", randomised" : "") << "; "
                      << search.runs << " runs)";
        std::cout << "\n";
        for (auto [name, value] : rows)
            std::cout << name << ": " << jsonNumber(value) << "\n";
    }
    return 0;
}

} // namespace zbddc::cli
