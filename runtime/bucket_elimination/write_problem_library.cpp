#include "runtime/bucket_elimination/write_problem_library.h"

#include "backends/tensor/so/problem_so.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/number_text.h"

#include <cmath>
#include <cstdio>

namespace zbddc {

Result<EliminationStats> writeProblemLibrary(const CostNetwork &network, const BeOptions &options,
                                             const std::string &path, bool emitC,
                                             const std::string &symbolPrefix) {
    std::vector<uint32_t> order = options.order;
    std::string heuristic =
        order.empty() ? std::string(orderHeuristicName(options.heuristic)) : "given";
    if (order.empty())
        order = greedyOrder(buildInteractionGraph(network.domainSizes, functionScopes(network)),
                            options.heuristic);
    auto st = eliminationStats(network, order, heuristic);
    if (!st)
        return st.error();
    if (st->order.totalMessageEntries > options.maxTotalEntries) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "bucket elimination needs about 10^%.1f table entries (induced width %u), "
                      "beyond the limit of 10^%.1f",
                      std::log10(st->order.totalMessageEntries), st->order.inducedWidth,
                      std::log10(options.maxTotalEntries));
        return error(msg);
    }
    auto program = buildBucketProgram(network, order);
    if (!program)
        return program.error();
    ProblemInfo info;
    info.name = network.name;
    info.variableNames = network.variableNames;
    info.integerCosts = network.integerCosts;
    info.upperBound = network.upperBound;
    info.facts = {{"heuristic", st->heuristic},
                  {"induced_width", std::to_string(st->order.inducedWidth)},
                  {"largest_table_entries", exactText(st->order.largestMessageEntries)},
                  {"total_table_entries", exactText(st->order.totalMessageEntries)},
                  {"buckets", std::to_string(st->buckets)},
                  {"levels", std::to_string(st->levels)}};
    if (emitC) {
        if (Status s = writeProblemSource(*program, info, path); !s)
            return s.error();
        return st;
    }
    ProblemSoOptions so;
    so.symbolPrefix = symbolPrefix;
    auto seconds = writeProblemSharedObject(*program, info, path, so);
    if (!seconds)
        return seconds.error();
    return st;
}

} // namespace zbddc
