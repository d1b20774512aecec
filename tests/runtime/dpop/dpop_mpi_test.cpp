// `zbddc run --distributed` under mpirun (one host, --oversubscribe; 4, 8 and 16 ranks): on
// generated instances of the DCOP benchmark families (random, scale-free, grid; |D| = 5, tightness
// 0.5) and, tagged [benchmarks], on the bundled .wcsp files, the optimum equals toulbar2's and the
// centralised route's (or all three find none), the printed assignment costs it, and N agents
// exchange 2(N-1) messages; on a UAI MARKOV network both routes match brute force. A rank that
// dies, or one whose messages never arrive, ends the run with an error and a non-zero exit within
// the phase timeout, never a hang. Skips (77) where mpirun, toulbar2 or an MPI build is absent.
#include "compiler/frontends/wcsp/read_cost_network.h"

#include "tests/catch.hpp"
#include "tests/support/random_networks.h"
#include "tests/support/run_zbddc.h"
#include "tests/support/scratch.h"
#include "tests/support/skip.h"
#include "tests/support/toulbar2_optimum.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <tuple>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

Status mpiRunAvailable() {
#ifndef ZBDDC_HAVE_MPI
    return error("zbddc was built without MPI (libopenmpi-dev absent at configure time)");
#else
    if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
        return error("mpirun is not on PATH (openmpi-bin)");
    if (std::system("command -v toulbar2 >/dev/null 2>&1") != 0)
        return error("toulbar2 is not on PATH");
    return Ok{};
#endif
}
const bool mpiPresent = skipProgramUnless(mpiRunAvailable(), "no distributed run here");

// mpirun as CI runs it: as root where it must, more ranks than cores.
std::string mpirun(int ranks, const std::string &env = "") {
    std::string cmd =
        "timeout 120 mpirun --allow-run-as-root --oversubscribe -np " + std::to_string(ranks);
    if (!env.empty())
        cmd = env + " " + cmd + " -x " + env.substr(0, env.find('='));
    return cmd + " ";
}

// A number after `"key": ` in a one-line JSON object; -1 where absent or null.
double jsonField(const std::string &json, const std::string &key) {
    const auto at = json.find("\"" + key + "\": ");
    if (at == std::string::npos)
        return -1;
    const char *p = json.c_str() + at + key.size() + 4;
    char *end = nullptr;
    const double v = std::strtod(p, &end);
    return end == p ? -1 : v;
}

// The values of "assignment": {"name": "value", ...}, in the order printed (variable order).
std::vector<uint32_t> jsonAssignment(const std::string &json) {
    std::vector<uint32_t> values;
    size_t at = json.find("\"assignment\": {");
    const size_t end = json.find('}', at);
    while ((at = json.find("\": \"", at)) < end) {
        at += 4;
        values.push_back(static_cast<uint32_t>(std::stoul(json.substr(at))));
    }
    return values;
}

// Runs `path` on `ranks` ranks and checks it against the centralised route and toulbar2.
void checkDistributed(const std::string &path, int ranks, const std::string &flags = "",
                      double agents = -1) {
    INFO(path << " on " << ranks << " ranks " << flags);
    const Outcome central = runZbddc("run '" + path + "' --json");
    const Outcome dist =
        runProgram(mpirun(ranks) + ZBDDC_EXE + " run '" + path + "' --distributed --json " + flags);
    INFO(dist.err);
    const auto optimum = toulbar2Optimum(path);
    if (!optimum) { // infeasible: every route must say so, as an error (no MPE to print)
        REQUIRE(toulbar2ProvesInfeasible(path));
        CHECK(dist.exitCode == 1);
        CHECK(central.exitCode == 1);
        CHECK(dist.err.find("so there is no MPE") != std::string::npos);
        CHECK(central.err.find("so there is no MPE") != std::string::npos);
        return;
    }
    REQUIRE(central.exitCode == 0);
    REQUIRE(dist.exitCode == 0);
    CHECK(jsonField(dist.out, "cost") == *optimum);
    CHECK(jsonField(central.out, "cost") == *optimum);
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    const std::vector<uint32_t> assignment = jsonAssignment(dist.out);
    REQUIRE(assignment.size() == net->numVariables());
    CHECK(assignmentCost(*net, assignment) == *optimum);
    if (agents < 0)
        agents = static_cast<double>(net->numVariables());
    CHECK(jsonField(dist.out, "agents") == agents);
    CHECK(jsonField(dist.out, "messages") == 2 * (agents - 1));
    CHECK(jsonField(dist.out, "ranks") == ranks);
}

std::string generated(const std::string &family, int n, int seed) {
    const std::string path = scratchDir() + "/" + family + "-" + std::to_string(n) + "-" +
                             std::to_string(seed) + ".wcsp";
    const std::string cmd = std::string(ZBDDC_BINARY_DIR) + "/bench/wcsp_generate --family " +
                            family + " --n " + std::to_string(n) +
                            " --density 0.3 --domain 5 --tightness 0.5 --seed " +
                            std::to_string(seed) + " -o '" + path + "'";
    REQUIRE(runProgram(cmd).exitCode == 0);
    return path;
}

} // namespace

