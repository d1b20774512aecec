// problem.so (compiled bucket elimination of one problem) against the CPU BE path: the same
// program and traceback, so without evidence the same optimum and the same assignment; with
// evidence (a mask in the .so, slicing in the CPU path) the same optimum, brute force agreeing on
// small problems; every assignment's cost recomputed from the original tables.
#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/frontends/wcsp/wcsp_reader.h"
#include "runtime/bucket_elimination/write_problem_library.h"
#include "runtime/shared_objects/problem_library.h"
#include "runtime/bucket_elimination/solve_be.h"

#include "tests/catch.hpp"
#include "tests/support/random_networks.h"
#include "tests/support/run_zbddc.h"
#include "tests/support/wide_cost_wcsp.h"

#include <cmath>
#include <cstdio>
#include <dlfcn.h>
#include <filesystem>

using namespace zbddc;
using zbddc::testing::bruteForceOptimum;
using zbddc::testing::randomNetwork;

namespace {
Solution cpuSolve(const CostNetwork &net, const std::vector<uint32_t> &evidence = {}) {
    BeOptions o;
    o.executor = "cpu";
    o.execution.threads = 2;
    o.evidence = evidence;
    auto sol = solveBucketElimination(net, o);
    REQUIRE(sol.ok());
    return *sol;
}

// examples/solve_problem.c on a problem.so: its stdout, or "" when it fails.
std::string runExample(const std::string &so) {
    const std::string cmd =
        std::string(ZBDDC_BINARY_DIR) + "/examples/zbdd_solve_problem '" + so + "'";
    std::string out;
    FILE *pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;)
        out.append(buf, n);
    return pclose(pipe) == 0 ? out : "";
}

ProblemLibrary compile(const CostNetwork &net, const std::string &name) {
    const std::string path = testing::scratchDir() + "/" + name + ".so";
    auto written = writeProblemLibrary(net, BeOptions{}, path);
    INFO(name << ": " << (written ? "" : written.error().message));
    REQUIRE(written.ok());
    auto lib = ProblemLibrary::open(path);
    REQUIRE(lib.ok());
    return std::move(*lib);
}
} // namespace

TEST_CASE("problem.so equals the CPU path on random WCSPs, with and without evidence",
          "[problem_so]") {
    std::mt19937 rng(41);
    for (int trial = 0; trial < 12; ++trial) {
        const CostNetwork net =
            randomNetwork(rng, 2 + rng() % 7, 1 + rng() % 9, 4, 3, 40, trial % 2);
        const ProblemLibrary lib = compile(net, "random" + std::to_string(trial));
        INFO("trial " << trial);
        const Solution cpu = cpuSolve(net);
        auto so = lib.solve({});
        REQUIRE(so.ok());
        CHECK(so->feasible == cpu.feasible);
        CHECK(so->cost == cpu.cost);
        CHECK(so->cost == bruteForceOptimum(net));
        CHECK(so->assignment == cpu.assignment);
        if (so->feasible)
            CHECK(assignmentCost(net, so->assignment) == so->cost);

        std::vector<uint32_t> evidence(net.numVariables(), UINT32_MAX);
        for (uint32_t v = 0; v < net.numVariables(); ++v)
            if (rng() % 3 == 0)
                evidence[v] = rng() % net.domainSizes[v];
        auto withEvidence = lib.solve(evidence);
        REQUIRE(withEvidence.ok());
        const Cost bf = bruteForceOptimum(net, evidence);
        CHECK(withEvidence->cost == cpuSolve(net, evidence).cost);
        CHECK(withEvidence->cost == bf);
        for (uint32_t v = 0; v < net.numVariables(); ++v)
            if (evidence[v] != UINT32_MAX)
                CHECK(withEvidence->assignment[v] == evidence[v]);
        if (withEvidence->feasible)
            CHECK(assignmentCost(net, withEvidence->assignment) == bf);
    }
}

TEST_CASE("problem.so of a Markov network (real costs) equals the CPU path bit for bit",
          "[problem_so]") {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 4; ++trial) {
        CostNetwork net = randomNetwork(rng, 6, 7, 3, 3, 1000, false);
        net.integerCosts = false;
        for (auto &f : net.functions)
            for (auto &c : f.costs)
                c = -std::log((c + 1) / 1001.0);
        for (auto &f : net.functions)
            f.defaultCost = -std::log((f.defaultCost + 1) / 1001.0);
        const ProblemLibrary lib = compile(net, "markov" + std::to_string(trial));
        const Solution cpu = cpuSolve(net);
        auto so = lib.solve({});
        REQUIRE(so.ok());
        CHECK(so->cost == cpu.cost);
        CHECK(so->assignment == cpu.assignment);
    }
}

