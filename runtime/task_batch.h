// runTasks' batch (runtime/tasks.h) in two halves around its first pass, so that the pass can run
// synchronously (runTasks) or enqueued on a caller's CUDA stream (runTasksAsync,
// runtime/tasks_async.h) and the answers are the same code either way: beginBatch checks the
// cases, builds their input vectors and compiles what the pass runs; finishBatch takes the pass's
// values and does the rest (log space for the cases float64 lost, marginals, MPE decoding).
#pragma once

#include "ir/traced_terms.h"
#include "runtime/tasks.h"

#include <chrono>
#include <optional>
#include <span>
#include <vector>

namespace zbddc {

struct TaskBatch {
    Task task = Task::Pr;
    Semiring ring = Semiring::SumProduct; // the first pass's semiring
    Numeric first = Numeric::Float64;     // and its arithmetic
    std::vector<size_t> valid;            // the cases with an input vector, in order
    InputBatch inputs;                    // their inputs: indicators per case, the rest shared
    std::vector<std::optional<Result<TaskResult>>> slots; // per case: set where already answered
    // MPE's first pass, where the backend traced its optimal terms (Model::traceback) rather than
    // computing adjoints: a row per valid case.
    std::optional<TracedTerms> traced;
    std::optional<Diagnostic> failed;            // every case's answer, where the batch cannot run
    std::chrono::steady_clock::time_point start; // after the compile: time_ms is the answering
};

TaskBatch beginBatch(Model &model, Task task, std::span<const Evidence> cases,
                     const TaskOptions &options);

// Its parts, shared with the float32 path (runtime/tasks_float32.cpp):
// why `model` answers `task` for no case at all (no outputs; MAR without variables), or nullopt;
std::optional<Diagnostic> refusal(const Model &model, Task task);
// each case's indicators appended to batch.inputs and its index to batch.valid, or its error put
// in its slot (evidence of another model, a bad free input).
void addInputVectors(const Model &model, std::span<const Evidence> cases,
                     const TaskOptions &options, TaskBatch &batch);
// A pass's output (a natural log in log space) as a linear value, and its log10.
double linearValue(Numeric numeric, double output);
double log10Value(Numeric numeric, double output);
// Every case's answer, from the slots of a batch that has them all.
std::vector<Result<TaskResult>> answersInSlots(TaskBatch &batch);

// `first`: the first pass over `batch.valid` in (ring, first): every output of each case, and
// where the pass also ran backward (MAR, MPE) the indicators' adjoints of output 0 (the varying
// inputs of batch.inputs), which then stand for the first adjoint pass in that arithmetic.
std::vector<Result<TaskResult>> finishBatch(Model &model, TaskBatch &batch,
                                            std::span<const Evidence> cases,
                                            const TaskOptions &options, PassValues first);

} // namespace zbddc
