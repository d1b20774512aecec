#include "runtime/junction_tree/junction_tree_per_case.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "runtime/junction_tree/junction_tree_answer.h"
#include "runtime/junction_tree/lowest_mpe.h"
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
    const std::vector<std::vector<uint32_t>> &families;
    const std::vector<uint8_t> &rowsSumToOne;
    JunctionTreeLowering::Belief belief;
    CaseTree caseTree;
    uint64_t lowestKey; // lowestMpeKey of the network's tree
};

// `own`: the case's own tree (caseJunctionTree), or nullopt for the network's; `threads` run its
// program (the executor splits a level's ops and a large op's rows between them).
Result<TaskResult> answerOneCase(const PerCaseNetwork &n, Task task, const Evidence &ev,
                                 const std::optional<JunctionTree> &own, unsigned threads) {
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
    auto tables = runTensorProgramCpu(lowered->program, {.threads = threads, .verified = true});
    if (!tables)
        return tables.error();
    auto answer = junctionTreeAnswer(task, tree, *lowered, *tables, 0, ev);
    // A tie decided here as the tie rule would, where it propagates each case as this route does,
    // saves the rule a second propagation (pathfinder: nearly every case ties).
    if (answer && answer->mpeTied == true) {
        answer->assignment = lowestAssignment(*lowered, *tables, ev).assignment;
        answer->mpeLowestKey = n.lowestKey;
    }
    return answer;
}

} // namespace

std::vector<Result<TaskResult>>
runJunctionTreePerCase(const FactorModel &model, const JunctionTree &tree, Task task,
                       std::span<const Evidence> cases, unsigned threads,
                       JunctionTreeLowering::Belief belief, CaseTree caseTree, PerCaseMemo *memo,
                       unsigned concurrentCases) {
    static_assert(kNone == UINT32_MAX, "caseStates reads kNone as unobserved");
    threads = threadsOrCores(threads);
    PerCaseMemo local;
    PerCaseMemo &m = memo ? *memo : local;
    if (!m.ready) {
        m.families = model.sortedScopes();
        m.rowsSumToOne = factorRowsSumToOne(model);
        m.ready = true;
    }
    if (m.caseTree != caseTree) {
        m.trees.clear();
        m.lowestKey = 0;
    }
    m.caseTree = caseTree;
    if (task == Task::Mpe && !m.lowestKey)
        m.lowestKey = lowestMpeKey(tree, m.families, caseTree);
    const PerCaseNetwork shared{model,  tree,     m.families, m.rowsSumToOne,
                                belief, caseTree, m.lowestKey};
    // First each case's tree (the last run's, where it answered the same evidence) and its
    // clique entries, then the cases largest first: their times are heavy-tailed (munin1: median
    // 9 ms, slowest 190), and a large case started last would hold the whole run up (longest
    // processing time first, Graham 1969).
    const size_t n = cases.size();
    using CaseTreeResult = PerCaseMemo::CaseTreeResult;
    const CaseTreeResult networkTree =
        std::make_shared<const Result<std::optional<JunctionTree>>>(std::optional<JunctionTree>());
    std::vector<CaseTreeResult> own(n, networkTree);
    std::vector<double> entries(n, 0);
    std::atomic<size_t> next{0};
    const size_t workers =
        std::min<size_t>({threads, n, concurrentCases ? concurrentCases : threads});
    onThreads(workers, [&](size_t) {
        for (size_t i; (i = next.fetch_add(1)) < n;) {
            if (evidenceContradicted(cases[i]))
                continue;
            if (auto it = m.trees.find(cases[i].states); it != m.trees.end())
                own[i] = it->second;
            else
                own[i] = std::make_shared<const Result<std::optional<JunctionTree>>>(
                    caseJunctionTree(tree, shared.families, cases[i].states, caseTree));
            const Result<std::optional<JunctionTree>> &t = *own[i];
            if (t)
                entries[i] = unobservedCliqueEntries(t->has_value() ? **t : tree, cases[i].states);
        }
    });
    if (n <= PerCaseMemo::kKeptCaseTrees) {
        m.trees.clear();
        for (size_t i = 0; i < n; ++i)
            if (!evidenceContradicted(cases[i]))
                m.trees.emplace(cases[i].states, own[i]);
    }
    std::vector<size_t> order(n);
    for (size_t i = 0; i < n; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return entries[a] > entries[b]; });
    std::vector<std::optional<Result<TaskResult>>> answers(n);
    // Fewer cases at a time than threads: each case's program gets the threads no other case
    // takes (one case of a UAI instance: every core on its tables).
    const unsigned caseThreads =
        static_cast<unsigned>(std::max<size_t>(1, threads / std::max<size_t>(workers, 1)));
    next = 0;
    onThreads(workers, [&](size_t) {
        for (size_t k; (k = next.fetch_add(1)) < n;) {
            const size_t i = order[k];
            const Result<std::optional<JunctionTree>> &t = *own[i];
            answers[i] =
                t ? answerOneCase(shared, task, cases[i], *t, caseThreads)
                  : Result<TaskResult>(t.error());
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
