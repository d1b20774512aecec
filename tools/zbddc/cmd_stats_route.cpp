// `zbddc stats MODEL --route jt|lbp` and `zbddc stats PROBLEM` (a cost network): the model's
// shape on that route (pipeline/route_stats.h), as lines or one JSON object.
#include "pipeline/route_stats.h"
#include "support/json.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"

#include <iostream>

namespace zbddc::cli {

int statsRouteCommand(const StatsOptions &o) {
    using pipeline::ModelKind;
    auto kind = pipeline::modelKindOf(o.model);
    if (!kind)
        return reportError(kind.error());
    if (o.route == "jt" && *kind != ModelKind::Network && *kind != ModelKind::CostNetwork) {
        std::cerr << "zbddc: --route jt needs a network (.bif, .xmlbif, .net, .uai) or a .wcsp, "
                     "not '" << o.model << "'\n";
        return 2;
    }
    if (o.route.empty() && o.eliminationOrder.heuristic == "search" &&
        o.eliminationOrder.orderFile.empty()) {
        std::cerr << "zbddc: --heuristic search applies to --route jt only\n";
        return 2;
    }
    auto model = pipeline::readModel(o.model, o.modelOptions);
    if (!model)
        return reportError(model.error());
    printWarnings(model->warnings);
    pipeline::OrderOptions order = o.eliminationOrder;
    order.searchMs = o.searchMs;
    auto stats = pipeline::routeStats(*model, o.route, order);
    if (!stats)
        return reportError(stats.error());
    if (!o.json) {
        std::cout << "route: " << stats->title << "\n";
        for (const pipeline::Fact &f : stats->facts)
            if (!f.label.empty())
                std::cout << f.label << ": " << f.text << "\n";
        return 0;
    }
    std::cout << "{" << (stats->namesModel ? "\"model\":" + jsonString(o.model) + "," : "")
              << "\"route\":" << jsonString(stats->route);
    for (const pipeline::Fact &f : stats->facts)
        if (!f.key.empty())
            std::cout << ",\"" << f.key << "\":" << f.json;
    std::cout << "}\n";
    return 0;
}

} // namespace zbddc::cli