TEST_CASE("problem.so of a WCSP beyond 2^53 solves in int64, exactly", "[problem_so][int64]") {
    std::mt19937_64 rng(7);
    for (int trial = 0; trial < 4; ++trial) {
        const auto w = testing::wideCostWcsp(rng, 6, 8, 55 + trial, 63);
        auto net = parseWcsp(w.text, "wide.wcsp");
        REQUIRE(net.ok());
        REQUIRE(net->int64Costs);
        const ProblemLibrary lib = compile(*net, "wide" + std::to_string(trial));
        CHECK(lib.metadata().shape.int64Costs);
        std::vector<uint32_t> evidence(6, UINT32_MAX);
        evidence[trial] = 1;
        for (const std::vector<uint32_t> &ev : {std::vector<uint32_t>{}, evidence}) {
            auto so = lib.solve(ev);
            REQUIRE(so.ok());
            const __int128 expected = w.optimum(ev);
            INFO("trial " << trial << "\n" << w.text);
            CHECK(so->feasible == (expected >= 0));
            if (so->feasible) {
                CHECK(static_cast<__int128>(wordInt64(so->cost)) == expected);
                CHECK(w.cost(so->assignment) == expected);
            }
        }
    }
}

TEST_CASE("problem.so's C ABI refuses bad arguments", "[problem_so]") {
    std::mt19937 rng(3);
    const CostNetwork net = randomNetwork(rng, 3, 3, 3, 2, 9, false);
    const std::string path = testing::scratchDir() + "/abi.so";
    REQUIRE(writeProblemLibrary(net, BeOptions{}, path).ok());
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib);
    auto solve = reinterpret_cast<int (*)(const int *, double *, unsigned *)>(
        dlsym(lib, "zbdd_problem_solve"));
    auto domain = reinterpret_cast<unsigned (*)(size_t)>(dlsym(lib, "zbdd_problem_domain_size"));
    REQUIRE(solve);
    REQUIRE(domain);
    std::vector<unsigned> assignment(3);
    double cost = 0;
    std::vector<int> evidence{static_cast<int>(net.domainSizes[0]), -1, -1};
    CHECK(solve(evidence.data(), &cost, assignment.data()) == 2); // ZBDD_PROBLEM_EARG
    evidence[0] = -7;
    CHECK(solve(evidence.data(), &cost, assignment.data()) == 2);
    CHECK(solve(nullptr, nullptr, assignment.data()) == 2);
    CHECK(solve(nullptr, &cost, assignment.data()) == 0);
    CHECK(domain(0) == net.domainSizes[0]);
    CHECK(domain(3) == 0);
    dlclose(lib);
}

TEST_CASE("zbddc X.wcsp -o X.so; zbddc run X.so answers as zbddc run X.wcsp", "[problem_so][cli]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/";
    REQUIRE(std::filesystem::exists(dir + "404.wcsp"));
    for (const char *name : {"404", "4queens", "example", "warehouse", "zebra"}) {
        const std::string wcsp = dir + name + ".wcsp";
        const std::string so = testing::scratchDir() + "/" + name + ".so";
        const auto built = testing::runZbddc("'" + wcsp + "' -o '" + so + "'");
        INFO(name << ": " << built.err);
        REQUIRE(built.exitCode == 0);
        const auto fromSo = testing::runZbddc("run '" + so + "' --task mpe");
        const auto fromWcsp = testing::runZbddc("run '" + wcsp + "' --task mpe --device cpu");
        REQUIRE(fromSo.exitCode == 0);
        REQUIRE(fromWcsp.exitCode == 0);
        CHECK(fromSo.out == fromWcsp.out); // the MPE block
        CHECK(fromSo.err == fromWcsp.err); // the integer cost line
        // The C ABI alone gives the same answer (the example prints the cost after the block).
        CHECK(runExample(so) == fromWcsp.out + fromWcsp.err);
        // Rows shared among threads (404's large buckets) or not: the same answer.
        auto lib = ProblemLibrary::open(so);
        REQUIRE(lib.ok());
        lib->setThreads(1);
        auto one = lib->solve({});
        lib->setThreads(3);
        auto three = lib->solve({});
        REQUIRE(one.ok());
        REQUIRE(three.ok());
        CHECK(one->cost == three->cost);
        CHECK(one->assignment == three->assignment);
        const auto json = testing::runZbddc("run '" + so + "' --task mpe --json");
        REQUIRE(json.exitCode == 0);
        CHECK(json.out.find("\"device\": \"cpu (problem.so)\"") != std::string::npos);
    }
}

