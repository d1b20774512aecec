#include "pipeline/mpe_tie_break.h"

#include "compiler/elimination/elimination_order.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "ir/mpe_tie.h"
#include "runtime/junction_tree/factor_model_route.h"
#include "support/threads.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace zbddc::pipeline {

MpeTieBreak::MpeTieBreak(FactorModel model, JunctionTree tree,
                         std::vector<std::vector<uint32_t>> families)
    : model_(std::move(model)), tree_(std::move(tree)), families_(std::move(families)),
      rowsSumToOne_(factorRowsSumToOne(model_)),
      key_(lowestMpeKey(tree_, families_, CaseTree::ByCost)) {}

Result<std::unique_ptr<MpeTieBreak>> MpeTieBreak::build(FactorModel model, double memoryBytes) {
    std::vector<std::vector<uint32_t>> scopes = model.sortedScopes();
    const std::vector<uint32_t> order =
        greedyOrder(buildInteractionGraph(model.domainSizes, scopes), OrderHeuristic::MinFill);
    auto tree = buildJunctionTree(model.domainSizes, scopes, order);
    if (!tree)
        return tree.error();
    if (memoryBytes > 0)
        if (auto why = junctionTreeTooLarge(junctionTreeStats(*tree), memoryBytes))
            return error(*why);
    return std::unique_ptr<MpeTieBreak>(
        new MpeTieBreak(std::move(model), std::move(*tree), std::move(scopes)));
}

Result<LowestMpe> MpeTieBreak::canonical(const Evidence &evidence) const {
    if (evidence.states.size() != model_.numVariables())
        return error("the evidence names " + std::to_string(evidence.states.size()) +
                     " variables, the model has " + std::to_string(model_.numVariables()));
    return lowestMpe(model_, tree_, families_, rowsSumToOne_, evidence);
}

bool MpeTieBreak::complete(const std::vector<uint32_t> &assignment) const {
    if (assignment.size() != model_.numVariables())
        return false;
    for (uint32_t v = 0; v < assignment.size(); ++v)
        if (assignment[v] >= model_.domainSizes[v])
            return false;
    return true;
}

void MpeTieBreak::apply(std::span<const Evidence> cases, std::vector<Result<TaskResult>> &results,
                        std::vector<std::string> &notes, unsigned threads) const {
    std::vector<std::string> why(results.size());
    std::atomic<size_t> next{0};
    onThreads(std::min<size_t>(threadsOrCores(threads), results.size()), [&](size_t) {
        for (size_t i; (i = next.fetch_add(1)) < results.size();) {
            Result<TaskResult> &r = results[i];
            if (!mayHoldTie(r) || r->mpeLowestKey == key_)
                continue;
            auto rule = canonical(cases[i]);
            if (!rule) {
                why[i] = rule.error().message;
                continue;
            }
            if (rule->assignment == r->assignment)
                continue;
            // The rule's assignment must reach the route's: where it does not (a factor that
            // underflowed in exp(-cost)), the route's stays.
            const double mine = logWeight(model_, rule->assignment);
            const bool reaches =
                !std::isinf(mine) &&
                (!complete(r->assignment) ||
                 reachesWithinTie(Semiring::MaxProduct,
                                  std::exp(mine - logWeight(model_, r->assignment)), 1.0));
            if (!reaches) {
                why[i] = "the tie rule's assignment falls short of the route's optimum";
                continue;
            }
            r->assignment = std::move(rule->assignment);
        }
    });
    for (size_t i = 0; i < why.size(); ++i)
        if (!why[i].empty()) {
            notes.push_back("MPE ties left as the route broke them (case " + std::to_string(i + 1) +
                            " and perhaps others): " + why[i]);
            break;
        }
}

} // namespace zbddc::pipeline
