// `zbddc run MODEL --task ...`: the flags checked against the flag table, turned into the
// pipeline's OpenOptions, the model opened through Session on the route it chooses, and the
// answers printed (UAI text or JSON; a cost network's optimum as its own JSON object).
#include "pipeline/load_model.h"
#include "runtime/device_list.h"
#include "runtime/loopy/loopy_bp.h"
#include "runtime/tensor/tensor_executor.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/flag_table.h"
#include "tools/zbddc/output.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace zbddc::cli {

namespace {

using pipeline::ModelKind;

pipeline::OpenOptions openOptions(const RunOptions &o, size_t cases, std::optional<Task> task) {
    pipeline::OpenOptions open;
    open.route = o.route;
    open.target.device = parseDeviceKind(o.device).value_or(DeviceKind::Auto);
    open.target.devices = o.costNetwork.devices;
    open.target.numeric = pipeline::parseNumericChoice(o.numeric).value_or(NumericChoice::Auto);
    open.target.gpuSwitches = gpuSwitchesFromVariables(std::getenv); // ZBDDC_GPU_* (docs/cli.md)
    open.reading = o.modelOptions;
    open.order = o.costNetwork.order;
    open.order.searchMs = o.searchMs;
    open.circuit.optLevel = o.optLevel;
    using C = pipeline::CircuitOptions::CpuCode;
    open.circuit.cpuCode = o.cpuLoop ? C::Loop : o.cpuJit ? C::Jit : C::Auto;
    open.circuit.hostLevelOps = o.hostLevelOps;
    open.elimination.incompleteTables = o.costNetwork.incompleteTables;
    open.elimination.splitThreshold = o.costNetwork.splitThreshold;
    open.loopy = o.loopy;
    open.approximate = o.loopy.approximate;
    open.expectedCases = cases;
    open.task = task;
    open.freeInputs = !o.inputs.empty();
    open.pilot.enabled = !o.estimateOnly;
    return open;
}

void printNotes(pipeline::Session &session) {
    for (const std::string &note : session.takeNotes())
        std::cerr << "zbddc: note: " << note << "\n";
}

// An error that names no file names the model.
Diagnostic atModel(const RunOptions &o, const Diagnostic &d) {
    return d.file.empty() ? errorAt(o.model, 0, d.message) : d;
}

} // namespace

// A cost network's optimum (bucket elimination, a problem.so, DPOP): without --json the UAI MPE
// block alone and the cost on stderr; with it, one JSON object (docs/cli.md). `moreJson`: further
// members, each written as `, "name": value`.
int printSolution(const RunOptions &o, const TaskResult &r, const std::vector<Variable> &variables,
                  const std::string &moreJson) {
    // No assignment is consistent (a MARKOV network whose every assignment has probability 0):
    // an assignment printed then would read as an answer, as P(e) = 0 is no answer on a network.
    if (*r.cost == "null")
        return reportError(
            errorAt(o.model, 0,
                    "no assignment" +
                        std::string(o.evidence.empty() ? "" : " consistent with the evidence") +
                        " costs less than the upper bound (in a MARKOV network: "
                        "every one has probability 0), so there is no MPE"));
    std::ostringstream text;
    if (o.json) {
        pipeline::writeJsonSolution(r, variables, moreJson, text);
    } else {
        std::cerr << "cost " << *r.cost << "\n";
        pipeline::writeUaiResult(r, variables, text);
    }
    return emitRunOutput(text.str(), o.output, o.uaiOutput, o.model, "MPE");
}

namespace {

// The answers: a case that cannot be answered is reported on its own, on stderr and in the JSON;
// the other cases are still printed, and the exit status is then 1. A batch .evid prints in the
// 2010 layout, anything else as one case (output.h).
int printTaskResults(const RunOptions &o, Task task, const std::vector<Result<TaskResult>> &batch,
                     const std::vector<Variable> &variables, bool batchLayout) {
    // Every case failing alike is the run failing, not its cases (a backend that cannot load, say):
    // one line, and no answers written.
    const auto failedAlike = [&](const Result<TaskResult> &r) {
        return !r && r.error().str() == batch.front().error().str();
    };
    if (batch.size() > 1 && !batch.front() && std::all_of(batch.begin(), batch.end(), failedAlike))
        return reportError(atModel(o, batch.front().error()));
    size_t failed = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
        if (batch[i])
            continue;
        std::cerr << "zbddc: " << (batch.size() > 1 ? "case " + std::to_string(i) + ": " : "")
                  << atModel(o, batch[i].error()).str() << "\n";
        ++failed;
    }
    if (batch.size() == 1 && batch[0] && batch[0]->elimination && batch[0]->cost)
        return printSolution(o, *batch[0], variables, "");
    if (!o.json) {
        std::cerr << pipeline::errorBoundNotes(batch);
        for (const Result<TaskResult> &r : batch) // loopy BP's assignments of a cost network
            if (r && r->cost)
                std::cerr << "cost " << (*r->cost == "null" ? "infeasible" : *r->cost) << "\n";
    }
    std::ostringstream text;
    if (o.json) {
        text << (batch.size() > 1 ? "[" : "");
        for (size_t i = 0; i < batch.size(); ++i) {
            text << (i ? "," : "");
            if (batch[i])
                writeJsonResult(*batch[i], variables, text);
            else
                text << "{\"case\":" << i << ",\"error\":" << jsonString(batch[i].error().message)
                     << "}";
        }
        text << (batch.size() > 1 ? "]\n" : "\n");
    } else if (batchLayout || batch.size() > 1) {
        pipeline::writeUaiBatch(task, batch, variables, text);
    } else if (batch.size() == 1 && batch[0]) {
        pipeline::writeUaiResult(*batch[0], variables, text); // a failed single case prints nothing
    }
    if (const int status =
            emitRunOutput(text.str(), o.output, o.uaiOutput, o.model, uaiTaskLine(task)))
        return status;
    return failed ? 1 : 0;
}

} // namespace

