#include "runtime/junction_tree/junction_tree_model.h"
#include "support/progress.h"

#include "compiler/junction_tree/junction_tree_stats.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/program_entries.h"
#include "runtime/tensor/tensor_executor.h"
#include "runtime/device_list.h"
#include "runtime/junction_tree/evidence_pattern_batch.h"
#include "runtime/junction_tree/junction_tree_answer.h"
#include "runtime/junction_tree/junction_tree_per_case.h"
#include "support/threads.h"
#include "support/timer.h"

#include <algorithm>
#include <atomic>
#include <optional>

namespace zbddc {

namespace {

// Bytes of a lowered program's tables: the part that grows with the batch, and the rest.
ProgramEntries programBytes(const JunctionTreeProgram &jt) {
    const ProgramEntries e = programEntries(jt);
    return {e.perCase * sizeof(double), e.fixed * sizeof(double)};
}

std::vector<uint32_t> observedVariables(std::span<const Evidence> cases, size_t n, bool all) {
    std::vector<bool> seen(n, all);
    for (const Evidence &e : cases)
        for (size_t v = 0; v < n; ++v)
            seen[v] = seen[v] || e.states[v] != kNone;
    std::vector<uint32_t> observed;
    for (uint32_t v = 0; v < n; ++v)
        if (seen[v])
            observed.push_back(v);
    return observed;
}

// Every answered case of a run: where it ran (with the run's note) and its share of the time
// since `start`.
std::vector<Result<TaskResult>> stampAnswers(std::vector<Result<TaskResult>> results,
                                             DeviceReport device, const std::string &note,
                                             SteadyTime start) {
    const double perCase = msSince(start) / static_cast<double>(results.size());
    device.arithmetic = Numeric::Float64;
    device.addNote(note);
    for (Result<TaskResult> &r : results)
        if (r) {
            r->device = device;
            r->timeMs = perCase;
        }
    return results;
}

} // namespace

struct JunctionTreeModel::Impl {
    FactorModel model;
    JunctionTree tree;
    JunctionTreeOptions options;
    std::vector<Variable> variables;
    std::unique_ptr<TensorExecutor> executor;
    std::string executorError;
    std::vector<JunctionTreeModel> perDevice; // several GPUs: one model each, cases split evenly
    uint32_t gpuShares = 1; // logical devices on this model's GPU: its memory budget is shared

    // The GPU's traceback (a plan per case built here, one warp per case there) pays on trees
    // whose cliques make the host's enumeration slow; on tiny ones the host is quicker. Measured
    // on the H100 (bench/results/NOTEBOOK.md, 2026-11-25): host faster on alarm (10^3 clique entries) and
    // hailfinder (10^4), the GPU 15x faster on pathfinder (10^5.3) and more above.
    static constexpr double kExecutorTracebackMinCliqueEntries = 1 << 15;
    bool decodesOnExecutor() const {
        using T = JunctionTreeOptions::Traceback;
        if (options.traceback == T::OnHost || !executor || !executor->decodesCases())
            return false;
        return options.traceback == T::OnExecutor ||
               junctionTreeStats(tree).totalCliqueEntries >= kExecutorTracebackMinCliqueEntries;
    }

    // A program lowered and prepared, kept for the next batch of the same shape.
    struct Prepared {
        bool maxProduct = false, marginals = false;
        std::vector<uint32_t> observed;
        JunctionTreeProgram lowered;
        std::unique_ptr<PreparedTensorProgram> run;
        // MPE traced back by the executor: its runs then fetch only the scales and normaliser.
        bool tracedOnExecutor = false;
        uint32_t calls = 0; // run() calls answered with it
        ProgramEntries probed; // probeBytes of its lowering: what batches are sized by
    };
    // One per task kind (PR, MAR, MPE): a caller alternating tasks on one model lowers and
    // prepares (on a GPU, compiles) each kind's program once, not at every switch.
    std::unique_ptr<Prepared> prepared[3];
    static size_t kindOf(const JunctionTreeLowering &l) {
        return l.maxProduct ? 2 : l.marginals ? 1 : 0;
    }
    static uint64_t heldBytes(const std::unique_ptr<Prepared> &p) {
        return p ? programBytes(p->lowered).atBatch(p->lowered.batch) : 0;
    }

