// The junction-tree route on Markov networks (factor models read from UAI MARKOV text) against
// brute-force enumeration in log space (tests/support/markov_brute_force.h): PR as log10 Z(e),
// MAR, MPE, deterministic zeros, evidence with Z(e) = 0, constant factors, variables in no
// factor, and partition functions far beyond a double. Reference interpreter, the CPU's batched
// tree and its per-case route.
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/factor_model/factor_model.h"
#include "runtime/junction_tree/factor_model_route.h"

#include "tests/catch.hpp"
#include "tests/support/markov_checks.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

TEST_CASE("markov jt: random Markov networks answer PR, MAR and MPE as brute force does",
          "[jt][markov]") {
    std::mt19937 rng(41);
    // The reference interpreter runs the batched tree (the GPU's layout), the CPU one case at a time.
    for (const char *executor : {"reference", "cpu"}) {
        for (int trial = 0; trial < 30; ++trial) {
            INFO(executor << ", trial " << trial);
            const MarkovNet net = randomMarkovNet(rng, 1 + rng() % 7, /*huge=*/trial % 3 == 0);
            std::vector<std::vector<int>> cases;
            std::vector<Evidence> evidence;
            for (int k = 0; k < 6; ++k) {
                std::vector<int> e(net.domains.size(), -1);
                for (size_t v = 0; v < e.size() && k > 0; ++v)
                    if (rng() % 3 == 0)
                        e[v] = static_cast<int>(rng() % net.domains[v]);
                cases.push_back(e);
                evidence.push_back(evidenceOf(e));
            }
            JunctionTreeOptions options;
            options.executor = executor;
            options.maxBatch = 1 + trial % 4;
            options.belief = trial % 2 ? JunctionTreeLowering::Belief::Always
                                       : JunctionTreeLowering::Belief::Never;
            JunctionTreeModel model = markovTree(net, options, static_cast<uint64_t>(trial));
            const auto pr = model.run(Task::Pr, evidence);
            const auto mar = model.run(Task::Mar, evidence);
            const auto mpe = model.run(Task::Mpe, evidence);
            for (size_t c = 0; c < cases.size(); ++c) {
                INFO("case " << c);
                checkMarkovCase(net, cases[c], pr[c], mar[c], mpe[c]);
            }
            // One case at a time, on the same model the batches ran on: what it keeps from one run
            // (programs, case trees) must not leak into the next case's answers.
            for (size_t c = 0; c < cases.size(); ++c) {
                INFO("case " << c << " alone");
                const std::span<const Evidence> one(&evidence[c], 1);
                checkMarkovCase(net, cases[c], model.run(Task::Pr, one)[0],
                                model.run(Task::Mar, one)[0], model.run(Task::Mpe, one)[0]);
            }
        }
    }
}

// A kept model on the CPU asked for one case at a time: the first PR (or MAR) call goes case by
// case, the next two run the full-table program lowered with every variable's evidence table
// (so one program answers queries that observe different variables), and every answer, before
// and after the switch and whichever plan stays, is brute force's.
TEST_CASE("markov jt: a kept model's one-case queries try the full tables, same answers",
          "[jt][markov]") {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 12; ++trial) {
        INFO("trial " << trial);
        const MarkovNet net = randomMarkovNet(rng, 2 + rng() % 6, /*huge=*/trial % 4 == 0);
        JunctionTreeOptions options;
        options.executor = "cpu";
        JunctionTreeModel model = markovTree(net, options, static_cast<uint64_t>(trial));
        int answered[2] = {0, 0}; // PR and MAR calls answered so far (what the model timed)
        for (int call = 0; call < 6; ++call) {
            INFO("call " << call);
            std::vector<int> e(net.domains.size(), -1);
            for (size_t v = 0; v < e.size(); ++v)
                if (rng() % 3 == 0)
                    e[v] = static_cast<int>(rng() % net.domains[v]);
            const std::vector<Evidence> one{evidenceOf(e)};
            const auto pr = model.run(Task::Pr, one);
            const auto mar = model.run(Task::Mar, one);
            checkMarkovCase(net, e, pr[0], mar[0], model.run(Task::Mpe, one)[0]);
            // After one answered call, the next two run the full tables (a tiny program: its
            // entries cost less than the first call's case).
            for (int k = 0; k < 2; ++k) {
                const Result<TaskResult> &r = k ? mar[0] : pr[0];
                if (!r)
                    continue;
                const bool full = r->device.notes.find("case per run") != std::string::npos;
                if (answered[k] == 0)
                    CHECK_FALSE(full);
                if (answered[k] == 1 || answered[k] == 2)
                    CHECK(full);
                ++answered[k];
            }
        }
    }
}

