// The pipeline's front door on every route: random tiny networks opened through Session on the
// MLF and the junction tree against brute force (PR, MAR, MPE over a batch) and on bucket
// elimination (PR, MPE), random cost networks on bucket elimination against enumeration, loopy
// BP on a chain (exact on a tree), the automatic choice, the route table, and a .zdd saved and
// opened again.
#include "pipeline/pipeline.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/random_networks.h"
#include "tests/support/scratch.h"

#include <cmath>
#include <random>

using namespace zbddc;
using namespace zbddc::pipeline;

namespace {

// Random evidence: each variable observed with probability 1/3.
std::vector<int> randomObservation(const BayesNet &net, std::mt19937 &rng) {
    std::vector<int> e(net.variables.size(), -1);
    for (size_t v = 0; v < e.size(); ++v)
        if (rng() % 3 == 0)
            e[v] = static_cast<int>(rng() % net.variables[v].states.size());
    return e;
}

Evidence evidenceOf(const std::vector<int> &e) {
    Evidence out;
    for (int s : e)
        out.states.push_back(s < 0 ? kNone : static_cast<uint32_t>(s));
    return out;
}

std::unique_ptr<Session> openNetwork(const BayesNet &net, const std::string &route,
                                     DeviceKind device, size_t cases) {
    OpenOptions options;
    options.route = route;
    options.target.device = device;
    options.expectedCases = cases;
    auto session = Session::open(modelFileOf(net, "random"), options);
    REQUIRE(session);
    return std::move(*session);
}

// PR, MAR and MPE of each case against the brute-force oracle.
void checkAgainstBruteForce(Session &session, const BayesNet &net,
                            const std::vector<std::vector<int>> &observed) {
    std::vector<Evidence> cases;
    for (const auto &e : observed)
        cases.push_back(evidenceOf(e));
    const auto pr = session.answer(Task::Pr, cases);
    const auto mar = session.answer(Task::Mar, cases);
    const auto mpe = session.answer(Task::Mpe, cases);
    REQUIRE(pr.size() == cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        const testing::BruteForceAnswers oracle = testing::bruteForceQueries(net, observed[i]);
        REQUIRE(pr[i]);
        CHECK(pr[i]->route == session.route());
        CHECK(pr[i]->value == Approx(oracle.probability).margin(1e-12));
        if (oracle.probability == 0) {
            CHECK_FALSE(mar[i]); // MAR of an impossible case fails alone
            continue;
        }
        REQUIRE(mar[i]);
        for (size_t v = 0; v < net.variables.size(); ++v)
            for (size_t s = 0; s < net.variables[v].states.size(); ++s)
                CHECK(mar[i]->marginals[v][s] == Approx(oracle.marginals[v][s]).margin(1e-9));
        REQUIRE(mpe[i]);
        CHECK(mpe[i]->value == Approx(oracle.mpeValue).margin(1e-12));
    }
}

} // namespace

TEST_CASE("the route table names mlf, jt, be and lbp, each with the model kinds it takes",
          "[pipeline]") {
    std::vector<std::string> names;
    for (const RouteKind &r : routeTable())
        names.emplace_back(r.name);
    CHECK(names == std::vector<std::string>{"mlf", "jt", "be", "lbp"});
    CHECK(findRoute("jt")->takes(ModelKind::Network));
    CHECK_FALSE(findRoute("jt")->takes(ModelKind::Zdd));
    CHECK(findRoute("mlf")->takes(ModelKind::Zdd));
    CHECK_FALSE(findRoute("mlf")->takes(ModelKind::CostNetwork));
    CHECK(findRoute("be")->takes(ModelKind::CostNetwork));
    CHECK(findRoute("lbp")->takes(ModelKind::CostNetwork));
    CHECK_FALSE(findRoute("lbp")->exact);
    CHECK(findRoute("nope") == nullptr);
}