int runCommand(const RunOptions &o) {
    auto kind = pipeline::modelKindOf(o.model);
    if (!kind)
        return reportError(kind.error());
    const bool costNetwork = *kind == ModelKind::CostNetwork || *kind == ModelKind::ProblemLibrary;
    std::optional<Task> task = o.task.empty() ? pipeline::defaultTask(*kind) : parseTask(o.task);
    const uint16_t columns = candidateColumns(
        *kind, pipeline::possibleRoutes(*kind, o.model, o.route, task, o.loopy.approximate), false);
    if (!columns)
        return usageError("--route " + o.route + " does not take " + o.model + " (a " +
                          pipeline::modelKindName(*kind) + ")");
    if (auto refused = refusedFlag(o.given, runFlagRules(), columns, *kind, o.route))
        return usageError(*refused);
    if (o.loopy.approximate && o.route != "auto")
        return usageError("--approximate lets --route auto fall back to lbp; it does not apply "
                          "to --route " +
                          o.route);
    if (!o.evidenceFormat.empty() && o.evidence.empty())
        return usageError("--evidence-format applies to an --evidence file");
    if (!o.costNetwork.devices.empty())
        if (auto request = parseDeviceRequest(o.costNetwork.devices); !request)
            return usageError(request.error().message);
    if (o.costNetwork.distributed) // DPOP over MPI ranks, in place of bucket elimination
        return runDistributedCommand(o);

    auto model = pipeline::readModel(o.model, o.modelOptions);
    if (!model)
        return reportError(model.error());
    if (auto refused = pipeline::libraryRouteRefusal(*model, o.route))
        return usageError(*refused); // a usage error, as any route's
    printWarnings(model->warnings);
    model->warnings.clear();
    std::vector<Diagnostic> contradicted;
    auto cases = pipeline::readRunCases(o.evidence, o.evidenceFormat, model->variables, *kind,
                                        *task, o.route, contradicted);
    printWarnings(contradicted, "note");
    if (!cases)
        return reportError(cases.error());
    auto free = pipeline::readFreeInputs(o.inputs);
    if (!free)
        return reportError(free.error());
    // --weight-cases: the circuit's weights are its free inputs, one answer per weighting.
    const std::vector<std::vector<double>> weightings = std::move(model->weightCaseInputs);
    if (!weightings.empty() && !o.inputs.empty())
        return usageError("--weight-cases sets the circuit's free inputs; it takes no --inputs");
    if (!weightings.empty() && cases->cases.size() != 1)
        return usageError("--weight-cases takes one evidence case for every weighting, not a "
                          "batch of " +
                          std::to_string(cases->cases.size()));
    const size_t expected = weightings.empty() ? cases->cases.size() : weightings.size();
    pipeline::OpenOptions open = openOptions(o, expected, task);
    open.pilot.cases.assign(cases->cases.begin(), // auto's pilot times the batch's first cases
                            cases->cases.begin() +
                                std::min(cases->cases.size(), pipeline::pilotCasesFor(expected)));
    auto session = pipeline::Session::open(std::move(*model), open);
    if (!session)
        return reportError(withFlagHints(session.error()));
    pipeline::Session &s = **session;
    printWarnings(s.takeWarnings()); // what the route's own reading accepted (a MARKOV network's)
    printNotes(s);
    std::vector<std::string> tasks;
    for (Task t : s.tasks())
        tasks.push_back(taskName(t));
    if (std::find(tasks.begin(), tasks.end(), taskName(*task)) == tasks.end())
        return usageError("a " + std::string(pipeline::modelKindName(*kind)) + " on route " +
                          s.route() + " supports only --task " + choiceList(tasks));
    std::vector<Result<TaskResult>> results;
    if (weightings.empty()) {
        results =
            s.answer(*task, cases->cases, {NumericChoice::Auto, *free}); // the Target's arithmetic
    } else { // one batch of the weightings (each its own free inputs) under the one evidence case
        const std::vector<Evidence> repeated(weightings.size(), cases->cases[0]);
        TaskOptions batch{NumericChoice::Auto, {}};
        batch.caseFreeInputs = weightings;
        results = s.answer(*task, repeated, batch);
    }
    printNotes(s);
    if (s.route() == "be" && results.size() == 1 && !results[0]) // one solve, one error line
        return reportError(atModel(o, results[0].error()));
    for (Result<TaskResult> &r : results)
        if (r && !s.routeIsChosen())
            r->route.clear();
    if (s.route() == "lbp") // approximate answers say so, and how many converged
        std::cerr << "zbddc: note: "
                  << pipeline::loopySummary(results, s.routeWhy(),
                                            o.loopy.tolerance >= 0 ? o.loopy.tolerance
                                                                   : LoopyOptions{}.tolerance)
                  << "\n";
    else if (s.route() == "jt" && (*kind == ModelKind::Network || costNetwork) && !o.json)
        std::cerr << "zbddc: note: route jt: " << s.routeWhy() << "\n";
    return printTaskResults(o, *task, results, s.variables(), cases->batch || !weightings.empty());
}

} // namespace zbddc::cli
