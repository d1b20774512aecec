// runTasks (runtime/tasks.h) without waiting: the batch's work goes onto a CUDA stream the caller
// owns and the call returns; the handle's wait() or get() finishes the host's part once the
// stream has reached the work. This is what a program that overlaps inference with its own GPU
// work, or with its CPU work, calls (docs/cpp-api.md, examples/batch_async.cpp).
//
// On the GPU (Model::device() == DeviceKind::Cuda): the first pass over the cases (PR: forward;
// MAR: forward and the backward pass of Darwiche's differential semantics; MPE: max-product
// forward and one walk per case tracing its optimal term back) is enqueued on `cudaStream`: the
// cases are converted into pinned host memory the model keeps, then per launch of the engine's
// lanes the copy in, the kernels and the copies out, and an event after them. Work the caller
// enqueues later on that stream runs after ours; nothing synchronises the device or the
// context. wait() waits for that event alone, then normalises the marginals and reads the
// assignments on the host. Two things run synchronously inside wait(), on the engines' own
// buffers and the legacy default stream (which waits for a blocking caller's stream: create
// yours non-blocking): the cases whose float64 answer underflowed, answered again in log space
// (NumericChoice::Auto, as runTasks does), and the MPE cases whose walk stopped (two states of
// one variable on a term), decoded from adjoints. The first call for a task compiles its
// kernels before it returns (Model::prepare beforehand keeps that out). A model whose PR and
// MAR run host phases (DeviceOptions::hostLevelOps) answers those synchronously, in the call.
//
// Elsewhere (the LLVM JIT or the data-driven loop on the CPU, a model.so, the reference
// evaluator): runTasks runs on a worker thread of its own and `cudaStream` is ignored.
//
// Lifetimes: the Model (not moved either) and the cases must outlive the handle, and no other
// call on the model may run until the handle is waited for or destroyed (the work runs in the
// model's engines and device buffers; on the GPU a second batch for the engine of a pending one
// is refused, each of its cases carrying that error). A handle is used from one thread at a time. Destroying it
// waits for its work. The answers equal runTasks' on the same model and cases, device notes
// included, but for a batch of one MPE case on the GPU: runTasks traces it back on the host
// from the device's values ("MPE traced back"), the stream's pass walks it on the device ("MPE
// traced back over 1 cases").
#pragma once

#include "runtime/tasks.h"

#include <memory>
#include <span>
#include <vector>

namespace zbddc {

class PendingTasks {
  public:
    PendingTasks(PendingTasks &&) noexcept;
    PendingTasks &operator=(PendingTasks &&) noexcept;
    ~PendingTasks(); // waits for the work

    // Whether get() would return without waiting for the device or the worker (never blocks).
    bool ready();
    // Waits for the work and finishes the answers.
    void wait();
    // The answers, one per case, as runTasks returns them; waits first. Once: a second call
    // returns no answers.
    std::vector<Result<TaskResult>> get();
    // Whether the work went onto the caller's CUDA stream (else onto a worker thread).
    bool onStream() const;

    struct State;

  private:
    explicit PendingTasks(std::unique_ptr<State> state);
    friend PendingTasks runTasksAsync(Model &, Task, std::span<const Evidence>, const TaskOptions &,
                                      void *);
    std::unique_ptr<State> state_;
};

// `cudaStream`: a CUstream of the model's GPU (its primary context, where the CUDA runtime API's
// streams live), passed as void * since zbddc loads libcuda at run time and its headers name no
// CUDA type; nullptr is the legacy default stream, whose copies block the caller.
PendingTasks runTasksAsync(Model &model, Task task, std::span<const Evidence> cases,
                           const TaskOptions &options = {}, void *cudaStream = nullptr);

} // namespace zbddc