TEST_CASE("Session answers random networks on the MLF and the junction tree as brute force does",
          "[pipeline]") {
    std::mt19937 rng(7);
    for (int k = 0; k < 12; ++k) {
        const BayesNet net = testing::randomBayesNet(rng, 3 + k % 5);
        std::vector<std::vector<int>> observed;
        for (int i = 0; i < 5; ++i)
            observed.push_back(randomObservation(net, rng));
        for (const char *route : {"mlf", "jt"})
            for (DeviceKind device : {DeviceKind::Cpu, DeviceKind::Reference}) {
                INFO(route << " on " << deviceKindName(device) << ", network " << k);
                auto session = openNetwork(net, route, device, observed.size());
                CHECK(session->route() == route);
                CHECK(session->variables().size() == net.variables.size());
                checkAgainstBruteForce(*session, net, observed);
            }
    }
}

TEST_CASE("bucket elimination answers a network's PR and MPE as brute force does, whatever the "
          "network was read from",
          "[pipeline]") {
    // An in-memory network has no file to read costs from: its CPTs become the costs -ln p.
    std::mt19937 rng(11);
    for (int k = 0; k < 8; ++k) {
        const BayesNet net = testing::randomBayesNet(rng, 3 + k % 5);
        INFO("network " << k);
        auto session = openNetwork(net, "be", DeviceKind::Cpu, 5);
        CHECK(session->route() == "be");
        std::vector<std::vector<int>> observed;
        std::vector<Evidence> cases;
        for (int i = 0; i < 5; ++i) {
            observed.push_back(randomObservation(net, rng));
            cases.push_back(evidenceOf(observed.back()));
        }
        const auto pr = session->answer(Task::Pr, cases);
        const auto mpe = session->answer(Task::Mpe, cases);
        REQUIRE(pr.size() == cases.size());
        REQUIRE(mpe.size() == cases.size());
        for (size_t i = 0; i < cases.size(); ++i) {
            const testing::BruteForceAnswers oracle = testing::bruteForceQueries(net, observed[i]);
            REQUIRE(pr[i]);
            CHECK(pr[i]->value == Approx(oracle.probability).margin(1e-12));
            if (oracle.probability == 0) {
                CHECK_FALSE(mpe[i]);
                continue;
            }
            REQUIRE(mpe[i]);
            CHECK(mpe[i]->value == Approx(oracle.mpeValue).margin(1e-12));
        }
    }
}

TEST_CASE("auto takes an exact route for a network and says why; eval takes the circuit",
          "[pipeline]") {
    std::mt19937 rng(3);
    const BayesNet net = testing::randomBayesNet(rng, 6);
    auto session = openNetwork(net, "auto", DeviceKind::Cpu, 1);
    CHECK((session->route() == "mlf" || session->route() == "jt"));
    CHECK(session->routeWhy().rfind("auto", 0) == 0);
    checkAgainstBruteForce(*session, net, {randomObservation(net, rng)});

    OpenOptions eval;
    eval.task = Task::Eval;
    auto circuit = Session::open(modelFileOf(net, "random"), eval);
    REQUIRE(circuit);
    CHECK((*circuit)->route() == "mlf");
    const std::vector<Task> tasks = (*circuit)->tasks();
    CHECK(std::find(tasks.begin(), tasks.end(), Task::Eval) != tasks.end());

    // A route that does not take the model kind is an error, not a silent other route.
    OpenOptions wrong;
    wrong.route = "jt";
    CHECK_FALSE(Session::open(modelFileOf(testing::randomNetwork(rng, 3, 3, 2, 2, 5, false), "c"),
                              wrong));
}

