// A compiled library answering through its C ABI: a problem.so (bucket elimination), a
// network.so (either network route) or a model.so (the MLF's circuit), under the route that
// wrote it. Its code is compiled for the CPU: a device asked for is noted and not taken.
#include "pipeline/route.h"
#include "pipeline/route_solution.h"

namespace zbddc::pipeline {

namespace {

class ProblemLibraryRoute final : public Route {
  public:
    ProblemLibraryRoute(ProblemLibrary lib, CostNetwork shape, std::vector<Variable> variables)
        : lib_(std::move(lib)), shape_(std::move(shape)), variables_(std::move(variables)) {}
    const std::vector<Variable> &variables() const override { return variables_; }
    std::vector<Task> tasks() const override { return {Task::Mpe}; }
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &) override {
        return answerEachMpe(task, cases, "a problem.so answers mpe only",
                             [&](const Evidence &e) -> Result<TaskResult> {
                                 auto sol = lib_.solve(e.states);
                                 if (!sol)
                                     return sol.error();
                                 return taskResultOf(shape_, *sol);
                             });
    }

  private:
    ProblemLibrary lib_;
    CostNetwork shape_;
    std::vector<Variable> variables_;
};

// A network.so, or a model.so of a network's MLF answering through the same ABI; a model.so
// answers through its circuit ABI (a Model) where the network ABI cannot (eval, free inputs,
// circuit options, a numeric mode, a model.so of a .zdd).
class NetworkLibraryRoute final : public Route {
  public:
    NetworkLibraryRoute(std::optional<NetworkLibrary> lib, std::optional<Model> model,
                        std::vector<Variable> variables, bool circuitAbi)
        : lib_(std::move(lib)), model_(std::move(model)), variables_(std::move(variables)),
          circuitAbi_(circuitAbi) {}
    const std::vector<Variable> &variables() const override { return variables_; }
    std::vector<Task> tasks() const override {
        if (model_)
            return {Task::Eval, Task::Pr, Task::Mar, Task::Mpe};
        std::vector<Task> tasks;
        for (Task t : {Task::Pr, Task::Mar, Task::Mpe})
            if (lib_->answers(t))
                tasks.push_back(t);
        return tasks;
    }
    std::vector<Result<TaskResult>> answer(Task task, std::span<const Evidence> cases,
                                           const TaskOptions &options) override {
        if (lib_ && lib_->answers(task) && (!model_ || !circuitAbi_))
            return lib_->run(task, cases);
        if (model_)
            return runTasks(*model_, task, cases, options);
        return std::vector<Result<TaskResult>>(
            cases.size(), error(std::string("the library does not answer ") + taskName(task)));
    }

  private:
    std::optional<NetworkLibrary> lib_;
    std::optional<Model> model_;
    std::vector<Variable> variables_;
    bool circuitAbi_;
};

} // namespace

Result<std::unique_ptr<Route>> openLibraryRoute(RouteInput in, std::string &route) {
    ModelFile &m = in.model;
    const OpenOptions &o = in.options;
    std::unique_ptr<Route> opened;
    if (m.kind == ModelKind::ProblemLibrary) {
        route = "be";
        opened = std::make_unique<ProblemLibraryRoute>(std::move(*m.problemLibrary),
                                                       *m.costNetwork, m.variables);
    } else if (m.kind == ModelKind::NetworkLibrary) {
        route = m.networkLibrary->metadata().route;
        opened = std::make_unique<NetworkLibraryRoute>(std::move(m.networkLibrary), std::nullopt,
                                                       m.variables, false);
    } else {
        route = "mlf";
        // A model.so of a network's MLF carries the network ABI too (its metadata's variables).
        std::optional<NetworkLibrary> lib;
        if (auto network = NetworkLibrary::open(m.path);
            network && !network->metadata().variables.empty())
            lib = std::move(*network);
        const bool circuitAbi = o.freeInputs || o.circuit.any() ||
                                o.target.numeric != NumericChoice::Auto;
        opened = std::make_unique<NetworkLibraryRoute>(std::move(lib), std::move(m.modelLibrary),
                                                       m.variables, circuitAbi);
    }
    if (o.route != "auto" && o.route != route)
        return error(m.path + " holds route " + route + ", not --route " + o.route);
    const DeviceKind device = o.target.device;
    if ((device != DeviceKind::Auto && device != DeviceKind::Cpu) || o.target.hostDeviceSplit)
        opened->notes.push_back(std::string("a ") + modelKindName(m.kind) +
                                " runs its own compiled CPU code; --device " +
                                (o.target.hostDeviceSplit ? "split" : deviceKindName(device)) +
                                " is ignored");
    return opened;
}

} // namespace zbddc::pipeline