    PerCaseMemo perCaseMemo; // what the per-case route's runs share

    // A batch on the CPU (ByCost): the full-table program, one for the whole batch, where its
    // entries per case cost less than the per-case route spends on the ops of each case's own
    // lowering and run; otherwise, and for fewer than kCpuBatchMin cases, the per-case route.
    // (One case on the full tables: Promedus_30's MAR 0.87 against 3.4-5.4 ms of time_ms, but
    // its whole process 1 ms slower, the full program's lowering outside time_ms; and the
    // choice's own lowering slowed the cases that stay per case by 0.1-0.3 ms a process.) On
    // the 2-core VM (2026-12-07, 200 Gibbs-sampled cases, MAR, both threads): the full tables
    // about 3 ns an entry (Segmentation_11 23.7 ms a case over 7.65e6 entries, Grids_13 2.6 ns);
    // the per-case route about 2.5 us per op of the full program on a small tree (Promedus_30:
    // 3.4 ms a case over 1,377 ops, where the full tables took 0.23 ms), and close to the full
    // tables' entries per case where its sliced tables are large (Segmentation_11: 8.7 ms).
    static constexpr double kCpuFullEntryNs = 3, kCpuPerCaseOpNs = 2500;
    static constexpr size_t kCpuBatchMin = 16;
    std::optional<bool> fullTablesOnCpu[3]; // per task kind, decided at its first batch
    // A kept model asked for PR or MAR of a few cases at a time on the CPU (a library's queries
    // one by one): the first such call goes case by case and its time a case is kept. Where the
    // full-table program's entries (kCpuFullEntryNs each) would take less, the next two calls
    // run that program, lowered once with every variable's evidence table (one program whatever
    // a query observes; its lowering then shared by every later call), and the second of them,
    // warm, decides for the calls after: the faster plan stays. On a small tree the per-case
    // route's lowering is most of a case (Promedus_30's MAR: 3.0 ms a case, the full tables 0.3
    // warm); on DBN_12 or Grids_16 the full tables run slower, and two calls find it out.
    struct SmallCalls {
        enum class Plan : uint8_t { First, TryFull, PerCase, Full };
        Plan plan = Plan::First;
        uint32_t fullCalls = 0;
        double perCaseMs = 0;
        bool full() const { return plan == Plan::TryFull || plan == Plan::Full; }
    };
    SmallCalls smallCalls[3]; // per task kind
    void noteSmallCall(SmallCalls &calls, const JunctionTreeLowering &every,
                       const std::vector<Result<TaskResult>> &results) {
        auto answered = std::find_if(results.begin(), results.end(),
                                     [](const Result<TaskResult> &r) { return bool(r); });
        if (answered == results.end())
            return;
        const double ms = (*answered)->timeMs;
        using Plan = SmallCalls::Plan;
        if (calls.plan == Plan::First) {
            calls.perCaseMs = ms;
            auto probe = probeOf(every);
            const bool mayPay =
                probe && tensorProgramWork((*probe)->program) * kCpuFullEntryNs * 1e-6 < ms;
            calls.plan = mayPay ? Plan::TryFull : Plan::PerCase;
        } else if (calls.plan == Plan::TryFull && ++calls.fullCalls == 2) {
            calls.plan = ms < calls.perCaseMs ? Plan::Full : Plan::PerCase;
        }
    }
    bool fullTablesPayOnCpu(const JunctionTreeLowering &lowering) {
        std::optional<bool> &memo = fullTablesOnCpu[kindOf(lowering)];
        if (!memo) {
            auto one = probeOf(lowering); // one case's share: the batch is one more axis
            memo = one && tensorProgramWork((*one)->program) * kCpuFullEntryNs <
                              static_cast<double>((*one)->program.ops.size()) * kCpuPerCaseOpNs;
        }
        return *memo;
    }

