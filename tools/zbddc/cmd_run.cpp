// `zbddc run MODEL --task ...`: answer queries on a model.
#include "runtime/bucket_elimination/tensor_executor.h"
#include "runtime/device_list.h"
#include "ir/text_lines.h"
#include "runtime/model.h"
#include "runtime/network_library.h"
#include "runtime/shared_object_check.h"
#include "tools/zbddc/cmd_run_cost_network.h"
#include "tools/zbddc/commands.h"
#include "pipeline/load_model.h"
#include "tools/zbddc/output.h"

#include <filesystem>
#include <iostream>
#include <sstream>

namespace zbddc::cli {

namespace {

Result<EvidenceFile> readEvidenceCases(const RunOptions &o,
                                       const std::vector<Variable> &variables) {
    if (o.evidence.empty())
        return EvidenceFile{{noEvidence(variables)}, false};
    if (o.evidence.find('=') == std::string::npos) {
        if (!std::filesystem::exists(o.evidence))
            return error("--evidence '" + o.evidence +
                         "': no such file (evidence is a UAI .evid "
                         "file, or a list VAR=state[,VAR=state...])");
        const auto layout = parseEvidenceLayout(o.evidenceFormat).value_or(EvidenceLayout::Detect);
        return readUaiEvidenceFile(o.evidence, variables, layout);
    }
    auto e = parseEvidenceList(o.evidence, variables);
    if (!e)
        return e.error();
    return EvidenceFile{{std::move(*e)}, false};
}

} // namespace

Result<EvidenceFile> evidenceCases(const RunOptions &o, const std::vector<Variable> &variables) {
    auto file = readEvidenceCases(o, variables);
    if (!file)
        return file;
    // A contradicted case is answered as P(e) = 0; say why, so it is not mistaken for a model's
    // zero.
    std::vector<Diagnostic> notes;
    for (size_t i = 0; i < file->cases.size(); ++i)
        if (const std::string &why = file->cases[i].contradiction; !why.empty())
            notes.push_back(
                error((file->cases.size() > 1 ? "case " + std::to_string(i) + ": " : "") + why +
                      ", so P(e) = 0"));
    printWarnings(notes, "note");
    return file;
}

int printTaskResults(const RunOptions &o, Task task, const std::vector<Result<TaskResult>> &batch,
                     const std::vector<Variable> &variables, bool batchLayout) {
    // A case that cannot be answered (MAR or MPE with P(e) = 0) is reported on its own, on stderr
    // and in the JSON; the other cases are still printed, and the exit status is then 1.
    size_t failed = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
        if (batch[i])
            continue;
        const Diagnostic &d = batch[i].error();
        const Diagnostic at = d.file.empty() ? errorAt(o.model, 0, d.message) : d;
        std::cerr << "zbddc: " << (batch.size() > 1 ? "case " + std::to_string(i) + ": " : "")
                  << at.str() << "\n";
        ++failed;
    }
    if (!o.json)
        printErrorBoundNote(batch, std::cerr);
    std::ostringstream text;
    if (o.json) {
        text << (batch.size() > 1 ? "[" : "");
        for (size_t i = 0; i < batch.size(); ++i) {
            text << (i ? "," : "");
            if (batch[i])
                printJson(*batch[i], variables, text);
            else
                text << "{\"case\":" << i << ",\"error\":" << jsonString(batch[i].error().message)
                     << "}";
        }
        text << (batch.size() > 1 ? "]\n" : "\n");
    } else if (batchLayout || batch.size() > 1) {
        printUaiBatch(task, batch, variables, text);
    } else if (batch.size() == 1 && batch[0]) {
        printUai(*batch[0], variables, text); // a failed single case prints nothing
    }
    if (const int status =
            emitRunOutput(text.str(), o.output, o.uaiOutput, o.model, uaiTaskLine(task)))
        return status;
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

// A model and the cases it answers.
struct OpenedModel {
    Model model;
    EvidenceFile cases;
};

// A model.so is dlopened and answers through its C ABI; every other input becomes a circuit for
// the device asked for. `--device auto` settles once the cases are read: a single case runs on
// the CPU (singleCaseRunsOnCpu), a batch on the GPU where one is usable.
Result<OpenedModel> openModel(const RunOptions &o) {
    if (fileExtension(o.model) == ".so") {
        if (o.device == "cuda" || o.device == "reference")
            std::cerr << "zbddc: note: a model.so runs its own compiled CPU code; --device "
                      << o.device << " is ignored\n";
        auto model = Model::fromSharedObject(o.model);
        if (!model)
            return model.error();
        auto cases = evidenceCases(o, model->interface().variables);
        if (!cases)
            return cases.error();
        return OpenedModel{std::move(*model), std::move(*cases)};
    }
    auto circuit = o.modelOptions.loadCircuit(o.model);
    if (!circuit)
        return circuit.error();
    auto cases = evidenceCases(o, interfaceOf(*circuit).variables);
    if (!cases)
        return cases.error();
    DeviceOptions options;
    options.device = parseDeviceKind(o.device).value_or(DeviceKind::Auto);
    if (options.device == DeviceKind::Auto && singleCaseRunsOnCpu(cases->cases.size())) {
        options.device = DeviceKind::Cpu;
        options.choice = "auto: one case";
    }
    options.cpuOptLevel = o.optLevel;
    // A process answers once: its one-case pass is a first call, where host phases cost more
    // than they save (BENCHMARKS.md, "Host phases"); the API's later calls gain from them.
    options.hostLevelOps = o.hostLevelOps.value_or(0);
    using C = DeviceOptions::CpuCode;
    options.cpuCode = o.cpuLoop ? C::Loop : o.cpuJit || o.optLevel > 0 ? C::Jit : C::Auto;
    return OpenedModel{Model::fromCircuit(std::move(*circuit), options), std::move(*cases)};
}

// A model.so of a network's MLF answers PR and MAR through the network ABI, as a network.so
// does (runtime/network_library.h), unless a flag asks for what only the circuit path has.
bool answersThroughNetworkAbi(const RunOptions &o, Task task) {
    if (fileExtension(o.model) != ".so" || sharedObjectKind(o.model) != "model.so" ||
        !o.inputs.empty() || o.optLevel > 0 || o.cpuLoop || o.cpuJit || o.numeric != "auto")
        return false;
    auto lib = NetworkLibrary::open(o.model);
    return lib && !lib->metadata().variables.empty() && lib->answers(task);
}

NumericChoice numericChoice(const std::string &name) {
    return name == "float64"   ? NumericChoice::Float64
           : name == "log"     ? NumericChoice::Log
           : name == "float32" ? NumericChoice::Float32
           : name == "log32"   ? NumericChoice::Log32
                               : NumericChoice::Auto;
}

} // namespace

