// A route: how a model becomes answers. Each (mlf, jt, be, lbp) is found by name in one table,
// as the tensor executors are (tensor_executor.h): which model kinds it takes, what it estimates
// a run to cost, and how it compiles a model into a `Route` that answers tasks over batches.
#pragma once

#include "pipeline/model_file.h"
#include "pipeline/order_choice.h"
#include "pipeline/target.h"
#include "runtime/evidence.h"
#include "runtime/tasks.h"

#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc::pipeline {

// The MLF route's circuit: how the CPU runs it and what a GPU run leaves to the host.
struct CircuitOptions {
    int optLevel = 0; // the LLVM JIT's -O level (0: linear-time fast path; > 0 implies the JIT)
    enum class CpuCode : uint8_t { Auto, Jit, Loop };
    CpuCode cpuCode = CpuCode::Auto; // JIT code or the data-driven batched loop
    std::optional<uint32_t> hostLevelOps; // GPU: narrow end levels on the host's JIT
    bool any() const { return optLevel > 0 || cpuCode != CpuCode::Auto || hostLevelOps; }
};

// Bucket elimination's own choices.
struct EliminationOptions {
    bool incompleteTables = false;  // Bistaffa et al. 2017 §IV
    uint64_t splitThreshold = 0;    // 0: the executor's default (host/device split)
};

// Loopy belief propagation's; unset values (0, negative, "") take the runtime's defaults.
struct LoopyFlags {
    uint32_t iterations = 0;
    double tolerance = -1;
    double damping = -1;
    std::string updateOrder; // flooding or residual
};

// auto's pilot (route_pilot.h): where the estimates of the MLF and the junction tree do not
// separate them clearly, both are compiled, a few cases timed on each, and the faster over the
// batch kept; the choice is remembered per model file, device, task and batch size.
struct PilotOptions {
    bool enabled = true;       // false: the estimate alone decides (reproducible runs)
    double band = 32;          // the pilot runs where the estimates lie within this factor
    std::vector<Evidence> cases; // cases to time (the batch's first, pilotCasesFor of them)
    std::string cacheDir;      // "": route-choice/ in userCacheFolder() (ir/file_io.h)
    bool useCache = true;      // false: time again, and remember the new choice
};

// How many of a batch's first cases the pilot times (fewer or none: empty evidence instead).
size_t pilotCasesFor(size_t batch);

struct OpenOptions {
    std::string route = "auto"; // a name of routeTable(), or auto
    Target target;
    ReadingOptions reading;
    OrderOptions order;
    CircuitOptions circuit;
    EliminationOptions elimination;
    LoopyFlags loopy;
    bool approximate = false;   // auto may fall back to lbp where no exact route fits
    size_t expectedCases = 1;   // the route and device choice weigh the batch size
    std::optional<Task> task;   // the task to come, where known (auto weighs it)
    // A request that only the MLF's circuit has, in the caller's words ("-O compiles the
    // circuit"): auto then takes the MLF, and says so.
    std::string circuitOnly;
    // A model.so of a network's MLF answers PR and MAR through the network ABI unless the
    // circuit's own path is asked for (free inputs, circuit options, a numeric mode).
    bool freeInputs = false;
    PilotOptions pilot;
};

// What `save` writes: a .so (the route's library), a .zdd or a circuit dump (.txt).
struct SaveOptions {
    int optLevel = 0;
    std::string numeric = "float64"; // float64 or log, compiled into a model.so
    std::string semiring;            // "" the model's own
    std::string symbolPrefix;        // exports also as PREFIX_...
    uint32_t batch = 0;              // jt: cases per run compiled in (0: by table size)
    bool emitC = false;              // be: the problem.so's C instead of the .so
};

// A model compiled for one route.
class Route {
  public:
    virtual ~Route() = default;
    virtual const std::vector<Variable> &variables() const = 0;
    virtual std::vector<Task> tasks() const = 0;
    // One result per case; a case that cannot be answered carries its own error.
    virtual std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                                   const TaskOptions &options) = 0;
    // The route's library (.so) at `path`; by default the route writes none.
    virtual Status save(const std::string &path, const SaveOptions &options);
    // Forget the calls answered so far (auto's pilot, route_pilot.h): a route that changes how
    // it answers after its first calls (the junction tree's kept model) starts from the user's
    // first call, so a run's answers do not depend on whether a pilot ran.
    virtual void forgetCalls() {}
    // The stages the route passes through that --emit= can stop at, in order (of zbdd, circuit,
    // schedule, tensor, c, ll, cu, ptx), and one of them as text; by default none.
    virtual std::vector<std::string> stages() const { return {}; }
    virtual Status emit(const std::string &stage, std::ostream &out, const SaveOptions &options);
    // Notes on how the run went (a device fallen back from, a flag ignored), said once.
    std::vector<std::string> notes;
    // What the route's own reading of the model accepted (file:line: warnings), said once.
    std::vector<Diagnostic> warnings;

  protected:
    // Once per route: where a GPU was asked for (cuda, split) and the work `ran` elsewhere, why.
    void noteFallback(DeviceKind asked, DeviceKind ran, const std::string &why);

  private:
    bool fellBack_ = false;
};

// What opening hands a route: the model read, the options, and the device settled.
struct RouteInput {
    ModelFile &model;
    const OpenOptions &options;
    const Placement &placement;
};

struct RouteKind {
    std::string_view name;
    bool exact = true;
    bool (*takes)(ModelKind kind);
    // The work of answering `cases` cases, in clique-entry units (route_choice.cpp), or nothing
    // where the route cannot say; onGpu: where the run would go.
    std::optional<double> (*estimate)(RouteInput in, std::string &what) = nullptr;
    Result<std::unique_ptr<Route>> (*compile)(RouteInput in) = nullptr;
};

// mlf, jt, be, lbp.
std::span<const RouteKind> routeTable();
const RouteKind *findRoute(std::string_view name);

// Each route's entry (route_*.cpp).
extern const RouteKind kMlfRoute, kJunctionTreeRoute, kEliminationRoute, kLoopyRoute;
// A compiled library (model.so, network.so, problem.so) answering through its C ABI, under the
// route that wrote it (route_library.cpp).
Result<std::unique_ptr<Route>> openLibraryRoute(RouteInput in, std::string &route);

} // namespace zbddc::pipeline
