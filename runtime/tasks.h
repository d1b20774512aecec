// The queries users ask of a compiled model: EVAL (the outputs for given inputs), PR (probability
// of evidence), MAR (all posterior marginals from one backward pass) and MPE (most probable
// explanation by max-product, decoded from its adjoints over a whole batch, or traced back for
// one case where the backend can), answered on whatever backend a Model runs
// (runtime/model.h): the LLVM JIT, the CUDA backend, a model.so or the reference evaluator.
#pragma once

#include "ir/circuit.h"
#include "ir/interpret.h"
#include "runtime/evidence.h"
#include "runtime/float32_bound.h"
#include "runtime/marginal_table.h"
#include "runtime/model.h"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

enum class Task : uint8_t { Eval, Pr, Mar, Mpe };

const char *taskName(Task t);
std::optional<Task> parseTask(std::string_view name);

// What MAR and MPE answer where P(e) = 0 (PR's answer is 0), on every route.
Diagnostic undefinedError(Task task);

// Float32 and Log32 (PR and MAR on the GPU) answer where their error bound allows
// (runtime/float32_bound.h) and hand the other cases to float64 (Auto's route) or log; Auto never
// picks them.
enum class NumericChoice : uint8_t { Auto, Float64, Log, Float32, Log32 };

struct TaskOptions {
    NumericChoice numeric = NumericChoice::Auto; // Auto: float64, log space if float64 underflows
    std::vector<double> freeInputs;              // values of free inputs, in order
    // Where set, case k's own free inputs (in place of freeInputs; one per case): runTasks runs
    // the cases as one batch whose vectors differ in them as well as in their indicators (a
    // circuit's weightings, `zbddc run --weight-cases`).
    std::vector<std::vector<double>> caseFreeInputs = {};
};

// Where an answer is approximate (loopy belief propagation): how its iterations ended.
struct ConvergenceReport {
    uint32_t iterations = 0;
    bool converged = false;
    double maxResidual = 0;
};

// Bucket elimination's sizes (cost networks' MPE), for reports.
struct EliminationReport {
    uint32_t inducedWidth = 0;
    double largestTableEntries = 0;
};

struct TaskResult {
    Task task = Task::Pr;
    double value = 0;      // PR: P(e); MPE: max_x P(x, e); EVAL: first output (linear scale)
    double log10 = 0;      // log10 of value, exact even where value underflows to 0
    Numeric numeric = Numeric::Float64;       // which arithmetic produced it
    std::vector<double> outputs;              // EVAL: every output
    Marginals marginals;                      // MAR: P(X = x | e) per variable and state
    std::vector<uint32_t> assignment;         // MPE: a state per variable (kNone if undetermined)
    // MPE: whether the route's own traceback met another assignment within the tie tolerance of
    // its choice (ir/mpe_tie.h); unset where it cannot tell. false: the optimum is unique, and
    // the tie rule (pipeline/mpe_tie_break.h) has nothing to decide.
    std::optional<bool> mpeTied;
    // MPE: where the route met a tie and decided it as the tie rule does (lowestAssignment on the
    // case's program, runtime/junction_tree/lowest_mpe.h), the lowestMpeKey of its tree (0:
    // none); the rule, where its own tree has that key, has nothing to decide again.
    uint64_t mpeLowestKey = 0;
    DeviceReport device{DeviceKind::Reference}; // where it was computed (runtime/device.h)
    std::string route;    // networks: "mlf" or "jt" (empty for other models)
    std::string routeWhy; // why that route was taken
    std::optional<ConvergenceReport> approximate; // set where the answer is approximate
    // Float32 and Log32: the a-priori bound on this answer's rounding error.
    std::optional<ErrorBound> errorBound;
    // Float32 and Log32 asked for but not used for this case: why, and what answered instead.
    std::string numericNote;
    // Cost networks' MPE: the assignment's total cost as JSON number text, exact (CostNetwork::
    // costText), "null" where it is infeasible.
    std::optional<std::string> cost;
    std::optional<EliminationReport> elimination;
    double timeMs = 0;
};

// `device` in the result names what actually ran, fallbacks included.
Result<TaskResult> runTask(Model &model, Task task, const Evidence &evidence,
                           const TaskOptions &options = {});
// A batch of evidence cases, one result per case: a case that cannot be answered (MAR with
// P(e) = 0, ...) carries its own error and the other cases are still answered. Backends that
// evaluate many cases per launch do so here.
std::vector<Result<TaskResult>> runTasks(Model &model, Task task, std::span<const Evidence> cases,
                                         const TaskOptions &options = {});
// The cases split evenly over `models` (the same circuit on several devices, Model::onGpu), each
// model answering its share on its own thread at once; results in the cases' order.
std::vector<Result<TaskResult>> runTasksOnDevices(std::span<Model> models, Task task,
                                                  std::span<const Evidence> cases,
                                                  const TaskOptions &options = {});
// On the reference evaluator.
Result<TaskResult> runTask(const Circuit &circuit, Task task, const Evidence &evidence,
                           const TaskOptions &options = {});

} // namespace zbddc