TEST_CASE("markov jt: a partition function far beyond a double is answered in log space",
          "[jt][markov]") {
    // A chain of 400 binary variables whose pair factors are 10^3 on equal states, 1 elsewhere:
    // Z = 2 (10^3 + 1)^399, log10 Z ≈ 1197.5, far past 10^308 (closed form, no enumeration).
    MarkovNet chain;
    chain.domains.assign(400, 2);
    for (uint32_t v = 0; v + 1 < 400; ++v)
        chain.factors.push_back({{v, v + 1}, {1e3, 1, 1, 1e3}});
    const double want = std::log10(2.0) + 399 * std::log10(1001.0);
    for (const char *executor : {"reference", "cpu"}) {
        JunctionTreeOptions options;
        options.executor = executor;
        JunctionTreeModel model = markovTree(chain, options, 0);
        const auto pr =
            model.run(Task::Pr, std::vector<Evidence>{evidenceOf(std::vector<int>(400, -1))});
        REQUIRE(pr[0].ok());
        CHECK(pr[0]->log10 == Approx(want).epsilon(1e-12));
    }
}

TEST_CASE("markov jt: reader errors name the file, the line and the problem", "[jt][markov]") {
    auto message = [](const std::string &text) {
        auto m = parseUaiFactorModel(text, "bad.uai");
        REQUIRE_FALSE(m.ok());
        return m.error().str();
    };
    CHECK_THAT(message("MARKOV\n2\n2 2\n1\n2 0 1\n\n3\n1 2 3\n"),
               Catch::Contains("bad.uai:7:") && Catch::Contains("has 3 entries"));
    CHECK_THAT(message("MARKOV\n2\n2 2\n1\n2 0 7\n\n4\n1 2 3 4\n"),
               Catch::Contains("bad.uai:5:") && Catch::Contains("unknown variable 7"));
    CHECK_THAT(message("MARKOV\n1\n2\n1\n1 0\n\n2\n1 -2\n"),
               Catch::Contains("bad.uai:8:") && Catch::Contains("non-negative"));
    CHECK_THAT(message("MARKOV\n1\n2\n1\n1 0\n\n2\nnan 1\n"),
               Catch::Contains("bad.uai:8:") && Catch::Contains("nan"));
    // A variable in no table still has its states named and a table of ones: refused before
    // 25,555,161 of each are made (the factor-model fuzzer's find).
    CHECK_THAT(message("MARKOV\n3\n2 2 25555161\n0\n"),
               Catch::Contains("bad.uai:3:") && Catch::Contains("more than the file could hold"));
}

TEST_CASE("markov jt: a .wcsp is the factor model of exp(-cost)", "[jt][markov]") {
    // Costs (0,0) = 3, (1,1) = 5, (1,0) = 100 = the upper bound (forbidden), else 0; variable 2
    // in no function still counts its 3 states.
    const std::string path =
        (std::filesystem::temp_directory_path() / "zbddc_markov.wcsp").string();
    std::ofstream(path) << "t 3 3 1 100\n2 2 3\n2 0 1 0 3\n0 0 3\n1 1 5\n1 0 100\n";
    auto model = readFactorModelFile(path);
    REQUIRE(model.ok());
    const InteractionGraph graph = buildInteractionGraph(model->domainSizes, model->sortedScopes());
    auto tree = openFactorModelJunctionTree(std::move(*model),
                                            greedyOrder(graph, OrderHeuristic::MinFill), {});
    REQUIRE(tree.ok());
    const std::vector<Evidence> none{evidenceOf({-1, -1, -1})};
    const auto pr = tree->run(Task::Pr, none);
    REQUIRE(pr[0].ok());
    CHECK(pr[0]->log10 == Approx(std::log10(3 * (std::exp(-3.0) + 1 + std::exp(-5.0)))));
    const auto mpe = tree->run(Task::Mpe, none);
    REQUIRE(mpe[0].ok());
    CHECK(mpe[0]->assignment[0] == 0);
    CHECK(mpe[0]->assignment[1] == 1);
    CHECK(mpe[0]->log10 == Approx(0.0).margin(1e-12));
    std::filesystem::remove(path);
}
