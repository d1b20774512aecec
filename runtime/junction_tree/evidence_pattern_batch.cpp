#include "runtime/junction_tree/evidence_pattern_batch.h"

#include "ir/table_over.h"
#include "runtime/junction_tree/junction_tree_answer.h"
#include "support/threads.h"
#include "support/timer.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>

namespace zbddc {

namespace {

// The pattern of a case: the variables it observes, ascending.
std::vector<uint32_t> patternOf(const Evidence &ev) {
    std::vector<uint32_t> observed;
    for (uint32_t v = 0; v < ev.states.size(); ++v)
        if (ev.states[v] != kNone)
            observed.push_back(v);
    return observed;
}

// Lowers one pattern's program (its first case's states).
Result<EvidencePatternRun::Group> lowerGroup(const FactorModel &model, const JunctionTree &tree,
                                             const std::vector<std::vector<uint32_t>> &families,
                                             const std::vector<uint8_t> &rowsSumToOne, Task task,
                                             const Evidence &first, CaseTree caseTree) {
    EvidencePatternRun::Group g;
    auto own = caseJunctionTree(tree, families, first.states, caseTree);
    if (!own)
        return own.error();
    g.own = std::move(*own);
    JunctionTreeLowering lowering;
    lowering.maxProduct = task == Task::Mpe;
    lowering.marginals = task == Task::Mar;
    lowering.caseStates = first.states; // kNone is UINT32_MAX: unobserved
    lowering.rowsSumToOne = rowsSumToOne;
    auto lowered = lowerJunctionTree(model, g.own ? *g.own : tree, lowering);
    if (!lowered)
        return lowered.error();
    g.lowered = std::move(*lowered);
    return g;
}

// Numbers a group's tables: input tables are shared by the group's cases (the factors' CPTs, the
// first tables of `merged`, by every group; its constants added here), the others each case's.
void addSharedTables(EvidencePatternRun::Group &g, TensorProgram &merged) {
    const std::vector<Table> &tables = g.lowered.program.tables;
    g.local.assign(tables.size(), kNoTable);
    g.sharedId.assign(tables.size(), kNoTable);
    for (uint32_t f = 0; f < g.lowered.factorTable.size(); ++f)
        g.sharedId[g.lowered.factorTable[f]] = f; // the merged program's first tables
    for (uint32_t t = 0; t < tables.size(); ++t) {
        if (g.sharedId[t] != kNoTable)
            continue;
        if (tables[t].input) { // a constant of the lowering (its scalar 1)
            g.sharedId[t] = static_cast<uint32_t>(merged.tables.size());
            merged.tables.push_back(tables[t]);
        } else {
            g.local[t] = g.perCase++;
        }
    }
}

// Appends case `ev`'s copy of its group's tables and ops to `merged`: its first table's id.
uint32_t appendCase(const EvidencePatternRun::Group &g, const Evidence &ev, TensorProgram &merged) {
    const uint32_t base = static_cast<uint32_t>(merged.tables.size());
    const TensorProgram &p = g.lowered.program;
    auto id = [&](uint32_t t) { return g.local[t] != kNoTable ? base + g.local[t] : g.sharedId[t]; };
    for (uint32_t t = 0; t < p.tables.size(); ++t)
        if (g.local[t] != kNoTable)
            merged.tables.push_back(p.tables[t]);
    for (const TensorOp &op : p.ops) {
        TensorOp copy = op;
        for (uint32_t &in : copy.inputs)
            in = id(in);
        copy.output = id(op.output);
        if (op.kind == TensorOpKind::SliceEvidence)
            for (size_t k = 0; k < op.vars.size(); ++k)
                copy.values[k] = ev.states[op.vars[k]];
        merged.ops.push_back(std::move(copy));
    }
    for (uint32_t t : p.fetch)
        merged.fetch.push_back(id(t));
    return base;
}

} // namespace

std::string BatchedPlanChoice::note() const {
    char text[320];
    std::snprintf(text, sizeof text,
                  "%s (estimated %.3g us per case against %.3g: %.3g entries walked per case "
                  "against %.3g, %zu evidence patterns, %.3g us of host lowering per pattern)",
                  patterns ? "a tree per evidence pattern, CPTs sliced per case"
                           : "the full-table batched tree, evidence as indicators",
                  (patterns ? patternUs : fullUs), (patterns ? fullUs : patternUs),
                  patterns ? patternEntriesPerCase : fullEntriesPerCase,
                  patterns ? fullEntriesPerCase : patternEntriesPerCase, distinctPatterns,
                  lowerUsPerPattern);
    return text;
}

BatchedPlanChoice chooseBatchedPlan(const FactorModel &model, const JunctionTree &tree,
                                    const std::vector<std::vector<uint32_t>> &families,
                                    const std::vector<uint8_t> &rowsSumToOne, Task task,
                                    std::span<const Evidence> cases, CaseTree caseTree,
                                    const PlanCosts &costs) {
    BatchedPlanChoice c;
    if (cases.empty())
        return c;
    JunctionTreeLowering full;
    full.maxProduct = task == Task::Mpe;
    full.marginals = task == Task::Mar;
    for (uint32_t v = 0; v < tree.numVariables(); ++v)
        full.observed.push_back(v);
    auto lowered = lowerJunctionTree(model, tree, full);
    if (!lowered)
        return c; // the full-table route reports it
    c.fullEntriesPerCase = tensorProgramWork(lowered->program);
    std::map<std::vector<uint32_t>, bool> seen;
    for (const Evidence &ev : cases)
        seen.emplace(patternOf(ev), true);
    c.distinctPatterns = seen.size();
    c.fullUs = c.fullEntriesPerCase * costs.nsPerEntry * 1e-3;
    // A pattern program sends at least one message per clique: where those ops alone cost more
    // than the full tables, no pilot is lowered (small networks, a case or a few per call).
    if (c.fullUs <= costs.nsPerOp * tree.numCliques() * 1e-3) {
        c.patternUs = costs.nsPerOp * tree.numCliques() * 1e-3;
        return c;
    }
    // The pilot: the first cases' programs, lowered on the host's threads.
    const auto pilot = cases.first(std::min<size_t>(cases.size(), costs.pilotCases));
    const unsigned threads = std::max(1u, costs.hostThreads);
    const SteadyTime start = std::chrono::steady_clock::now();
    const EvidencePatternRun run = buildEvidencePatternRun(model, tree, families, rowsSumToOne,
                                                           task, pilot, caseTree, threads);
    const size_t patterns = std::max<size_t>(run.groups.size(), 1);
    c.lowerUsPerPattern = msSince(start) * 1e3 *
                          static_cast<double>(std::min<size_t>(threads, patterns)) /
                          static_cast<double>(patterns);
    const auto k = static_cast<double>(pilot.size()), n = static_cast<double>(cases.size());
    c.patternEntriesPerCase = tensorProgramWork(run.program) / k;
    const double opsPerCase = static_cast<double>(run.program.ops.size()) / k;
    c.patternUs = (c.patternEntriesPerCase * costs.nsPerEntry + opsPerCase * costs.nsPerOp) * 1e-3 +
                  c.lowerUsPerPattern * static_cast<double>(c.distinctPatterns) / n /
                      std::max(1u, costs.hostThreads);
    c.patterns = c.patternUs < c.fullUs;
    return c;
}

EvidencePatternRun buildEvidencePatternRun(const FactorModel &model, const JunctionTree &tree,
                                           const std::vector<std::vector<uint32_t>> &families,
                                           const std::vector<uint8_t> &rowsSumToOne, Task task,
                                           std::span<const Evidence> cases, CaseTree caseTree,
                                           unsigned threads) {
    EvidencePatternRun run;
    TensorProgram &p = run.program;
    p.semiring = task == Task::Mpe ? Semiring::MaxProduct : Semiring::SumProduct;
    p.domainSizes = tree.domainSizes;
    p.domainSizes.push_back(1); // the case variable of the per-case lowering: one case
    for (const Factor &f : model.factors) { // the CPTs, shared by every case
        Table t = tableOver(f.scope, tree.domainSizes);
        t.input = true;
        t.values = f.table;
        p.tables.push_back(std::move(t));
    }
    const size_t n = cases.size();
    run.groupOf.assign(n, kNoTable);
    run.base.assign(n, kNoTable);
    run.failed.assign(n, std::nullopt);
    // The patterns first, each one's first case, then their trees and lowerings on all threads.
    std::map<std::vector<uint32_t>, uint32_t> groupOfPattern;
    std::vector<size_t> firstCase;
    for (size_t i = 0; i < n; ++i) {
        const Evidence &ev = cases[i];
        if (evidenceContradicted(ev))
            continue;
        bool inDomain = ev.states.size() == tree.numVariables();
        for (uint32_t v = 0; inDomain && v < ev.states.size(); ++v)
            inDomain = ev.states[v] == kNone || ev.states[v] < tree.domainSizes[v];
        if (!inDomain) {
            run.failed[i] = error("the case's evidence does not match the model's variables");
            continue;
        }
        auto [it, added] =
            groupOfPattern.emplace(patternOf(ev), static_cast<uint32_t>(firstCase.size()));
        if (added)
            firstCase.push_back(i);
        run.groupOf[i] = it->second;
    }
    std::vector<std::optional<Result<EvidencePatternRun::Group>>> lowered(firstCase.size());
    std::atomic<size_t> next{0};
    onThreads(std::min<size_t>(threadsOrCores(threads), firstCase.size()), [&](size_t) {
        for (size_t g; (g = next.fetch_add(1)) < firstCase.size();)
            lowered[g] = lowerGroup(model, tree, families, rowsSumToOne, task,
                                    cases[firstCase[g]], caseTree);
    });
    for (auto &g : lowered) {
        if (*g)
            addSharedTables(**g, p);
        run.groups.push_back(*g ? std::move(**g) : EvidencePatternRun::Group{});
    }
    for (size_t i = 0; i < n; ++i) {
        if (run.groupOf[i] == kNoTable)
            continue;
        if (!*lowered[run.groupOf[i]]) {
            run.failed[i] = lowered[run.groupOf[i]]->error();
            run.groupOf[i] = kNoTable;
            continue;
        }
        run.base[i] = appendCase(run.groups[run.groupOf[i]], cases[i], p);
    }
    // MPE's traceback reads every table; PR and MAR what each case's lowering fetches.
    if (task == Task::Mpe)
        p.fetch.clear();
    std::sort(p.fetch.begin(), p.fetch.end());
    computeLevels(p);
    return run;
}

Result<TaskResult> evidencePatternAnswer(const EvidencePatternRun &run, const JunctionTree &tree,
                                         Task task, std::vector<std::vector<double>> &computed,
                                         size_t i, const Evidence &ev) {
    if (evidenceContradicted(ev))
        return contradictedEvidenceAnswer(task);
    if (run.failed[i])
        return *run.failed[i];
    const EvidencePatternRun::Group &g = run.groups[run.groupOf[i]];
    std::vector<std::vector<double>> mine(g.lowered.program.tables.size());
    for (uint32_t t = 0; t < mine.size(); ++t)
        if (g.local[t] != kNoTable)
            mine[t] = std::move(computed[run.base[i] + g.local[t]]);
    return junctionTreeAnswer(task, g.own ? *g.own : tree, g.lowered, mine, 0, ev);
}

} // namespace zbddc