    // A task's program lowered for one case: what the CPU's choice counts and batches are sized
    // by (probeBytes), and, where the batch is one case, the program itself (prepare): one
    // lowering for the three, dropped once the task's program is built.
    struct Probe {
        std::vector<uint32_t> observed;
        JunctionTreeProgram lowered;
    };
    std::optional<Probe> probes[3];
    Result<JunctionTreeProgram *> probeOf(const JunctionTreeLowering &lowering) {
        std::optional<Probe> &probe = probes[kindOf(lowering)];
        if (!probe || probe->observed != lowering.observed) {
            JunctionTreeLowering one = lowering;
            one.batch = 1;
            auto lowered = lowerJunctionTree(model, tree, one);
            if (!lowered)
                return lowered.error();
            probe = Probe{lowering.observed, std::move(*lowered)};
        }
        return &probe->lowered;
    }

    // The CPU's per-case route: every case lowered alone, sliced by its evidence.
    std::vector<Result<TaskResult>> runPerCase(Task task, std::span<const Evidence> cases,
                                               uint32_t fit, JunctionTreeRunInfo *info) {
        // Each case is lowered as it is answered: its lowering is part of its time.
        const SteadyTime start = std::chrono::steady_clock::now();
        const unsigned threads = threadsOrCores(options.threads);
        std::vector<Result<TaskResult>> results =
            runJunctionTreePerCase(model, tree, task, cases, threads, options.belief,
                                   options.caseTree, &perCaseMemo, fit);
        JunctionTreeRunInfo local;
        JunctionTreeRunInfo &st = info ? *info : local;
        st = {};
        st.batch = 1;
        st.runs = static_cast<uint32_t>(cases.size());
        st.device = {DeviceKind::Cpu, "", std::to_string(threads) + " threads, one case each"};
        st.device.arithmetic = Numeric::Float64;
        return stampAnswers(std::move(results), st.device,
                            "junction tree, " + std::to_string(tree.numCliques()) +
                                " cliques, each case's CPTs sliced by its evidence",
                            start);
    }

    std::vector<Result<TaskResult>> runPatterns(Task task, std::span<const Evidence> cases,
                                                const BatchedPlanChoice &choice,
                                                JunctionTreeRunInfo *info) const;

    Status decodeOnExecutor(Prepared &p, std::span<const Evidence> cases, size_t first,
                            size_t count, std::vector<uint32_t> &decoded,
                            std::vector<uint8_t> &tied) const;

