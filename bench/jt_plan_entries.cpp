// Entries walked per case by the batched junction tree's two plans, counted on the CPU without a
// GPU (tensorProgramWork over the lowered programs): the full-table tree with evidence as
// indicator tables, and the tree per evidence pattern with each case's CPTs sliced
// (evidence_pattern_batch.h), for MAR and MPE; MPE's traceback per case (the joint values each
// VALUE-phase step enumerates, the largest step apart); the plan the cost count picks; and the
// CPU executor's wall time of each plan over the same cases (--executor cuda: the batched plans on
// the GPU, their first run, which compiles, and a second; the per-case route on the CPU beside).
//
// --mpe-agree: MPE's assignments of the per-case route against the full-table tree (the CPU
// executor and the reference interpreter) and the pattern plan, cases that differ counted.
//
//   jt_plan_entries [--cases N] [--observed F] [--time] [--executor cpu|cuda] [--mpe-agree]
//                   [--task mar|mpe] NET.bif...
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/junction_tree/evidence_pattern_batch.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/sample_evidence.h"
#include "support/timer.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace zbddc;

namespace {

// Joint values the VALUE phase enumerates per case: per reduction, its eliminated variables'.
std::pair<double, double> tracebackWork(const TensorProgram &p, uint32_t batchVariable) {
    double total = 0, largest = 0;
    for (const TensorOp &op : p.ops) {
        if (op.kind != TensorOpKind::Marginalize && op.kind != TensorOpKind::EliminateBucket)
            continue;
        double e = 1;
        for (uint32_t v : op.vars)
            if (v != batchVariable)
                e *= p.domainSizes[v];
        total += e;
        largest = std::max(largest, e);
    }
    return {total, largest};
}

double msOf(JunctionTreeModel &m, Task task, const std::vector<Evidence> &cases) {
    const SteadyTime start = std::chrono::steady_clock::now();
    const auto r = m.run(task, cases);
    for (const auto &a : r)
        if (!a) {
            std::fprintf(stderr, "failed: %s\n", a.error().message.c_str());
            break;
        }
    return msSince(start);
}

} // namespace

