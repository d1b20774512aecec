// A model file read into what its routes start from: a Bayesian network, a ZBDD (.zdd), a cost
// network (.wcsp, UAI MARKOV), or a compiled library (model.so, network.so, problem.so). Its kind
// decides which routes take it (route.h); its variables are what evidence names.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/wcsp/cost_network.h"
#include "compiler/frontends/zdd/zdd_model.h"
#include "compiler/junction_tree/junction_tree.h"
#include "ir/circuit.h"
#include "ir/result.h"
#include "pipeline/order_choice.h"
#include "runtime/shared_objects/problem_library.h"
#include "runtime/model.h"
#include "runtime/shared_objects/network_library.h"
#include "runtime/tasks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc::pipeline {

enum class ModelKind : uint8_t {
    Network,        // .bif, .xmlbif, .xml, .net, BAYES .uai
    Zdd,            // .zdd
    CostNetwork,    // .wcsp, MARKOV .uai
    ModelLibrary,   // model.so (the MLF route's circuit, compiled)
    NetworkLibrary, // network.so (a junction tree, compiled)
    ProblemLibrary, // problem.so (bucket elimination, compiled)
    Circuit,        // .nnf (d-DNNF), .sdd (SDD): a knowledge compiler's circuit
};
inline constexpr ModelKind kModelKinds[] = {ModelKind::Network,      ModelKind::Zdd,
                                            ModelKind::CostNetwork,  ModelKind::ModelLibrary,
                                            ModelKind::NetworkLibrary, ModelKind::ProblemLibrary,
                                            ModelKind::Circuit};
// "network", "zdd", "cost network", "model.so", "network.so", "problem.so"
const char *modelKindName(ModelKind kind);
// The task a run answers where none is asked: a cost network's optimum (MPE), else P(e) (PR).
Task defaultTask(ModelKind kind);
// The kind of the file at `path` by its extension (a .uai and a .so by their contents), or an
// error naming what is expected.
Result<ModelKind> modelKindOf(const std::string &path);

// How model files are read (and a network's MLF compiled).
struct ReadingOptions {
    bool strict = false;                          // network rows not summing to 1 are errors
    std::string mlfOrder = "frontier";            // frontier, paper or minfill
    uint64_t zbddNodeLimit = uint64_t{1} << 26;   // the largest ZBDD a network compiles into
    std::string weights; // a .nnf's or .sdd's literal weights ("": every weight 1)
    // A batch of weightings of a .nnf or .sdd (weight_cases.h; "": none): its weights become
    // free inputs, each case's values in ModelFile::weightCaseInputs.
    std::string weightCases;
};

struct ModelFile {
    std::string path;
    ModelKind kind = ModelKind::Network;
    std::vector<Variable> variables; // what evidence names, in the model's order
    std::optional<BayesNet> network;
    std::optional<ZddModel> zdd;
    std::optional<Circuit> circuit; // a .zdd's, lowered and verified, or a .nnf's or .sdd's
    std::optional<CostNetwork> costNetwork; // also a problem.so's shape
    std::optional<ProblemLibrary> problemLibrary;
    std::optional<NetworkLibrary> networkLibrary;
    std::optional<Model> modelLibrary;
    std::vector<Diagnostic> warnings; // accepted oddities of the reading
    // ReadingOptions::weightCases: per case, the circuit's free inputs (TaskOptions::freeInputs).
    std::vector<std::vector<double>> weightCaseInputs;

    // A network's junction tree over the order `order` asks, built once and kept (the route
    // choice weighs it, and the junction-tree route then runs it).
    Result<const JunctionTree *> junctionTree(const OrderOptions &order);
    std::optional<JunctionTree> tree;
    std::optional<ChosenOrder> treeOrder;
};

Result<ModelFile> readModel(const std::string &path, const ReadingOptions &options = {});
// A network's MLF compiled into a ZBDD (Minato, Satoh, Sato 2007), with a progress line for long
// compiles; `path` names the error.
Result<ZddModel> compileNetworkMlf(const BayesNet &network, const std::string &path,
                                   const ReadingOptions &options);
// The circuit of a network (its MLF's) or of a .zdd, verified; the reading's warnings returned.
Result<Circuit> readCircuit(const std::string &path, const ReadingOptions &options,
                            std::vector<Diagnostic> &warnings);
// A model a program built in memory; `name` stands for its file in messages.
ModelFile modelFileOf(BayesNet network, const std::string &name);
ModelFile modelFileOf(CostNetwork network, const std::string &name);

// A cost network's variables, named by index where it has no names, its states "0", "1", ...
std::vector<Variable> costNetworkVariables(const CostNetwork &network);

} // namespace zbddc::pipeline
