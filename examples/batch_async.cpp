// zbddc as a C++ library: load a model, answer PR, MAR and MPE for a batch of evidence cases, once
// with runTasks (synchronous) and once with runTasksAsync (on a CUDA stream of ours where the model
// runs on a GPU, on a worker thread where it runs on the CPU), and print both. docs/cpp-api.md
// walks through it; tests/examples checks its answers against the reference evaluator.
//
//   zbdd_batch_async [MODEL [CASE...]]
//
// MODEL: a .zdd or a network (.bif, .uai, .net, .xmlbif); examples/wetgrass.zdd by default, with
// four cases. A CASE is "VAR=state,..." ("" for no evidence); a model without cases gets one
// case of no evidence.
#include "runtime/evidence.h"
#include "runtime/tasks.h"
#include "runtime/tasks_async.h"
#include "pipeline/load_model.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/driver.h" // only to make a stream, as a CUDA program would (cuStreamCreate)
#endif

#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

using namespace zbddc;

namespace {

// One answer on one line: "P(e)=...", then the marginals (MAR) or the assignment (MPE).
std::string describe(const Result<TaskResult> &r, const ModelInterface &model) {
    if (!r)
        return "error: " + r.error().message;
    char number[32];
    std::snprintf(number, sizeof number, "%.6g", r->value);
    std::string line = (r->task == Task::Mpe ? "max P(x,e)=" : "P(e)=") + std::string(number);
    for (size_t v = 0; v < r->marginals.size(); ++v) {
        line += " " + model.variables[v].name + ":";
        for (double p : r->marginals[v]) {
            std::snprintf(number, sizeof number, " %.6g", p);
            line += number;
        }
    }
    for (size_t v = 0; v < r->assignment.size(); ++v) {
        const uint32_t s = r->assignment[v];
        line += " " + model.variables[v].name + "=" +
                (s < model.variables[v].states.size() ? model.variables[v].states[s] : "?");
    }
    return line;
}

// The caller's CUDA stream where the model runs on a GPU, else none (the async call ignores it).
// A program with the CUDA runtime would pass its cudaStream_t: it is a CUstream.
struct Stream {
    void *handle = nullptr;
#ifdef ZBDDC_HAVE_CUDA_BACKEND
    cuda::Device *device = nullptr;
    explicit Stream(const Model &model) {
        if (model.device() != DeviceKind::Cuda)
            return;
        auto d = cuda::openDevice(0);
        auto s = d ? (*d)->createStream() : Result<cuda::StreamHandle>(d.error());
        if (!s)
            return; // runTasksAsync then enqueues on the default stream
        device = *d;
        handle = *s;
    }
    ~Stream() {
        if (handle)
            (void)device->destroyStream(handle);
    }
#else
    explicit Stream(const Model &) {}
#endif
};

} // namespace

int main(int argc, char **argv) {
    const std::string path = argc > 1 ? argv[1] : ZBDDC_EXAMPLES_DIR "/wetgrass.zdd";
    std::vector<std::string> lists(argv + std::min(argc, 2), argv + argc);
    if (argc == 1) // the bundled example; the last case observes Rain twice: P(e) = 0
        lists = {"", "WetGrass=yes", "Rain=no,WetGrass=yes", "Rain=yes,Rain=no"};
    else if (argc == 2)
        lists = {""};

    auto circuit = loadCircuit(path);
    if (!circuit) {
        std::fprintf(stderr, "%s\n", circuit.error().str().c_str());
        return 1;
    }
    // DeviceKind::Auto (the default): the GPU where one is usable, else the CPU.
    Model model = Model::fromCircuit(std::move(*circuit));
    const ModelInterface &interface = model.interface();
    std::vector<Evidence> cases;
    for (const std::string &list : lists) {
        auto e = parseEvidenceList(list, interface.variables);
        if (!e) {
            std::fprintf(stderr, "evidence \"%s\": %s\n", list.c_str(), e.error().message.c_str());
            return 1;
        }
        cases.push_back(std::move(*e));
    }
    Stream stream(model);
    std::printf("model: %s, %zu variables, %zu cases\n", path.c_str(), interface.variables.size(),
                cases.size());
    for (size_t i = 0; i < cases.size(); ++i)
        std::printf("case %zu: %s\n", i, lists[i].empty() ? "(no evidence)" : lists[i].c_str());

    bool same = true;
    for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
        const std::vector<Result<TaskResult>> sync = runTasks(model, task, cases);

        // Returns once the work is enqueued (or handed to a worker thread). The cases and the
        // model must outlive `pending`, and the model takes no other call until it is done.
        PendingTasks pending = runTasksAsync(model, task, cases, {}, stream.handle);
        if (task == Task::Pr)
            std::printf("asynchronous: %s\n", pending.onStream()
                                                  ? "on the caller's CUDA stream"
                                                  : "on a worker thread (no GPU: no stream used)");
        while (!pending.ready()) // the caller's own work would go here
            std::this_thread::yield();
        const std::vector<Result<TaskResult>> async = pending.get();

        for (size_t i = 0; i < cases.size(); ++i) {
            const std::string a = describe(sync[i], interface), b = describe(async[i], interface);
            std::printf("%s case %zu sync: %s\n", taskName(task), i, a.c_str());
            std::printf("%s case %zu async: %s\n", taskName(task), i, b.c_str());
            same = same && a == b;
        }
    }
    std::printf("device: %s\n", model.describe(Numeric::Float64).c_str());
    std::printf("%s\n", same ? "the asynchronous answers equal the synchronous ones"
                             : "the asynchronous answers DIFFER from the synchronous ones");
    return same ? 0 : 1;
}
