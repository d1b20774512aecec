// `zbddc stats PROBLEM.wcsp|MARKOV.uai [--json] [--heuristic H | --order FILE]`: what bucket
// elimination will need — induced width, largest and total table sizes, buckets and levels —
// computed from the scopes and the order before any table is allocated (Bistaffa et al. 2016 §2.1,
// Alg. 2).
#include "pipeline/load_model.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"
#include "compiler/elimination/elimination_stats.h"
#include "compiler/frontends/wcsp/read_cost_network.h"

#include <iostream>

namespace zbddc::cli {

int statsCostNetworkCommand(const StatsOptions &o) {
    const OrderFlags &flags = o.eliminationOrder;
    if (flags.heuristic == "search" && flags.orderFile.empty()) {
        std::cerr << "zbddc: --heuristic search applies to --route jt only\n";
        return 2;
    }
    auto net = readCostNetworkFile(o.model);
    if (!net)
        return reportError(net.error());
    auto chosen = pipeline::chooseOrder(net->domainSizes, functionScopes(*net), flags, "min-fill");
    if (!chosen)
        return reportError(chosen.error());
    auto st = eliminationStats(*net, chosen->order, chosen->heuristic);
    if (!st)
        return reportError(errorAt(o.model, 0, st.error().message));
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
    if (o.json) {
        std::cout << "{\"model\":" << jsonString(o.model)
                  << ",\"route\":\"bucket-elimination\",\"heuristic\":"
                  << jsonString(st->heuristic);
        for (auto [name, value] : rows)
            std::cout << ",\"" << name << "\":" << jsonNumber(value);
        std::cout << "}\n";
    } else {
        std::cout << "route: bucket elimination\nheuristic: " << st->heuristic << "\n";
        for (auto [name, value] : rows)
            std::cout << name << ": " << jsonNumber(value) << "\n";
    }
    return 0;
}

} // namespace zbddc::cli
