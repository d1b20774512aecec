#include "runtime/junction_tree/junction_tree_per_case.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "runtime/junction_tree/junction_tree_answer.h"
#include "support/threads.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <thread>

namespace zbddc {

namespace {

// What every case of a run shares.
struct PerCaseNetwork {
    const FactorModel &model;
    const JunctionTree &tree;
    std::vector<std::vector<uint32_t>> families;
    std::vector<uint8_t> rowsSumToOne;
    JunctionTreeLowering::Belief belief;
    CaseTree caseTree;
};

// `own`: the case's own tree (caseJunctionTree), or nullopt for the network's.
Result<TaskResult> answerOneCase(const PerCaseNetwork &n, Task task, const Evidence &ev,
                                 const std::optional<JunctionTree> &own) {
    if (evidenceContradicted(ev))
        return contradictedEvidenceAnswer(task);
    const JunctionTree &tree = own ? *own : n.tree;
    JunctionTreeLowering lowering;
    lowering.maxProduct = task == Task::Mpe;
    lowering.marginals = task == Task::Mar;
    lowering.belief = n.belief;
    lowering.caseStates = ev.states; // kNone is UINT32_MAX: unobserved
    lowering.rowsSumToOne = n.rowsSumToOne;
    auto lowered = lowerJunctionTree(n.model, tree, lowering);
    if (!lowered)
        return lowered.error();
    auto tables = runTensorProgramCpu(lowered->program, {.threads = 1, .verified = true});
    if (!tables)
        return tables.error();
    return junctionTreeAnswer(task, tree, *lowered, *tables, 0, ev);
}

} // namespace

std::vector<Result<TaskResult>>
runJunctionTreePerCase(const FactorModel &model, const JunctionTree &tree, Task task,
                       std::span<const Evidence> cases, unsigned threads,
                       JunctionTreeLowering::Belief belief, CaseTree caseTree) {
    static_assert(kNone == UINT32_MAX, "caseStates reads kNone as unobserved");
    threads = threadsOrCores(threads);
    const PerCaseNetwork shared{model,  tree,    model.sortedScopes(), factorRowsSumToOne(model),
                                belief, caseTree};
    // First each case's tree and its clique entries, then the cases largest first: their times
    // are heavy-tailed (munin1: median 9 ms, slowest 190), and a large case started last would
    // hold the whole run up (longest processing time first, Graham 1969).
    const size_t n = cases.size();
    std::vector<Result<std::optional<JunctionTree>>> own(n, std::optional<JunctionTree>());
    std::vector<double> entries(n, 0);
    std::atomic<size_t> next{0};
    const size_t workers = std::min<size_t>(threads, n);
    onThreads(workers, [&](size_t) {
        for (size_t i; (i = next.fetch_add(1)) < n;) {
            if (evidenceContradicted(cases[i]))
                continue;
            own[i] = caseJunctionTree(tree, shared.families, cases[i].states, caseTree);
            if (own[i])
                entries[i] =
                    unobservedCliqueEntries(own[i]->has_value() ? **own[i] : tree, cases[i].states);
        }
    });
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return entries[a] > entries[b]; });
    std::vector<std::optional<Result<TaskResult>>> answers(n);
    next = 0;
    onThreads(workers, [&](size_t) {
        for (size_t k; (k = next.fetch_add(1)) < n;) {
            const size_t i = order[k];
            answers[i] = own[i] ? answerOneCase(shared, task, cases[i], *own[i])
                                : Result<TaskResult>(own[i].error());
        }
    });
    std::vector<Result<TaskResult>> results;
    results.reserve(cases.size());
    for (auto &a : answers)
        results.push_back(std::move(*a));
    return results;
}

std::vector<Result<TaskResult>>
runJunctionTreePerCase(const BayesNet &net, const JunctionTree &tree, Task task,
                       std::span<const Evidence> cases, unsigned threads,
                       JunctionTreeLowering::Belief belief, CaseTree caseTree) {
    return runJunctionTreePerCase(factorModelOf(net), tree, task, cases, threads, belief, caseTree);
}

} // namespace zbddc
