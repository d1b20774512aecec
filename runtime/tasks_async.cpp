#include "runtime/tasks_async.h"

#include "runtime/task_batch.h"

#include <chrono>
#include <future>
#include <optional>
#include <utility>

namespace zbddc {

struct PendingTasks::State {
    bool onStream = false;
    // On the GPU: the batch's two halves and the pass enqueued between them.
    Model *model = nullptr;
    std::span<const Evidence> cases;
    TaskOptions options;
    TaskBatch batch;
    std::unique_ptr<EnqueuedPass> pass;
    // Elsewhere: runTasks on a worker thread.
    std::future<std::vector<Result<TaskResult>>> worker;
    // Either way, once finished (at once where nothing had to be enqueued).
    std::optional<std::vector<Result<TaskResult>>> answers;

    void failAll(const Diagnostic &d) { answers.emplace(cases.size(), Result<TaskResult>(d)); }
};

PendingTasks::PendingTasks(std::unique_ptr<State> state) : state_(std::move(state)) {}
PendingTasks::PendingTasks(PendingTasks &&) noexcept = default;
PendingTasks &PendingTasks::operator=(PendingTasks &&) noexcept = default;
PendingTasks::~PendingTasks() = default; // the pass and the worker's future wait for their work

bool PendingTasks::ready() {
    if (!state_ || state_->answers)
        return true;
    if (state_->worker.valid())
        return state_->worker.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    auto reached = state_->pass->ready();
    return !reached || *reached; // a failed query: wait() reports it without blocking
}

void PendingTasks::wait() {
    if (!state_ || state_->answers)
        return;
    State &s = *state_;
    if (s.worker.valid()) {
        s.answers = s.worker.get();
        return;
    }
    auto first = s.pass->wait();
    s.pass.reset();
    if (!first)
        return s.failAll(first.error());
    if (!first->adjoints.empty()) // every input's, of which finishBatch reads the indicators'
        first->adjoints = s.batch.inputs.varyingColumns(first->adjoints);
    if (first->traced) // MPE walked on the stream: finishBatch decodes only what a walk stopped
        s.batch.traced = std::move(*std::exchange(first->traced, std::nullopt));
    s.answers = finishBatch(*s.model, s.batch, s.cases, s.options, std::move(*first));
}

std::vector<Result<TaskResult>> PendingTasks::get() {
    wait();
    if (!state_)
        return {};
    return std::exchange(*state_->answers, {});
}

bool PendingTasks::onStream() const {
    return state_ && state_->onStream;
}

PendingTasks runTasksAsync(Model &m, Task task, std::span<const Evidence> cases,
                           const TaskOptions &opt, void *cudaStream) {
    auto s = std::make_unique<PendingTasks::State>();
    s->cases = cases;
    if (m.device() != DeviceKind::Cuda) {
        s->worker = std::async(std::launch::async,
                               [&m, task, cases, opt] { return runTasks(m, task, cases, opt); });
        return PendingTasks(std::move(s));
    }
    s->model = &m;
    s->options = opt;
    s->batch = beginBatch(m, task, cases, opt);
    const TaskBatch &b = s->batch;
    if (b.failed) {
        s->failAll(*b.failed);
        return PendingTasks(std::move(s));
    }
    if (b.valid.empty()) { // every case answered already (its error)
        s->answers = finishBatch(m, s->batch, cases, opt, {});
        return PendingTasks(std::move(s));
    }
    // MAR needs output 0's adjoints of every case: the backward pass goes on the stream too;
    // MPE one walk per case from output 0, also on the stream (runBatch's traceback).
    const std::optional<size_t> adjointsOf =
        task == Task::Mar ? std::optional<size_t>(0) : std::nullopt;
    const std::optional<size_t> tracebackOf =
        task == Task::Mpe ? std::optional<size_t>(0) : std::nullopt;
    auto pass = m.enqueue(b.ring, b.first, b.inputs.dense(), b.valid.size(), adjointsOf, cudaStream,
                          tracebackOf);
    if (!pass) { // a GPU engine without a stream (host phases: the ends run on the host)
        s->answers = runTasks(m, task, cases, opt);
        return PendingTasks(std::move(s));
    }
    if (!*pass) {
        s->failAll(pass->error());
        return PendingTasks(std::move(s));
    }
    s->onStream = true;
    s->pass = std::move(**pass);
    return PendingTasks(std::move(s));
}

} // namespace zbddc
