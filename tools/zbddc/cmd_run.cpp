// `zbddc run MODEL --task ...`: answer queries on a model.
#include "tools/zbddc/cmd_run_cost_network.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/output.h"
#include "tools/zbddc/load_model.h"
#include "ir/text_lines.h"
#include "runtime/model.h"

#include <iostream>

namespace zbddc::cli {

Result<std::vector<Evidence>> evidenceCases(const std::string &spec,
                                            const std::vector<Variable> &variables) {
    if (spec.empty())
        return std::vector<Evidence>{noEvidence(variables)};
    if (spec.find('=') == std::string::npos)
        return readUaiEvidenceFile(spec, variables);
    auto e = parseEvidenceList(spec, variables);
    if (!e)
        return e.error();
    return std::vector<Evidence>{std::move(*e)};
}

int printTaskResults(const RunOptions &o, std::vector<Result<TaskResult>> &batch,
                     const std::vector<Variable> &variables) {
    // A case that cannot be answered (MAR or MPE with P(e) = 0) is reported on its own, on stderr
    // and in the JSON; the other cases are still printed, and the exit status is then 1.
    size_t failed = 0;
    auto caseError = [&](size_t i, const Diagnostic &d) {
        const Diagnostic at = d.file.empty() ? errorAt(o.model, 0, d.message) : d;
        std::cerr << "zbddc: " << (batch.size() > 1 ? "case " + std::to_string(i) + ": " : "")
                  << at.str() << "\n";
        ++failed;
    };
    if (o.json) {
        std::cout << (batch.size() > 1 ? "[" : "");
        for (size_t i = 0; i < batch.size(); ++i) {
            std::cout << (i ? "," : "");
            if (batch[i]) {
                printJson(*batch[i], variables, std::cout);
            } else {
                caseError(i, batch[i].error());
                std::cout << "{\"case\":" << i << ",\"error\":" << jsonString(batch[i].error().message)
                          << "}";
            }
        }
        std::cout << (batch.size() > 1 ? "]\n" : "\n");
    } else {
        for (size_t i = 0; i < batch.size(); ++i) {
            if (batch[i])
                printUai(*batch[i], variables, std::cout);
            else
                caseError(i, batch[i].error());
        }
    }
    return failed ? 1 : 0;
}

namespace {

// Free-input values: whitespace-separated numbers.
Result<std::vector<double>> freeInputValues(const std::string &path) {
    std::vector<double> values;
    if (path.empty())
        return values;
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    TokenCursor in(*text, path);
    while (!in.atEnd()) {
        auto v = in.number("input value");
        if (!v)
            return v.error();
        values.push_back(*v);
    }
    return values;
}

// A model.so is dlopened and answers through its C ABI; every other input becomes a circuit for
// the device asked for.
Result<Model> openModel(const RunOptions &o) {
    if (fileExtension(o.model) == ".so") {
        if (o.device == "cuda" || o.device == "reference")
            std::cerr << "zbddc: note: a model.so runs its own compiled CPU code; --device "
                      << o.device << " is ignored\n";
        return Model::fromSharedObject(o.model);
    }
    auto circuit = o.modelOptions.loadCircuit(o.model);
    if (!circuit)
        return circuit.error();
    DeviceOptions options;
    options.device = parseDeviceKind(o.device).value_or(DeviceKind::Auto);
    options.cpuOptLevel = o.optLevel;
    options.cpuDataDriven = o.cpuLoop;
    return Model::fromCircuit(std::move(*circuit), options);
}

NumericChoice numericChoice(const std::string &name) {
    return name == "float64" ? NumericChoice::Float64 : name == "log" ? NumericChoice::Log : NumericChoice::Auto;
}

} // namespace

int runCommand(const RunOptions &o) {
    if (isCostNetworkRun(o)) // a .wcsp takes the bucket-elimination route
        return runCostNetworkCommand(o);
    if (o.device == "split") {
        std::cerr << "zbddc: --device split is for bucket elimination (.wcsp) only\n";
        return 2;
    }
    const auto task = parseTask(o.task.empty() ? "pr" : o.task);
    if (!task) {
        std::cerr << "zbddc: unknown task '" << o.task << "' (eval, pr, mar or mpe)\n";
        return 2;
    }
    std::string routeWhy;
    if (isNetworkFile(o.model)) {
        if (auto handled = runNetworkByRoute(o, routeWhy))
            return *handled;
    } else if (o.route == "jt") {
        std::cerr << "zbddc: --route jt needs a network (.bif, .xmlbif, .net, BAYES .uai)\n";
        return 2;
    }
    auto model = openModel(o);
    if (!model)
        return reportError(model.error());
    const std::vector<Variable> &variables = model->interface().variables;
    auto cases = evidenceCases(o.evidence, variables);
    if (!cases)
        return reportError(cases.error());
    auto free = freeInputValues(o.inputs);
    if (!free)
        return reportError(free.error());

    TaskOptions options{numericChoice(o.numeric), *free};
    std::vector<Result<TaskResult>> results = runTasks(*model, *task, *cases, options);
    if (o.device == "cuda" && model->device() != DeviceKind::Cuda && !model->fallbackNote().empty())
        std::cerr << "zbddc: note: " << model->fallbackNote() << "; ran on the CPU\n";
    for (Result<TaskResult> &r : results)
        if (r && isNetworkFile(o.model)) {
            r->route = "mlf";
            r->routeWhy = routeWhy;
        }
    return printTaskResults(o, results, variables);
}

} // namespace zbddc::cli
