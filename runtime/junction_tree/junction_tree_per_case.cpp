#include "runtime/junction_tree/junction_tree_per_case.h"

#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/junction_tree/moral_graph.h"
#include "runtime/junction_tree/junction_tree_answer.h"
#include "support/threads.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <optional>
#include <thread>

namespace zbddc {

namespace {

// A case observing a variable in two states: P(e) = 0 without running anything.
Result<TaskResult> contradictedCase(Task task) {
    if (task == Task::Mar)
        return error("MAR is undefined: the evidence has probability 0");
    if (task == Task::Mpe)
        return error("MPE is undefined: the evidence has probability 0");
    TaskResult r;
    r.task = task;
    r.value = 0;
    r.log10 = -std::numeric_limits<double>::infinity();
    return r;
}

// What every case of a run shares.
struct PerCaseNetwork {
    const BayesNet &net;
    const JunctionTree &tree;
    std::vector<std::vector<uint32_t>> families;
    std::vector<uint8_t> rowsSumToOne;
    JunctionTreeLowering::Belief belief;
    CaseTree caseTree;
};

Result<TaskResult> answerOneCase(const PerCaseNetwork &n, Task task, const Evidence &ev) {
    if (std::find(ev.states.begin(), ev.states.end(), kContradicted) != ev.states.end())
        return contradictedCase(task);
    auto own = caseJunctionTree(n.tree, n.families, ev.states, n.caseTree);
    if (!own)
        return own.error();
    const JunctionTree &tree = *own ? **own : n.tree;
    JunctionTreeLowering lowering;
    lowering.maxProduct = task == Task::Mpe;
    lowering.marginals = task == Task::Mar;
    lowering.belief = n.belief;
    lowering.caseStates = ev.states; // kNone is UINT32_MAX: unobserved
    lowering.rowsSumToOne = n.rowsSumToOne;
    auto lowered = lowerJunctionTree(n.net, tree, lowering);
    if (!lowered)
        return lowered.error();
    auto tables = runTensorProgramCpu(lowered->program, {.threads = 1});
    if (!tables)
        return tables.error();
    return junctionTreeAnswer(task, tree, *lowered, *tables, 0, ev);
}

} // namespace

std::vector<Result<TaskResult>> runJunctionTreePerCase(const BayesNet &net,
                                                       const JunctionTree &tree, Task task,
                                                       std::span<const Evidence> cases,
                                                       unsigned threads,
                                                       JunctionTreeLowering::Belief belief,
                                                       CaseTree caseTree) {
    static_assert(kNone == UINT32_MAX, "caseStates reads kNone as unobserved");
    threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    const PerCaseNetwork shared{net, tree, familyScopes(net), cptRowsSumToOne(net), belief,
                                caseTree};
    std::vector<std::optional<Result<TaskResult>>> answers(cases.size());
    std::atomic<size_t> next{0};
    onThreads(std::min<size_t>(threads, cases.size()), [&](size_t) {
        for (size_t i; (i = next.fetch_add(1)) < cases.size();)
            answers[i] = answerOneCase(shared, task, cases[i]);
    });
    std::vector<Result<TaskResult>> results;
    results.reserve(cases.size());
    for (auto &a : answers)
        results.push_back(std::move(*a));
    return results;
}

} // namespace zbddc
