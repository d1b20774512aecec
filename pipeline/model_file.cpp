#include "pipeline/model_file.h"
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/weight_cases.h"
#include "compiler/frontends/uai/uai_reader.h"
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/frontends/zdd/zdd_format.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "runtime/shared_objects/shared_object_check.h"
#include "compiler/mlf/mlf_compile.h"
#include "pipeline/load_model.h"
#include "support/progress.h"

#include <filesystem>
#include <utility>

namespace zbddc::pipeline {

const char *modelKindName(ModelKind kind) {
    switch (kind) {
    case ModelKind::Network: return "network";
    case ModelKind::Zdd: return "zdd";
    case ModelKind::CostNetwork: return "cost network";
    case ModelKind::ModelLibrary: return "model.so";
    case ModelKind::NetworkLibrary: return "network.so";
    case ModelKind::ProblemLibrary: return "problem.so";
    case ModelKind::Circuit: return "circuit";
    }
    return "?";
}

Task defaultTask(ModelKind kind) {
    return kind == ModelKind::CostNetwork || kind == ModelKind::ProblemLibrary ? Task::Mpe
                                                                               : Task::Pr;
}

Result<ModelKind> modelKindOf(const std::string &path) {
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
        return errorAt(path, 0, "is a directory, not a file"); // whatever its name says
    const std::string ext = fileExtension(path);
    if (ext == ".zdd")
        return ModelKind::Zdd;
    if (isLogicCircuitFile(path))
        return ModelKind::Circuit;
    if (ext == ".wcsp" || (ext == ".uai" && peekUaiType(path) == "MARKOV"))
        return ModelKind::CostNetwork;
    if (ext == ".bif" || ext == ".xmlbif" || ext == ".xml" || ext == ".net" || ext == ".uai")
        return ModelKind::Network;
    if (ext == ".so") { // by its marker, without running its code
        const std::string kind = sharedObjectKind(path);
        return kind == "network.so"   ? ModelKind::NetworkLibrary
               : kind == "problem.so" ? ModelKind::ProblemLibrary
                                      : ModelKind::ModelLibrary;
    }
    return errorAt(path, 0,
                   "unknown model type '" + ext +
                       "' (expected .zdd, .bif, .xmlbif, .xml, .net, .uai, .wcsp, .nnf, .sdd or .so)");
}

std::vector<Variable> costNetworkVariables(const CostNetwork &net) {
    std::vector<Variable> variables(net.numVariables());
    for (size_t v = 0; v < variables.size(); ++v) {
        variables[v].name = v < net.variableNames.size() ? net.variableNames[v] : std::to_string(v);
        for (uint32_t value = 0; value < net.domainSizes[v]; ++value)
            variables[v].states.push_back(std::to_string(value));
    }
    return variables;
}

Result<ModelFile> readModel(const std::string &path, const ReadingOptions &options) {
    auto kind = modelKindOf(path);
    if (!kind)
        return kind.error();
    ModelFile file;
    file.path = path;
    file.kind = *kind;
    switch (*kind) {
    case ModelKind::Network: {
        ReadOptions read;
        read.strict = options.strict;
        auto net = readNetworkFile(path, read);
        if (!net)
            return net.error();
        std::vector<Diagnostic> warnings = std::exchange(net->warnings, {});
        file = modelFileOf(std::move(*net), path);
        file.warnings = std::move(warnings);
        break;
    }
    case ModelKind::Zdd: {
        auto zdd = readZddFile(path);
        if (!zdd)
            return zdd.error();
        auto circuit = lowerVerified(*zdd, path); // the circuit's variables, as evidence names them
        if (!circuit)
            return circuit.error();
        file.variables = circuit->variables;
        file.zdd = std::move(*zdd);
        file.circuit = std::move(*circuit);
        break;
    }
    case ModelKind::Circuit: {
        std::optional<WeightCases> cases;
        if (!options.weightCases.empty()) {
            auto read = readWeightCasesFile(options.weightCases);
            if (!read)
                return read.error();
            cases = std::move(*read);
        }
        auto circuit = loadLogicCircuit(path, options.weights, cases ? cases->numVars() : 0);
        if (!circuit)
            return circuit.error();
        if (cases)
            file.weightCaseInputs = freeWeightInputs(*circuit, *cases);
        file.variables = circuit->variables;
        file.circuit = std::move(*circuit);
        break;
    }
    case ModelKind::CostNetwork: {
        auto net = readCostNetworkFile(path);
        if (!net)
            return net.error();
        file = modelFileOf(std::move(*net), path);
        break;
    }
    case ModelKind::ProblemLibrary: {
        auto lib = ProblemLibrary::open(path);
        if (!lib)
            return lib.error();
        file.costNetwork = lib->metadata().shape;
        file.variables = costNetworkVariables(*file.costNetwork);
        file.problemLibrary = std::move(*lib);
        break;
    }
    case ModelKind::NetworkLibrary: {
        auto lib = NetworkLibrary::open(path);
        if (!lib)
            return lib.error();
        file.variables = lib->metadata().variables;
        file.networkLibrary = std::move(*lib);
        break;
    }
    case ModelKind::ModelLibrary: {
        auto model = Model::fromSharedObject(path);
        if (!model)
            return model.error();
        file.variables = model->interface().variables;
        file.modelLibrary = std::move(*model);
        break;
    }
    }
    return file;
}

ModelFile modelFileOf(BayesNet network, const std::string &name) {
    ModelFile file;
    file.path = name;
    file.kind = ModelKind::Network;
    for (const BnVariable &v : network.variables)
        file.variables.push_back({v.name, v.states});
    file.network = std::move(network);
    return file;
}

ModelFile modelFileOf(CostNetwork network, const std::string &name) {
    ModelFile file;
    file.path = name;
    file.kind = ModelKind::CostNetwork;
    file.variables = costNetworkVariables(network);
    file.costNetwork = std::move(network);
    return file;
}

// A network's MLF as a ZBDD, with a progress line for long compiles.
Result<ZddModel> compileNetworkMlf(const BayesNet &net, const std::string &path,
                                   const ReadingOptions &reading) {
    MlfOptions mlf;
    mlf.ordering = reading.mlfOrder == "paper"     ? MlfOrdering::Paper
                   : reading.mlfOrder == "minfill" ? MlfOrdering::MinFill
                                                   : MlfOrdering::Frontier;
    mlf.nodeLimit = reading.zbddNodeLimit;
    ProgressLine line("multiplying CPTs into the MLF");
    mlf.steps = [&](size_t done, size_t count) { line.update(done, count); };
    auto zdd = compileMlf(net, mlf);
    if (!zdd)
        return errorAt(path, 0, zdd.error().message);
    return zdd;
}

Result<Circuit> readCircuit(const std::string &path, const ReadingOptions &options,
                            std::vector<Diagnostic> &warnings) {
    auto model = readModel(path, options);
    if (!model)
        return model.error();
    warnings = std::move(model->warnings);
    if (model->circuit)
        return std::move(*model->circuit);
    if (!model->network)
        return errorAt(path, 0, std::string("a ") + modelKindName(model->kind) +
                                    " has no circuit (a network or a .zdd has)");
    auto zdd = compileNetworkMlf(*model->network, path, options);
    if (!zdd)
        return zdd.error();
    return lowerVerified(*zdd, path);
}

Result<const JunctionTree *> ModelFile::junctionTree(const OrderOptions &order) {
    if (tree)
        return &*tree;
    if (!network)
        return errorAt(path, 0, "a junction tree needs a Bayesian network");
    auto chosen =
        chooseOrder(networkDomainSizes(*network), familyScopes(*network), order, "search");
    if (!chosen)
        return chosen.error();
    auto built = buildJunctionTree(*network, chosen->order);
    if (!built)
        return errorAt(path, 0, built.error().message);
    tree = std::move(*built);
    treeOrder = std::move(*chosen);
    return &*tree;
}

} // namespace zbddc::pipeline