    Result<Prepared *> prepare(const JunctionTreeLowering &lowering, size_t cases) {
        std::unique_ptr<Prepared> &last = prepared[kindOf(lowering)];
        const bool sameShape = last && last->observed == lowering.observed;
        // A compiled (GPU) program answers any number of cases in runs of its batch, padded:
        // keep it where its batch holds the cases or is what the memory allows anyway.
        const bool compiled = options.executor == "cuda";
        if (sameShape && compiled && last->lowered.batch >= cases)
            return last.get();
        // This kind's last program's tables are released before another is placed, so they count
        // as free: sized against the free memory alone, the batch would shrink by what the
        // program itself holds, and every kernel would be compiled again (munin2: 90 s per call).
        // The probe is a whole lowering (Promedus_30: as long as a warm run on the CPU): a
        // program of the same shape keeps its own.
        auto bytes = sameShape ? Result<ProgramEntries>(last->probed) : probeBytes(lowering);
        if (!bytes)
            return bytes.error();
        auto batch = casesThatFit(*bytes, cases, heldBytes(last));
        if (!batch)
            return batch.error();
        // The other kinds' programs stay unless the memory they hold would cut this batch.
        uint64_t others = 0;
        for (const std::unique_ptr<Prepared> &p : prepared)
            others += &p == &last ? 0 : heldBytes(p);
        if (*batch < cases && others > 0) {
            auto alone = casesThatFit(*bytes, cases, heldBytes(last) + others);
            if (alone && *alone > *batch) {
                for (std::unique_ptr<Prepared> &p : prepared)
                    if (&p != &last)
                        p.reset();
                batch = alone;
            }
        }
        if (sameShape && (compiled ? last->lowered.batch >= *batch : last->lowered.batch == *batch))
            return last.get();
        last.reset();
        JunctionTreeLowering sized = lowering;
        sized.batch = *batch;
        std::optional<Probe> &probe = probes[kindOf(lowering)];
        auto lowered = *batch == 1 && probe && probe->observed == lowering.observed
                           ? Result<JunctionTreeProgram>(std::move(probe->lowered))
                           : lowerJunctionTree(model, tree, sized);
        probe.reset(); // taken, or no longer needed: the program keeps its probed bytes
        if (!lowered)
            return lowered.error();
        auto p = std::make_unique<Prepared>();
        p->probed = *bytes;
        p->maxProduct = lowering.maxProduct;
        p->marginals = lowering.marginals;
        p->observed = lowering.observed;
        p->lowered = std::move(*lowered);
        p->tracedOnExecutor = p->maxProduct && decodesOnExecutor();
        if (p->tracedOnExecutor) { // the traceback reads the tables in place
            TensorProgram &program = p->lowered.program;
            program.fetch = p->lowered.collectScales;
            program.fetch.push_back(p->lowered.normaliser);
        }
        auto run = executor->prepare(p->lowered.program);
        if (!run)
            return run.error();
        p->run = std::move(*run);
        last = std::move(p);
        return last.get();
    }

    // The bytes of `lowering`'s program for one case, and the rest: a lowering of its own.
    Result<ProgramEntries> probeBytes(const JunctionTreeLowering &lowering) {
        auto probe = probeOf(lowering);
        if (!probe)
            return probe.error();
        return programBytes(**probe);
    }

    // The per-case route's threads, each holding one case's tables: no more than the tree's
    // potentials and a message each way over each separator, beside the factors' own tables (a
    // case's sliced, lazy tables are fewer). Read off the tree's structure, once: a probe
    // lowering of the whole tree per run cost as much as a small case's own lowering and run
    // (Promedus_30: 1 of MAR's 3.9 ms).
    std::optional<ProgramEntries> perCaseBytes;
    Result<uint32_t> perCaseThreads(size_t cases) {
        if (!perCaseBytes) {
            const JunctionTreeStats st = junctionTreeStats(tree);
            double factorEntries = 0;
            for (const Factor &f : model.factors)
                factorEntries += static_cast<double>(f.table.size());
            // Bounded where a tree's entries pass what 64 bits count (a 40x40 grid: 10^20), so
            // that the budget's sum stays in range and refuses it.
            const auto bytes = [](double entries) {
                return static_cast<uint64_t>(std::min(sizeof(double) * entries, 0x1p62));
            };
            perCaseBytes = ProgramEntries{
                bytes(st.totalCliqueEntries + 2 * st.totalSeparatorEntries), bytes(factorEntries)};
        }
        return casesThatFit(*perCaseBytes, cases, 0);
    }