int main(int argc, char **argv) {
    size_t n = 200;
    double observed = 0.2;
    bool time = false, agree = false;
    std::string executor = "cpu"; // the batched plans' in --time
    std::vector<Task> tasks = {Task::Mar, Task::Mpe};
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--cases") && i + 1 < argc)
            n = std::stoul(argv[++i]);
        else if (!std::strcmp(argv[i], "--observed") && i + 1 < argc)
            observed = std::stod(argv[++i]);
        else if (!std::strcmp(argv[i], "--time"))
            time = true;
        else if (!std::strcmp(argv[i], "--executor") && i + 1 < argc)
            executor = argv[++i];
        else if (!std::strcmp(argv[i], "--mpe-agree"))
            agree = true;
        else if (!std::strcmp(argv[i], "--task") && i + 1 < argc)
            tasks = {std::strcmp(argv[++i], "mpe") ? Task::Mar : Task::Mpe};
        else
            files.push_back(argv[i]);
    }
    std::printf("%-12s %5s %12s %12s %12s %12s %10s %12s %12s %8s\n", "network", "task", "full/case",
                "pattern/case", "us full", "us pattern", "patterns", "trace full", "trace patt",
                "choice");
    for (const std::string &file : files) {
        auto net = readNetworkFile(file);
        if (!net) {
            std::fprintf(stderr, "%s\n", net.error().message.c_str());
            return 1;
        }
        auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
        if (!tree) {
            std::fprintf(stderr, "%s\n", tree.error().message.c_str());
            return 1;
        }
        const FactorModel model = factorModelOf(*net);
        const auto families = model.sortedScopes();
        const auto rows = factorRowsSumToOne(model);
        const std::vector<Evidence> cases = sampleEvidence(*net, n, observed, 1);
        std::string name = file.substr(file.find_last_of('/') + 1);
        for (Task task : tasks) {
            PlanCosts costs = kGpuPlanCosts;
            costs.hostThreads = 16; // the H100 host's cores
            const BatchedPlanChoice choice = chooseBatchedPlan(model, *tree, families, rows, task,
                                                               cases, CaseTree::ByCost, costs);
            JunctionTreeLowering full;
            full.maxProduct = task == Task::Mpe;
            full.marginals = task == Task::Mar;
            for (uint32_t v = 0; v < tree->numVariables(); ++v)
                full.observed.push_back(v);
            auto lowered = lowerJunctionTree(model, *tree, full);
            if (!lowered)
                return 1;
            const SteadyTime built = std::chrono::steady_clock::now();
            const EvidencePatternRun run =
                buildEvidencePatternRun(model, *tree, families, rows, task, cases, CaseTree::ByCost);
            const double buildUs = msSince(built) * 1e3 / static_cast<double>(cases.size());
            double traceP = 0;
            for (size_t i = 0; i < cases.size(); ++i)
                if (run.groupOf[i] != kNoTable) {
                    const auto &g = run.groups[run.groupOf[i]];
                    traceP += tracebackWork(g.lowered.program, g.lowered.batchVariable).first;
                }
            const auto traceF = tracebackWork(lowered->program, lowered->batchVariable);
            std::printf("%-12s %5s %12.4g %12.4g %12.4g %12.4g %10zu %12.4g %12.4g %8s\n",
                        name.c_str(), task == Task::Mar ? "mar" : "mpe",
                        tensorProgramWork(lowered->program),
                        tensorProgramWork(run.program) / static_cast<double>(cases.size()),
                        choice.fullUs, choice.patternUs,
                        choice.distinctPatterns, task == Task::Mpe ? traceF.first : 0.0,
                        task == Task::Mpe ? traceP / static_cast<double>(cases.size()) : 0.0,
                        choice.patterns ? "pattern" : "full");
            std::printf("%-12s %5s pattern program built in %.1f us per case (%zu patterns), "
                        "%.1f ops per case against %zu for the full tree\n",
                        name.c_str(), task == Task::Mar ? "mar" : "mpe", buildUs,
                        run.groups.size(),
                        static_cast<double>(run.program.ops.size()) /
                            static_cast<double>(cases.size()),
                        lowered->program.ops.size());
            std::printf("%-12s %5s GPU estimate (16 host threads): %s\n", name.c_str(),
                        task == Task::Mar ? "mar" : "mpe", choice.note().c_str());
            if (task == Task::Mpe)
                std::printf("%-12s largest full-tree traceback step: %.4g joint values\n",
                            name.c_str(), traceF.second);
            if (agree && task == Task::Mpe) {
                JunctionTreeOptions o;
                o.executor = "cpu";
                o.traceback = JunctionTreeOptions::Traceback::OnHost;
                JunctionTreeModel perCase(*net, *tree, o);
                o.batchedPlan = JunctionTreeOptions::BatchedPlan::FullTables;
                JunctionTreeModel fullModel(*net, *tree, o);
                o.executor = "reference";
                JunctionTreeModel reference(*net, *tree, o);
                o.executor = "cpu";
                o.batchedPlan = JunctionTreeOptions::BatchedPlan::EvidencePatterns;
                JunctionTreeModel patternModel(*net, *tree, o);
                const auto a = perCase.run(task, cases), b = fullModel.run(task, cases),
                           c = patternModel.run(task, cases), d = reference.run(task, cases);
                size_t fullDiff = 0, patternDiff = 0, referenceDiff = 0;
                for (size_t i = 0; i < cases.size(); ++i) {
                    if (!a[i] || !b[i] || !c[i] || !d[i])
                        continue;
                    fullDiff += a[i]->assignment != b[i]->assignment;
                    patternDiff += a[i]->assignment != c[i]->assignment;
                    referenceDiff += b[i]->assignment != d[i]->assignment;
                }
                std::printf("%-12s mpe assignments unlike the per-case route's: full-table %zu, "
                            "patterns %zu of %zu; full-table cpu unlike reference: %zu\n",
                            name.c_str(), fullDiff, patternDiff, cases.size(), referenceDiff);
            }
            if (!time)
                continue;
            JunctionTreeOptions o;
            o.executor = executor;
            o.batchedPlan = JunctionTreeOptions::BatchedPlan::FullTables;
            o.traceback = JunctionTreeOptions::Traceback::OnHost;
            JunctionTreeModel fullModel(*net, *tree, o);
            o.batchedPlan = JunctionTreeOptions::BatchedPlan::EvidencePatterns;
            JunctionTreeModel patternModel(*net, *tree, o);
            o.executor = "cpu";
            o.batchedPlan = JunctionTreeOptions::BatchedPlan::PerCase;
            JunctionTreeModel perCase(*net, *tree, o);
            const double perN = 1e3 / static_cast<double>(cases.size());
            const char *taskName = task == Task::Mar ? "mar" : "mpe";
            if (executor == "cpu") {
                std::printf("%-12s %5s cpu us/case: full-table %.1f, patterns %.1f, per case %.1f\n",
                            name.c_str(), taskName, msOf(fullModel, task, cases) * perN,
                            msOf(patternModel, task, cases) * perN,
                            msOf(perCase, task, cases) * perN);
                continue;
            }
            // A compiled executor: the first run compiles, the second is the warm one.
            const double fullFirst = msOf(fullModel, task, cases) * perN;
            const double fullWarm = msOf(fullModel, task, cases) * perN;
            const double patternFirst = msOf(patternModel, task, cases) * perN;
            const double patternWarm = msOf(patternModel, task, cases) * perN;
            std::printf("%-12s %5s %s us/case (first run, second): full-table %.1f, %.1f; "
                        "patterns %.1f, %.1f; cpu per case %.1f\n",
                        name.c_str(), taskName, executor.c_str(), fullFirst, fullWarm,
                        patternFirst, patternWarm, msOf(perCase, task, cases) * perN);
        }
    }
    return 0;
}
