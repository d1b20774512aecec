// MPE ties (ir/mpe_tie.h): on networks whose MPE is tied exactly, every route and executor that
// answers MPE gives the same assignment — the MLF route on the CPU and the reference evaluator,
// the junction tree per case (the network's tree and each case's own), its full-table batched
// tree (the CPU executor and the reference interpreter) and its tree per evidence pattern — and
// that assignment is an MPE (its probability, recomputed from the CPTs, is the value reported) and
// the one the rule names: the lowest states in file order, as brute force enumerates them.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "pipeline/pipeline.h"
#include "runtime/junction_tree/junction_tree_model.h"

#include "tests/catch.hpp"

#include <cmath>

using namespace zbddc;
using namespace zbddc::pipeline;

namespace {

BnVariable variable(const std::string &name, std::vector<uint32_t> parents,
                    std::vector<double> cpt) {
    BnVariable v;
    v.name = name;
    v.states = {"s0", "s1"};
    v.parents = std::move(parents);
    v.cpt = std::move(cpt);
    return v;
}

// A → B → C, A → D: A uniform, B flips A with 0.8 (so A=0,B=1 ties A=1,B=0), C copies B or not
// with 0.5 each, D = A with 0.7.
BayesNet tiedChain() {
    BayesNet net;
    net.file = "ties";
    net.variables.push_back(variable("A", {}, {0.5, 0.5}));
    net.variables.push_back(variable("B", {0}, {0.2, 0.8, 0.8, 0.2}));
    net.variables.push_back(variable("C", {1}, {0.5, 0.5, 0.5, 0.5}));
    net.variables.push_back(variable("D", {0}, {0.7, 0.3, 0.3, 0.7}));
    return net;
}

double jointOf(const BayesNet &net, const std::vector<uint32_t> &x) {
    double p = 1;
    for (uint32_t v = 0; v < net.variables.size(); ++v)
        p *= net.variables[v].cpt[net.cptRow(v, x) * 2 + x[v]];
    return p;
}

// The lowest assignment in file order (the first enumerated, the last variable fastest) of the
// largest probability consistent with the evidence.
std::vector<uint32_t> lowestMpe(const BayesNet &net, const Evidence &ev) {
    const size_t n = net.variables.size();
    std::vector<uint32_t> x(n, 0), best;
    double bestP = -1;
    for (uint32_t code = 0; code < (1u << n); ++code) {
        bool fits = true;
        for (size_t v = 0; v < n; ++v) {
            x[v] = (code >> (n - 1 - v)) & 1;
            fits = fits && (ev.states[v] == kNone || ev.states[v] == x[v]);
        }
        if (fits && jointOf(net, x) > bestP * (1 + 1e-9))
            bestP = jointOf(net, x), best = x;
    }
    return best;
}

} // namespace

TEST_CASE("MPE ties: every route and executor picks the same assignment, the lowest in file order",
          "[pipeline][mpe]") {
    const BayesNet net = tiedChain();
    std::vector<Evidence> cases;
    for (const std::vector<uint32_t> &e :
         std::vector<std::vector<uint32_t>>{{kNone, kNone, kNone, kNone},
                                            {kNone, kNone, 1, kNone},
                                            {kNone, kNone, kNone, 0},
                                            {kNone, 1, kNone, kNone}})
        cases.push_back(Evidence{e, {}});
    std::vector<std::pair<std::string, std::vector<Result<TaskResult>>>> answers;
    for (DeviceKind device : {DeviceKind::Cpu, DeviceKind::Reference}) {
        OpenOptions options;
        options.route = "mlf";
        options.target.device = device;
        options.expectedCases = cases.size();
        auto session = Session::open(modelFileOf(net, "ties"), options);
        REQUIRE(session);
        answers.emplace_back(std::string("mlf on ") + deviceKindName(device),
                             (*session)->answer(Task::Mpe, cases));
    }
    auto tree = buildJunctionTree(net, searchOrder(moralGraph(net)).order);
    REQUIRE(tree);
    using O = JunctionTreeOptions;
    struct Variant {
        const char *name, *executor;
        CaseTree caseTree;
        O::BatchedPlan plan;
    };
    for (const Variant &v :
         {Variant{"jt per case, network tree", "cpu", CaseTree::Network, O::BatchedPlan::PerCase},
          Variant{"jt per case, own tree", "cpu", CaseTree::Evidence, O::BatchedPlan::PerCase},
          Variant{"jt batched, cpu", "cpu", CaseTree::ByCost, O::BatchedPlan::FullTables},
          Variant{"jt batched, reference", "reference", CaseTree::ByCost,
                  O::BatchedPlan::FullTables},
          Variant{"jt by evidence pattern", "cpu", CaseTree::Evidence,
                  O::BatchedPlan::EvidencePatterns}}) {
        O options;
        options.executor = v.executor;
        options.caseTree = v.caseTree;
        options.batchedPlan = v.plan;
        options.traceback = O::Traceback::OnHost;
        JunctionTreeModel model(net, *tree, options);
        answers.emplace_back(v.name, model.run(Task::Mpe, cases));
    }
    for (size_t i = 0; i < cases.size(); ++i) {
        const std::vector<uint32_t> expected = lowestMpe(net, cases[i]);
        for (const auto &[name, results] : answers) {
            INFO(name << ", case " << i);
            REQUIRE(results.size() == cases.size());
            REQUIRE(results[i]);
            CHECK(jointOf(net, results[i]->assignment) == Approx(results[i]->value).epsilon(1e-12));
            CHECK(results[i]->assignment == expected);
        }
    }
}