TEST_CASE("DPOP on 4 ranks solves the generated DCOP families to toulbar2's optimum", "[mpi]") {
    checkDistributed(generated("random", 12, 1), 4);
    checkDistributed(generated("scale-free", 14, 2), 4); // no feasible assignment
    checkDistributed(generated("scale-free", 14, 4), 4);
    checkDistributed(generated("grid", 16, 3), 4);
}

TEST_CASE("DPOP on 8 and 16 ranks solves each generated family to toulbar2's optimum", "[mpi]") {
    // 16-25 agents: on 16 ranks most ranks hold one or two agents, so most messages cross ranks.
    for (const auto &[family, n, seed] :
         {std::tuple{"random", 16, 8}, {"scale-free", 16, 2}, {"grid", 25, 1}}) {
        const std::string path = generated(family, n, seed);
        checkDistributed(path, 8);
        checkDistributed(path, 16);
    }
}

TEST_CASE("DPOP on 8 and 16 ranks, and with agents owning several variables", "[mpi]") {
    const std::string path = generated("random", 12, 4);
    checkDistributed(path, 8);
    checkDistributed(path, 16, "--order " + writeScratch("order.txt", "11 10 9 8 7 6 5 4 3 2 1 0"));
    const std::string agents = writeScratch("agents.txt", "0 0 0 1 1 1 2 2 2 3 3 3\n");
    checkDistributed(path, 4, "--agents " + agents, 4);
}

TEST_CASE("a rank that dies or goes silent ends the run with an error, not a hang", "[mpi]") {
    const std::string path = generated("grid", 16, 5);
    const auto t0 = std::chrono::steady_clock::now();
    const Outcome silent = runProgram(mpirun(4, "ZBDDC_DPOP_TEST_SILENT_RANK=2") + ZBDDC_EXE +
                                      " run '" + path + "' --distributed --phase-timeout 2");
    INFO(silent.err);
    CHECK(silent.exitCode != 0);
    CHECK(silent.exitCode != 124); // ended by the phase timeout, not by the test's own limit
    CHECK(silent.err.find("no message for 2 s") != std::string::npos);
    const Outcome dead = runProgram(mpirun(4, "ZBDDC_DPOP_TEST_EXIT_RANK=1") + ZBDDC_EXE +
                                    " run '" + path + "' --distributed --phase-timeout 2");
    CHECK(dead.exitCode != 0);
    CHECK(dead.exitCode != 124);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(seconds < 60);
}

TEST_CASE("DPOP reads UAI MARKOV networks as the centralised route does", "[mpi]") {
    // A loop of four binary variables: costs -ln p, real numbers.
    const std::string path = writeScratch("loop.uai", "MARKOV\n4\n2 2 2 2\n4\n"
                                                      "2 0 1\n2 1 2\n2 2 3\n2 3 0\n\n"
                                                      "4\n0.9 0.1 0.2 0.8\n\n4\n0.3 0.7 0.6 0.4\n\n"
                                                      "4\n0.5 0.5 0.1 0.9\n\n4\n0.7 0.2 0.4 0.6\n");
    const Outcome central = runZbddc("run '" + path + "' --json");
    const Outcome dist =
        runProgram(mpirun(4) + ZBDDC_EXE + " run '" + path + "' --distributed --json");
    INFO(dist.err);
    REQUIRE(central.exitCode == 0);
    REQUIRE(dist.exitCode == 0);
    auto net = readCostNetworkFile(path);
    REQUIRE(net.ok());
    const double expected = bruteForceOptimum(*net);
    CHECK(jsonField(central.out, "cost") == Approx(expected).epsilon(1e-12));
    CHECK(jsonField(dist.out, "cost") == Approx(expected).epsilon(1e-12));
    CHECK(assignmentCost(*net, jsonAssignment(dist.out)) == Approx(expected).epsilon(1e-12));
    CHECK(jsonField(dist.out, "messages") == 6);
}

TEST_CASE("--distributed outside mpirun is one clear error", "[mpi]") {
    const Outcome o = runZbddc("run '" + generated("random", 10, 6) + "' --distributed");
    CHECK(o.exitCode == 2);
    CHECK(o.out.empty());
    CHECK(o.err == "zbddc: --distributed runs under mpirun (mpirun -np N zbddc run FILE "
                   "--distributed); this process was not started by mpirun\n");
}

TEST_CASE("DPOP on 4 ranks solves the bundled WCSP benchmarks to toulbar2's optimum",
          "[.benchmarks]") {
    const std::string dir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
    skipProgramUnless(std::filesystem::exists(dir) ? Status(Ok{}) : error(dir + " is absent"),
                      "no benchmark inputs");
    for (const char *name : {"example", "4queens", "warehouse", "zebra"})
        checkDistributed(dir + "/" + name + ".wcsp", 4);
}