namespace {

// --devices on the MLF route: the circuit on each GPU named, for cases split evenly over them;
// none where one device runs (a note where the flag could not apply).
Result<std::vector<Model>> spreadModels(const RunOptions &o, const Model &model) {
    const std::string &devices = o.costNetwork.devices;
    std::vector<Model> models;
    if (devices.empty())
        return models;
    if (model.device() != DeviceKind::Cuda) {
        std::cerr << "zbddc: note: --devices " << devices << " ignored: the model runs on the CPU\n";
        return models;
    }
    auto gpus = resolveGpuRequest(devices);
    if (!gpus)
        return gpus.error();
    if (gpus->size() > 1)
        for (int ordinal : *gpus) {
            auto m = model.onGpu(ordinal);
            if (!m)
                return m.error();
            models.push_back(std::move(*m));
        }
    return models;
}

} // namespace

int runCommand(const RunOptions &o) {
    if (o.route == "lbp")
        return runLoopyCommand(o, "asked for (--route lbp)");
    if (o.loopy.anyGiven()) {
        std::cerr << "zbddc: --iterations, --tolerance, --damping, --schedule and --lbp-program "
                     "apply to --route lbp only\n";
        return 2;
    }
    if (o.loopy.approximate && o.route != "auto") {
        std::cerr << "zbddc: --approximate lets --route auto fall back to lbp; it does not apply "
                     "to --route "
                  << o.route << "\n";
        return 2;
    }
    if (fileExtension(o.model) == ".so" && NetworkLibrary::isNetworkLibrary(o.model))
        return runNetworkLibraryCommand(o); // a network.so (route jt)
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
    const CostNetworkRunOptions &elimination = o.costNetwork;
    if (elimination.incompleteTables ||
        elimination.splitThreshold != CostNetworkRunOptions{}.splitThreshold) {
        std::cerr << "zbddc: --incomplete-tables and --split-threshold apply to .wcsp and MARKOV "
                     ".uai problems only\n";
        return 2;
    }
    if (!elimination.devices.empty()) {
        if (auto request = parseDeviceRequest(elimination.devices); !request) {
            std::cerr << "zbddc: " << request.error().message << "\n";
            return 2;
        }
    }
    const bool orderFlags =
        !elimination.order.orderFile.empty() || !elimination.order.heuristic.empty();
    if (orderFlags && (!isNetworkFile(o.model) || o.route == "mlf")) {
        std::cerr << "zbddc: --order and --heuristic apply to the junction-tree route (networks) "
                     "and to cost networks, not to "
                  << (isNetworkFile(o.model) ? "--route mlf" : "'" + o.model + "'") << "\n";
        return 2;
    }
    std::string routeWhy;
    if (isNetworkFile(o.model)) {
        if (auto handled = runNetworkByRoute(o, routeWhy))
            return *handled;
        if (orderFlags)
            std::cerr << "zbddc: note: route auto took the MLF; --order and --heuristic do not "
                         "apply to it\n";
    } else if (o.route == "jt") {
        std::cerr << "zbddc: --route jt needs a network (.bif, .xmlbif, .net, BAYES .uai)\n";
        return 2;
    }
    if (answersThroughNetworkAbi(o, *task)) // a network's MLF compiled into a model.so
        return runNetworkLibraryCommand(o);
    auto opened = openModel(o);
    if (!opened)
        return reportError(opened.error());
    Model *model = &opened->model;
    EvidenceFile *cases = &opened->cases;
    const std::vector<Variable> &variables = model->interface().variables;
    auto free = freeInputValues(o.inputs);
    if (!free)
        return reportError(free.error());

    TaskOptions options{numericChoice(o.numeric), *free};
    auto gpus = spreadModels(o, *model);
    if (!gpus)
        return reportError(gpus.error());
    std::vector<Result<TaskResult>> results =
        gpus->empty() ? runTasks(*model, *task, cases->cases, options)
                      : runTasksOnDevices(*gpus, *task, cases->cases, options);
    if (o.device == "cuda" && model->device() != DeviceKind::Cuda && !model->fallbackNote().empty())
        std::cerr << "zbddc: note: " << model->fallbackNote() << "; ran on the CPU\n";
    for (Result<TaskResult> &r : results)
        if (r && isNetworkFile(o.model)) {
            r->route = "mlf";
            r->routeWhy = routeWhy;
        }
    return printTaskResults(o, *task, results, variables, cases->batch);
}

} // namespace zbddc::cli