    // Cases per run of a program of `bytes`: what the memory budget holds (with `heldBytes`, of
    // programs about to be released, freed), at most the cases given.
    Result<uint32_t> casesThatFit(const ProgramEntries &bytes, size_t cases, uint64_t heldBytes) {
        uint64_t budget = options.memoryBudgetBytes;
        if (!budget) {
            auto b = executor->memoryBudgetBytes(heldBytes);
            if (!b)
                return b.error();
            budget = *b / gpuShares;
        }
        if (bytes.fixed + bytes.perCase > budget)
            return error("the junction tree needs " + std::to_string(bytes.fixed >> 20) +
                         " MiB plus " + std::to_string(bytes.perCase >> 20) +
                         " MiB per case, more than the " + std::to_string(budget >> 20) +
                         " MiB this device can hold");
        uint64_t b = (budget - bytes.fixed) / std::max<uint64_t>(bytes.perCase, 1);
        b = std::min<uint64_t>({b, cases, uint64_t{1} << 16});
        if (options.maxBatch)
            b = std::min<uint64_t>(b, options.maxBatch);
        return static_cast<uint32_t>(std::max<uint64_t>(b, 1));
    }
};

// The batched route by evidence pattern (evidence_pattern_batch.h): runs of cases, each one
// program; a run whose tables exceed the memory budget is halved until they fit.
std::vector<Result<TaskResult>>
JunctionTreeModel::Impl::runPatterns(Task task, std::span<const Evidence> cases,
                                     const BatchedPlanChoice &choice,
                                     JunctionTreeRunInfo *info) const {
    const SteadyTime start = std::chrono::steady_clock::now();
    const std::vector<std::vector<uint32_t>> families = model.sortedScopes();
    const std::vector<uint8_t> rowsSumToOne = factorRowsSumToOne(model);
    JunctionTreeRunInfo local;
    JunctionTreeRunInfo &st = info ? *info : local;
    st = {};
    std::vector<Result<TaskResult>> results;
    results.reserve(cases.size());
    uint64_t budget = options.memoryBudgetBytes;
    if (!budget) {
        auto b = executor->memoryBudgetBytes();
        if (!b) {
            results.assign(cases.size(), Result<TaskResult>(b.error()));
            return results;
        }
        budget = *b / gpuShares;
    }
    size_t chunk = std::min<size_t>(cases.size(), options.maxBatch ? options.maxBatch : 4096);
    for (size_t first = 0; first < cases.size();) {
        const size_t count = std::min(chunk, cases.size() - first);
        const auto part = cases.subspan(first, count);
        EvidencePatternRun run =
            buildEvidencePatternRun(model, tree, families, rowsSumToOne, task, part,
                                    options.caseTree, options.threads);
        uint64_t bytes = 0;
        for (const Table &t : run.program.tables)
            bytes += t.entries() * sizeof(double);
        if (bytes > budget && count > 1) {
            chunk = count / 2;
            continue;
        }
        auto tables = executor->run(run.program);
        ++st.runs;
        st.batch = std::max<uint32_t>(st.batch, static_cast<uint32_t>(count));
        st.bytesPerRun = std::max(st.bytesPerRun, bytes);
        if (!tables) {
            for (size_t i = 0; i < count; ++i)
                results.push_back(tables.error());
            first += count;
            continue;
        }
        st.device = tables->device;
        std::vector<std::optional<Result<TaskResult>>> answers(count);
        std::atomic<size_t> next{0};
        onThreads(std::min<size_t>(threadsOrCores(options.threads), count), [&](size_t) {
            for (size_t i; (i = next.fetch_add(1)) < count;)
                answers[i] = evidencePatternAnswer(run, tree, task, tables->tables, i, part[i]);
        });
        for (auto &a : answers)
            results.push_back(std::move(*a));
        first += count;
    }
    return stampAnswers(std::move(results), st.device,
                        "junction tree, " + choice.note() + ", " + std::to_string(st.batch) +
                            " cases per run",
                        start);
}

// The MPE assignments of cases [first, first + count) of the run just made, traced back by the
// executor where its tables are: a row of numVariables() + 1 entries per case (the case variable
// last), observed variables pinned to their evidence; `tied` per case, whether its walk met a tie.
Status JunctionTreeModel::Impl::decodeOnExecutor(Prepared &p, std::span<const Evidence> cases,
                                                 size_t first, size_t count,
                                                 std::vector<uint32_t> &decoded,
                                                 std::vector<uint8_t> &tied) const {
    const size_t n = tree.numVariables(), width = n + 1;
    decoded.assign(width * count, 0);
    std::vector<uint8_t> pinned(width * count, 0);
    for (size_t b = 0; b < count; ++b) {
        const Evidence &ev = cases[first + b];
        for (size_t v = 0; v < n; ++v)
            if (ev.states[v] != kNone) {
                decoded[b * width + v] = ev.states[v];
                pinned[b * width + v] = 1;
            }
        decoded[b * width + p.lowered.batchVariable] = static_cast<uint32_t>(b);
        pinned[b * width + p.lowered.batchVariable] = 1;
    }
    return p.run->decodeCases(decoded, pinned, static_cast<uint32_t>(count), tied);
}

JunctionTreeModel::JunctionTreeModel(const BayesNet &net, JunctionTree tree,
                                     JunctionTreeOptions options)
    : JunctionTreeModel(factorModelOf(net), std::move(tree), std::move(options)) {}

JunctionTreeModel::JunctionTreeModel(FactorModel model, JunctionTree tree,
                                     JunctionTreeOptions options)
    : impl_(std::make_unique<Impl>()) {
    impl_->model = std::move(model);
    impl_->tree = std::move(tree);
    impl_->options = std::move(options);
    impl_->variables = impl_->model.variables;
    const std::vector<int> gpus = impl_->options.gpus;
    if (gpus.size() > 1 && impl_->options.executor != "cpu" && gpuUsable()) {
        for (int ordinal : gpus) {
            JunctionTreeOptions one = impl_->options;
            one.executor = "cuda";
            one.gpus = {ordinal};
            JunctionTreeModel &m = impl_->perDevice.emplace_back(impl_->model, impl_->tree, one);
            m.impl_->gpuShares =
                static_cast<uint32_t>(std::count(gpus.begin(), gpus.end(), ordinal));
        }
        impl_->options.executor = "cuda";
        return;
    }
    TensorExecutorOptions eo;
    eo.threads = impl_->options.threads;
    eo.gpuSwitches = impl_->options.gpuSwitches;
    eo.gpu = gpus.empty() ? 0 : gpus.front();
    auto executor = makeTensorExecutor(impl_->options.executor, eo);
    if (executor)
        impl_->executor = std::move(*executor);
    else
        impl_->executorError = executor.error().message;
    if (impl_->options.executor == "auto") // the layout follows the executor that was chosen
        impl_->options.executor = gpuUsable() ? "cuda" : "cpu";
}

JunctionTreeModel::~JunctionTreeModel() = default;
JunctionTreeModel::JunctionTreeModel(JunctionTreeModel &&) noexcept = default;
JunctionTreeModel &JunctionTreeModel::operator=(JunctionTreeModel &&) noexcept = default;

const FactorModel &JunctionTreeModel::model() const {
    return impl_->model;
}
const JunctionTree &JunctionTreeModel::tree() const {
    return impl_->tree;
}
const std::vector<Variable> &JunctionTreeModel::variables() const {
    return impl_->variables;
}

// Cases split evenly over the devices, each device's model run on its own thread at once.
std::vector<Result<TaskResult>> JunctionTreeModel::runSpread(Task task,
                                                             std::span<const Evidence> cases,
                                                             JunctionTreeRunInfo *info) {
    std::vector<JunctionTreeModel> &models = impl_->perDevice;
    std::vector<JunctionTreeRunInfo> infos(models.size());
    std::vector<Result<TaskResult>> results = runSplitOverDevices<Result<TaskResult>>(
        cases.size(), models.size(), [&](size_t d, CaseRange range) {
            return models[d].run(task, cases.subspan(range.first, range.count), &infos[d]);
        });
    std::string list;
    for (int o : impl_->options.gpus)
        list += (list.empty() ? "" : ",") + std::to_string(o);
    const std::string spread = "cases split over devices " + list;
    for (Result<TaskResult> &r : results)
        if (r) {
            r->device.addNote(spread);
            r->device.ordinal = -1; // several GPUs
        }
    if (info) {
        *info = infos.front();
        info->runs = 0;
        for (const JunctionTreeRunInfo &i : infos)
            info->runs += i.runs;
        info->device.addNote(spread);
        info->device.ordinal = -1;
        info->devices = static_cast<uint32_t>(models.size());
    }
    return results;
}

void JunctionTreeModel::forgetCalls() {
    for (Impl::SmallCalls &calls : impl_->smallCalls)
        calls = {};
}

std::vector<Result<TaskResult>> JunctionTreeModel::run(Task task, std::span<const Evidence> cases,
                                                       JunctionTreeRunInfo *info) {
    if (!impl_->perDevice.empty())
        return runSpread(task, cases, info);
    Impl &m = *impl_;
    std::vector<Result<TaskResult>> results;
    auto failAll = [&](const Diagnostic &d) {
        results.assign(cases.size(), Result<TaskResult>(d));
        return results;
    };
    if (!m.executor)
        return failAll(error(m.executorError));
    if (task == Task::Eval)
        return failAll(error("the junction-tree route answers pr, mar and mpe"));
    for (const Evidence &e : cases)
        if (e.states.size() != m.tree.numVariables())
            return failAll(error("evidence does not match the model's variables"));
    if (cases.empty())
        return results;

    JunctionTreeLowering lowering;
    lowering.maxProduct = task == Task::Mpe;
    lowering.marginals = task == Task::Mar;
    // A GPU program is compiled: with every variable's evidence table it is one program for
    // every batch of a task, whatever each batch observes (the tables of unobserved variables
    // hold 1s). The CPU leaves them out.
    lowering.observed = m.options.executor == "cuda"
                            ? observedVariables({}, m.tree.numVariables(), true)
                            : observedVariables(cases, m.tree.numVariables(), false);
    lowering.belief = m.options.belief;
    using Plan = JunctionTreeOptions::BatchedPlan;
    const bool small = m.options.executor == "cpu" && m.options.batchedPlan == Plan::ByCost &&
                       cases.size() < Impl::kCpuBatchMin;
    Impl::SmallCalls *pilot =
        small && task != Task::Mpe ? &m.smallCalls[Impl::kindOf(lowering)] : nullptr;
    JunctionTreeLowering every; // the full tables a kept model's small calls may take
    if (pilot) {
        every = lowering;
        every.observed = observedVariables({}, m.tree.numVariables(), true);
    }
    const bool keptSmall = pilot && pilot->full();
    if (keptSmall)
        lowering = every;
    const auto noted = [&](std::vector<Result<TaskResult>> answered) {
        if (pilot)
            m.noteSmallCall(*pilot, every, answered);
        return answered;
    };
    if (m.options.executor == "cpu" && !keptSmall &&
        (m.options.batchedPlan == Plan::PerCase ||
         (m.options.batchedPlan == Plan::ByCost &&
          (small || !m.fullTablesPayOnCpu(lowering))))) {
        // Each thread holds one case's tables (perCaseThreads): as many threads as the memory
        // budget holds such cases, none where it holds not one. (A batched plan named outright
        // runs on the CPU executor too: the GPU's program, checked there.)
        auto fit = m.perCaseThreads(cases.size());
        if (!fit)
            return failAll(fit.error());
        return noted(m.runPerCase(task, cases, *fit, info));
    }
    // The plan per evidence pattern runs where asked for. ByCost takes the full tables for now:
    // on the H100 (2026-12-05, bench/results/gpu-2026-12-05-one-house) the estimate chose the
    // patterns on water, barley and munin1 and each ran slower than the full tables (MAR 6.1x,
    // 1.6x, 1.4x; MPE on barley and munin1 11-12x): the host's lowering of every pattern and
    // its kernels' compile, not the entries the estimate counts, set the time.
    if (m.options.batchedPlan == Plan::EvidencePatterns)
        return m.runPatterns(task, cases, BatchedPlanChoice{.patterns = true}, info);
    auto prepared = m.prepare(lowering, keptSmall ? 1 : cases.size()); // one program for any few
    if (!prepared && keptSmall) { // the full tables do not fit where the cases' own tables do
        pilot->plan = Impl::SmallCalls::Plan::PerCase;
        return run(task, cases, info);
    }
    if (!prepared)
        return failAll(prepared.error());
    // time_ms is the answering, not the lowering and compile, as on the MLF route (tasks.h).
    const SteadyTime start = std::chrono::steady_clock::now();
    Impl::Prepared &p = **prepared;
    JunctionTreeProgram &jt = p.lowered;

    JunctionTreeRunInfo local;
    JunctionTreeRunInfo &st = info ? *info : local;
    st = {};
    st.batch = jt.batch;
    st.bytesPerRun = programBytes(jt).atBatch(jt.batch);
    st.reusedProgram = p.calls++ > 0;
    const std::vector<uint32_t> unobserved(m.tree.numVariables(), kNone);
    ProgressLine line("answering cases in runs of " + std::to_string(jt.batch));
    for (size_t first = 0; first < cases.size(); first += jt.batch) {
        line.update(first, cases.size());
        const size_t count = std::min<size_t>(jt.batch, cases.size() - first);
        // A short last chunk is padded with cases without evidence: the program (and its compiled
        // kernels) stays the same.
        for (uint32_t b = 0; b < jt.batch; ++b)
            jt.setEvidence(b, b < count ? cases[first + b].states : unobserved);
        std::vector<uint32_t> evidence;
        std::vector<std::span<const double>> values;
        for (uint32_t t : jt.evidenceTable)
            if (t != kNoTable) {
                evidence.push_back(t);
                values.emplace_back(jt.program.tables[t].values);
            }
        Status placed = p.run->setInputs(evidence, values);
        auto tables = placed ? p.run->run() : Result<CompleteTables>(placed.error());
        ++st.runs;
        if (!tables) {
            for (size_t i = 0; i < count; ++i)
                results.push_back(tables.error());
            continue;
        }
        st.device = tables->device;
        if (st.device.kind == DeviceKind::Cuda && m.options.gpus.size() <= 1)
            st.device.ordinal = m.options.gpus.empty() ? 0 : m.options.gpus.front();
        // MPE where the executor traces back: every case of the run at once, on its device.
        std::vector<uint32_t> decoded;
        std::vector<uint8_t> tied;
        if (p.tracedOnExecutor) {
            if (Status s = m.decodeOnExecutor(p, cases, first, count, decoded, tied); !s) {
                for (size_t i = 0; i < count; ++i)
                    results.push_back(s.error());
                continue;
            }
        }
        const size_t width = m.tree.numVariables() + 1; // a decoded row: variables, then the case
        // Cases are read back independently (MPE's traceback is most of its time): all threads.
        std::vector<std::optional<Result<TaskResult>>> answers(count);
        std::atomic<size_t> next{0};
        onThreads(std::min<size_t>(threadsOrCores(m.options.threads), count), [&](size_t) {
            for (size_t b; (b = next.fetch_add(1)) < count;)
                answers[b] = junctionTreeAnswer(
                    task, m.tree, jt, tables->tables, static_cast<uint32_t>(b), cases[first + b],
                    decoded.empty() ? nullptr : decoded.data() + b * width,
                    decoded.empty() ? std::nullopt : std::optional<bool>(tied[b] != 0));
        });
        for (auto &a : answers)
            results.push_back(std::move(*a));
    }
    line.update(cases.size(), cases.size());
    return noted(stampAnswers(std::move(results), st.device,
                              "junction tree, " + std::to_string(m.tree.numCliques()) +
                                  " cliques, " + std::to_string(jt.batch) +
                                  (jt.batch == 1 ? " case per run" : " cases per run"),
                              start));
}

} // namespace zbddc
