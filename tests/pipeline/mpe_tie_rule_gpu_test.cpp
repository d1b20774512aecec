// The MPE tie rule (pipeline/mpe_tie_break.h) across devices: sampled cases of tied networks
// (pigs, hailfinder, barley; 20% observed) get the same assignment from the junction tree on
// the GPU as on the CPU, and from the MLF's circuit on both where it compiles, each an optimum
// (its weight recomputed from the CPTs is the value reported). Before the rule, 19 of 100 pigs
// cases and 13 of 100 barley cases differed between the GPU's and the CPU's tree.
//
// The GPU's tracebacks say per case whether they met a tie (the VALUE phase kernel, the circuit
// walk), so that only tied cases go to the rule: on small networks built with exact ties each
// report is checked against brute force (another assignment reaches the optimum or not), and on
// the bundled ones against the CPU junction tree's own report. Skipped (exit 77) without a GPU.
#include "compiler/elimination/elimination_order.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "pipeline/pipeline.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/sample_evidence.h"

#include "tests/catch.hpp"
#include "tests/support/mpe_route_runs.h"
#include "tests/support/runtime_gpu.h"
#include "tests/support/tied_networks.h"

#include <algorithm>
#include <random>

using namespace zbddc;
using namespace zbddc::pipeline;

namespace {

const bool gpu = testing::runtimeGpuPresent();

// How many of a run's answers carry a tie report, and how many of those say tied.
struct Reports {
    size_t told = 0, tied = 0;
};
Reports reportsOf(const testing::RouteRun &run) {
    Reports r;
    for (const auto &a : run.results)
        if (a && a->mpeTied) {
            ++r.told;
            r.tied += *a->mpeTied;
        }
    return r;
}

} // namespace

TEST_CASE("MPE ties on the GPU: the junction tree's device traceback says which cases are tied, "
          "as brute force does",
          "[gpu][mpe][ties]") {
    std::mt19937 rng(2027);
    size_t tied = 0, untied = 0;
    for (int trial = 0; trial < 12; ++trial) {
        const BayesNet net = testing::tiedNetwork(rng, 10);
        const FactorModel model = factorModelOf(net);
        const std::vector<Evidence> cases = testing::randomCases(rng, model.domainSizes, 8);
        auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
        REQUIRE(tree);
        JunctionTreeOptions options;
        options.executor = "cuda";
        options.traceback = JunctionTreeOptions::Traceback::OnExecutor; // the VALUE phase kernel
        JunctionTreeModel jt(net, std::move(*tree), options);
        const auto results = jt.run(Task::Mpe, cases);
        REQUIRE(results.size() == cases.size());
        for (size_t i = 0; i < cases.size(); ++i) {
            INFO("network " << trial << ", case " << i);
            const auto optimal = testing::optimalAssignments(model, cases[i]);
            if (optimal.empty()) {
                CHECK(!results[i]);
                continue;
            }
            REQUIRE(results[i]);
            CHECK(results[i]->device.kind == DeviceKind::Cuda);
            CHECK(std::find(optimal.begin(), optimal.end(), results[i]->assignment) !=
                  optimal.end());
            REQUIRE(results[i]->mpeTied.has_value());
            CHECK(*results[i]->mpeTied == (optimal.size() > 1));
            (optimal.size() > 1 ? tied : untied) += 1;
        }
    }
    INFO(tied << " cases tied, " << untied << " not");
    CHECK((tied > 0 && untied > 0));
}

TEST_CASE("MPE tie rule on the GPU: tied networks answer the rule's assignment, and the circuit "
          "walk says which cases are tied",
          "[gpu][mpe][ties]") {
    std::mt19937 rng(2028);
    size_t tiedCases = 0, allCases = 0;
    Reports mlf;
    for (int trial = 0; trial < 12; ++trial) {
        const BayesNet net = testing::tiedNetwork(rng, 10);
        const FactorModel model = factorModelOf(net);
        const std::vector<Evidence> cases = testing::randomCases(rng, model.domainSizes, 8);
        std::vector<testing::RouteRun> runs;
        for (const char *route : {"jt", "mlf"})
            runs.push_back(
                testing::answerMpe(modelFileOf(net, "tied"), route, DeviceKind::Cuda, "", cases));
        INFO("network " << trial);
        testing::checkAgainstBruteForce(model, cases, runs, tiedCases); // each report right
        const Reports r = reportsOf(runs[1]);
        mlf.told += r.told;
        mlf.tied += r.tied;
        allCases += cases.size();
    }
    INFO(mlf.told << " of " << allCases << " MLF answers told, " << mlf.tied << " tied");
    CHECK(tiedCases > allCases / 2); // the networks do tie
    CHECK((mlf.tied > 0 && mlf.told > mlf.tied));
}

TEST_CASE("MPE tie rule: the GPU answers the CPU's assignment, case by case", "[gpu][mpe]") {
    for (const auto &[name, cases, mlf] : {std::tuple{"pigs", 100, false},
                                           std::tuple{"hailfinder", 200, true},
                                           std::tuple{"barley", 100, false}}) {
        const auto net = testing::bundledNetwork(name);
        if (!net)
            continue;
        INFO(name);
        const FactorModel model = factorModelOf(net->network);
        const std::vector<Evidence> evidence = sampleEvidence(net->network, cases, 0.2, 1);
        std::vector<testing::RouteRun> runs;
        for (const char *route : {"jt", "mlf"})
            for (DeviceKind device : {DeviceKind::Cpu, DeviceKind::Cuda})
                if (mlf || std::string(route) == "jt")
                    runs.push_back(
                        testing::answerMpe(testing::modelAt(net->path), route, device, "", evidence));
        size_t differ = 0, reportsDiffer = 0;
        for (size_t i = 0; i < evidence.size(); ++i)
            for (const testing::RouteRun &run : runs) {
                INFO(run.name << ", case " << i);
                REQUIRE(run.results[i]);
                const bool onGpu = run.name.find("cuda") != std::string::npos;
                if (onGpu)
                    CHECK(run.results[i]->device.kind == DeviceKind::Cuda);
                CHECK(testing::reportedWeight(model, *run.results[i]));
                differ += run.results[i]->assignment != runs[0].results[i]->assignment;
                // The GPU junction tree always tells; a report agrees with the CPU tree's.
                if (onGpu && run.name.rfind("jt", 0) == 0)
                    CHECK(run.results[i]->mpeTied.has_value());
                if (run.results[i]->mpeTied && runs[0].results[i]->mpeTied)
                    reportsDiffer += *run.results[i]->mpeTied != *runs[0].results[i]->mpeTied;
            }
        for (const testing::RouteRun &run : runs) {
            const Reports r = reportsOf(run);
            WARN(run.name << ": " << r.told << " of " << evidence.size() << " cases told, "
                          << r.tied << " tied");
        }
        CHECK(differ == 0);
        CHECK(reportsDiffer == 0);
    }
}