TEST_CASE("problem.so bad input is one line and leaves no file", "[problem_so][cli]") {
    const std::string bad = testing::writeScratch("truncated.wcsp", "t 2 2 1 10\n2 2\n2 0 1 0 5\n");
    const std::string out = testing::scratchDir() + "/truncated.so";
    const auto r = testing::runZbddc("'" + bad + "' -o '" + out + "'");
    CHECK(r.exitCode == 1);
    CHECK(r.err.rfind(bad + ":", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_FALSE(testing::exists(out));

    const std::string good =
        testing::writeScratch("good.wcsp", "g 2 2 1 10\n2 2\n2 0 1 0 1\n0 0 3\n");
    const std::string so = testing::scratchDir() + "/good.so";
    REQUIRE(testing::runZbddc("'" + good + "' -o '" + so + "'").exitCode == 0);
    const std::string evid = testing::writeScratch("range.evid", "1 0 5\n");
    const auto e = testing::runZbddc("run '" + so + "' --task mpe --evidence " + evid);
    CHECK(e.exitCode == 1);
    CHECK(std::count(e.err.begin(), e.err.end(), '\n') == 1);
    const auto t = testing::runZbddc("run '" + so + "' --task pr");
    CHECK(t.exitCode == 2);
    const std::string notSo = testing::writeScratch("text.so", "not a shared object\n");
    const auto n = testing::runZbddc("run '" + notSo + "' --task mpe");
    CHECK(n.exitCode == 1);
    CHECK(n.err.rfind(notSo + ":", 0) == 0);
    CHECK(std::count(n.err.begin(), n.err.end(), '\n') == 1);
    const auto emit = testing::runZbddc("'" + good + "' -o '" + out + "' --emit ll");
    CHECK(emit.exitCode == 2);
    CHECK_FALSE(testing::exists(out));
}

TEST_CASE("--emit=c writes the problem's C, which builds into the same problem.so",
          "[problem_so][cli]") {
    const std::string wcsp = testing::writeScratch(
        "emit.wcsp", "emit 3 3 3 100\n3 2 3\n2 0 1 5 2\n0 0 1\n2 1 0\n2 1 2 0 1\n1 2 7\n"
                     "1 2 0 1\n0 4\n");
    const std::string c = testing::scratchDir() + "/emit.c";
    const auto r = testing::runZbddc("'" + wcsp + "' -o '" + c + "' --emit=c");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    REQUIRE(testing::exists(c + ".tables.bin"));
    CHECK(
        testing::slurp(c).find(
            "static void op_0(zb_val *msg, const zb_val *ev, uint64_t o_begin, uint64_t o_end)") !=
        std::string::npos);
    const std::string so = testing::scratchDir() + "/emit_by_hand.so";
    REQUIRE(std::system(("cc -shared -fPIC -O2 -pthread -I '" + std::string(ZBDDC_SOURCE_DIR) +
                         "/backends/tensor/so/include' '" + c + "' -o '" + so + "' -lm")
                            .c_str()) == 0);
    const auto expected = testing::runZbddc("run '" + wcsp + "' --task mpe --device cpu");
    REQUIRE(expected.exitCode == 0);
    CHECK(runExample(so) == expected.out + expected.err);
}

TEST_CASE("zbddc X.uai -o X.so: MARKOV by default, BAYES with --elimination", "[problem_so][cli]") {
    const std::string markov = testing::writeScratch(
        "chain.uai", "MARKOV\n3\n2 2 3\n2\n2 0 1\n2 1 2\n4 1 2 3 4\n6 4 3 2 1 5 6\n");
    const std::string bayes = testing::writeScratch(
        "net.uai", "BAYES\n3\n2 2 3\n3\n1 0\n1 1\n3 0 1 2\n2 0.3 0.7\n2 0.6 0.4\n"
                   "12 0.1 0.2 0.7 0.2 0.2 0.6 0.5 0.5 0.0 1.0 0.0 0.0\n");
    for (const auto &[path, flags] :
         {std::pair{markov, std::string()}, std::pair{bayes, std::string(" --elimination")}}) {
        const std::string so = path + ".so";
        const auto built = testing::runZbddc("'" + path + "' -o '" + so + "'" + flags);
        INFO(path << ": " << built.err);
        REQUIRE(built.exitCode == 0);
        auto net = readCostNetworkFile(path);
        REQUIRE(net.ok());
        const Solution cpu = cpuSolve(*net);
        const auto r = testing::runZbddc("run '" + so + "' --task mpe");
        REQUIRE(r.exitCode == 0);
        std::string expected = "MPE\n3";
        for (uint32_t a : cpu.assignment)
            expected += " " + std::to_string(a);
        CHECK(r.out == expected + "\n");
        CHECK(r.err.rfind("cost ", 0) == 0);
        auto lib = ProblemLibrary::open(so);
        REQUIRE(lib.ok());
        auto sol = lib->solve({});
        REQUIRE(sol.ok());
        CHECK(sol->cost == cpu.cost);
        CHECK(std::abs(assignmentCost(*net, sol->assignment) - cpu.cost) <= 1e-12);
    }
}