TEST_CASE("Session solves random cost networks by bucket elimination as enumeration does",
          "[pipeline]") {
    std::mt19937 rng(11);
    for (int k = 0; k < 30; ++k) {
        const CostNetwork net = testing::randomNetwork(rng, 2 + k % 6, 4, 3, 3, 20, k % 2 == 0);
        OpenOptions options;
        options.target.device = DeviceKind::Cpu;
        auto session = Session::open(modelFileOf(net, "random.wcsp"), options);
        REQUIRE(session);
        CHECK((*session)->route() == "be");
        Evidence none{std::vector<uint32_t>(net.numVariables(), kNone), {}};
        Evidence some = none;
        some.states[0] = static_cast<uint32_t>(rng() % net.domainSizes[0]);
        const std::vector<Evidence> cases = {none, some};
        const auto results = (*session)->answer(Task::Mpe, cases);
        REQUIRE(results.size() == 2);
        for (size_t i = 0; i < 2; ++i) {
            INFO("network " << k << " case " << i);
            REQUIRE(results[i]);
            std::vector<uint32_t> evidence = cases[i].states;
            const Cost optimum = testing::bruteForceOptimum(net, evidence);
            if (!net.feasible(optimum)) {
                CHECK(*results[i]->cost == "null");
                continue;
            }
            CHECK(*results[i]->cost == net.costText(optimum));
            CHECK(net.sameCost(assignmentCost(net, results[i]->assignment), optimum));
            REQUIRE(results[i]->elimination);
        }
        CHECK_FALSE((*session)->answer(Task::Pr, cases)[0]); // bucket elimination answers MPE
    }
}

TEST_CASE("Session runs loopy BP on a chain, where its marginals are exact", "[pipeline]") {
    std::mt19937 rng(5);
    BayesNet chain;
    chain.file = "chain";
    for (uint32_t v = 0; v < 5; ++v) {
        BnVariable var;
        var.name = "C" + std::to_string(v);
        var.states = {"a", "b", "c"};
        if (v)
            var.parents = {v - 1};
        const size_t rows = v ? 3 : 1;
        for (size_t r = 0; r < rows; ++r) {
            double p[3], sum = 0;
            for (double &x : p)
                sum += x = 0.1 + std::uniform_real_distribution<double>(0, 1)(rng);
            for (double x : p)
                var.cpt.push_back(x / sum);
        }
        chain.variables.push_back(std::move(var));
    }
    OpenOptions options;
    options.route = "lbp";
    options.target.device = DeviceKind::Cpu;
    auto session = Session::open(modelFileOf(chain, "chain"), options);
    REQUIRE(session);
    const std::vector<int> observed = {-1, -1, 2, -1, 0};
    const auto oracle = testing::bruteForceQueries(chain, observed);
    const std::vector<Evidence> cases = {evidenceOf(observed)};
    const auto mar = (*session)->answer(Task::Mar, cases);
    REQUIRE(mar[0]);
    REQUIRE(mar[0]->approximate);
    CHECK(mar[0]->approximate->converged);
    CHECK(mar[0]->route == "lbp");
    for (size_t v = 0; v < 5; ++v)
        for (size_t s = 0; s < 3; ++s)
            CHECK(mar[0]->marginals[v][s] == Approx(oracle.marginals[v][s]).margin(1e-6));
}

TEST_CASE("a network saved as a .zdd opens again on the MLF with the same answers", "[pipeline]") {
    std::mt19937 rng(13);
    const BayesNet net = testing::randomBayesNet(rng, 5);
    auto session = openNetwork(net, "mlf", DeviceKind::Cpu, 1);
    const std::string path = testing::scratchDir() + "/pipeline-saved.zdd";
    REQUIRE((*session).save(path));
    OpenOptions options;
    options.target.device = DeviceKind::Cpu;
    auto again = Session::open(path, options);
    REQUIRE(again);
    CHECK((*again)->route() == "mlf");
    CHECK((*again)->modelKind() == ModelKind::Zdd);
    checkAgainstBruteForce(**again, net, {randomObservation(net, rng), randomObservation(net, rng)});
    CHECK_FALSE((*again)->emit("tensor", path + ".txt")); // not a stage of the MLF route
}
