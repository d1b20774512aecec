// A factor model (a Bayesian network, a Markov network) answered by junction-tree propagation:
// PR, MAR and MPE over batches of
// evidence cases, run as TensorPrograms (compiler/junction_tree/lower_junction_tree.h) on any
// tensor executor — the reference interpreter, the threaded CPU or the CUDA kernels — in chunks
// of as many cases as the executor's memory holds. Answers are exact: every message is rescaled
// per case, so P(e) down to 10^-300 and far below is reported through its log10.
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/evidence_tree.h"
#include "compiler/junction_tree/junction_tree.h"
#include "backends/tensor/cuda/run/gpu_switches.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "runtime/evidence.h"
#include "runtime/tasks.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

struct JunctionTreeOptions {
    std::string executor = "auto";  // a tensor executor's name (tensor_executor.h)
    unsigned threads = 0;           // CPU threads; 0: all
    uint32_t maxBatch = 0;          // cases per run; 0: as many as the memory budget allows
    uint64_t memoryBudgetBytes = 0; // 0: the executor's own budget
    JunctionTreeLowering::Belief belief = JunctionTreeLowering::Belief::ByCost;
    // cuda: one GPU ordinal (none: GPU 0), or several logical devices (ordinals, repeats sharing a
    // GPU): the cases are then split evenly over them, each device running its own model at once.
    std::vector<int> gpus;
    // Where MPE is traced back: where the executor's tables are (the GPU, which downloads then
    // only what the answers read), on the host from every table, or (Auto) the GPU where the
    // tree's cliques are large enough to pay for it.
    enum class Traceback : uint8_t { Auto, OnExecutor, OnHost };
    Traceback traceback = Traceback::Auto;
    // The CPU executor ("cpu", or "auto" without a GPU) lowers each case alone with its CPTs
    // sliced by its evidence, one case per thread (junction_tree_per_case.h): on the 16-core
    // host it beat the GPU's batched layout on the CPU on 12 of 13 networks, 1.8-50x (alarm
    // 0.091 against 0.067 ms a case; bench/results/NOTEBOOK.md, 2026-11-25). The reference
    // interpreter and the GPU run the batched tree, evidence as indicator tables.
    // The tree each case is propagated on (evidence_tree.h).
    CaseTree caseTree = CaseTree::ByCost;
    // The batched route's program (the GPU's and the reference interpreter's): the full-table
    // tree with evidence as indicator tables, a tree per evidence pattern with each case's CPTs
    // sliced (evidence_pattern_batch.h), or ByCost: today the full tables (measured faster on the
    // H100 where the estimate chose the patterns; junction_tree_model.cpp). On the CPU executor
    // ByCost means one case at a time, but for a batch of 16 or more whose full tables cost less
    // per case than the per-case route's ops (junction_tree_model.cpp's fullTablesPayOnCpu);
    // PerCase always one case at a time (elsewhere it is ByCost); a batched plan named outright
    // runs batched there.
    enum class BatchedPlan : uint8_t { ByCost, FullTables, EvidencePatterns, PerCase };
    BatchedPlan batchedPlan = BatchedPlan::ByCost;
    cuda::GpuSwitches gpuSwitches; // the GPU executor's variants (tensor_executor.h)
};

// What a batched run held and where, for reports.
struct JunctionTreeRunInfo {
    uint32_t batch = 0;       // cases per run
    uint32_t runs = 0;        // executor runs (chunks)
    uint64_t bytesPerRun = 0; // tables of one run
    DeviceReport device;      // where the last run ran
    uint32_t devices = 1;     // devices the cases were split over
    // The batched route's program was prepared by an earlier run (one is kept per task kind).
    bool reusedProgram = false;
};

class JunctionTreeModel {
  public:
    // The tree must have been built from the model's scopes (buildJunctionTree over
    // model.sortedScopes()); a network's is buildJunctionTree(net, ...).
    JunctionTreeModel(FactorModel model, JunctionTree tree, JunctionTreeOptions options = {});
    JunctionTreeModel(const BayesNet &net, JunctionTree tree, JunctionTreeOptions options = {});
    ~JunctionTreeModel();
    JunctionTreeModel(JunctionTreeModel &&) noexcept;
    JunctionTreeModel &operator=(JunctionTreeModel &&) noexcept;

    const FactorModel &model() const;
    // Forgets the calls of a few cases answered so far: the next is again the first, answered
    // case by case (junction_tree_model.cpp's SmallCalls).
    void forgetCalls();
    const JunctionTree &tree() const;
    // The model's variables and states, as evidence readers and printers take them.
    const std::vector<Variable> &variables() const;

    // One result per case, in order: PR (P(e), or Z(e) of a Markov network, and its log10), MAR
    // (every variable's posterior; a case with P(e) = 0 fails alone) or MPE (max_x P(x, e) and
    // an assignment). EVAL is not a task of this route.
    std::vector<Result<TaskResult>> run(Task task, std::span<const Evidence> cases,
                                        JunctionTreeRunInfo *info = nullptr);

    struct Impl;

  private:
    std::vector<Result<TaskResult>> runSpread(Task task, std::span<const Evidence> cases,
                                              JunctionTreeRunInfo *info);
    std::unique_ptr<Impl> impl_;
};

} // namespace zbddc
