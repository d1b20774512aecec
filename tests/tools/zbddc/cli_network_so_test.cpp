// `zbddc NET -o net.so [--route mlf|jt|auto]` and `zbddc run net.so`: the network.so answers a
// batch as the in-process junction tree prints it, to rounding (the oracle here; both are checked
// against brute force and elimination in their own tests), stderr says which route was written,
// the C example answers through the ABI alone, and flags of the other route are usage errors.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <cstdio>
#include <regex>
#include <vector>

using namespace zbddc::testing;

namespace {

const std::string kAlarm = ZBDDC_BENCHMARKS_DIR "/bn/alarm.bif";

// examples/query_network.c on a network .so: its stdout, or "" when it fails.
std::string queryNetwork(const std::string &so, const std::string &evidence) {
    const std::string cmd =
        std::string(ZBDDC_BINARY_DIR) + "/examples/zbdd_query_network '" + so + "' " + evidence;
    std::string out;
    FILE *pipe = popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;)
        out.append(buf, n);
    return pclose(pipe) == 0 ? out : "";
}

// Every number in UAI result text, in order.
std::vector<double> numbers(const std::string &text) {
    std::vector<double> out;
    const std::regex number("-?[0-9][0-9.e+-]*|-?inf");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
         it != std::sregex_iterator(); ++it)
        out.push_back(std::stod(it->str()));
    return out;
}

} // namespace

TEST_CASE("run net.so prints what the in-process junction tree prints", "[jt][cli][network_so]") {
    // Five cases of the UAI batch layout over alarm's 37 variables, one of them impossible:
    // HYPOVOLEMIA (0) and LVFAILURE (3) observed, and an empty case.
    const std::string evid =
        writeScratch("alarm.evid", "5\n2 0 1 5 0\n0\n3 0 0 3 1 7 1\n1 20 2\n2 12 0 30 1\n");
    const std::string so = scratchDir() + "/alarm-jt.so";
    const auto written = runZbddc("'" + kAlarm + "' -o '" + so + "' --route jt --batch 2");
    REQUIRE(written.exitCode == 0);
    CHECK(written.err.find("route jt: asked for (--route jt)") != std::string::npos);
    CHECK(written.err.find("2 case(s) per run") != std::string::npos);
    for (const char *task : {"pr", "mar", "mpe"}) {
        INFO(task);
        const auto viaSo =
            runZbddc("run '" + so + "' --task " + task + " --evidence '" + evid + "'");
        const auto inProcess = runZbddc("run '" + kAlarm + "' --route jt --device cpu --task " +
                                        task + " --evidence '" + evid + "'");
        REQUIRE(viaSo.exitCode == inProcess.exitCode);
        // The .so runs the batched tree, the in-process CPU one case at a time (its CPTs
        // sliced by the evidence): the same numbers up to rounding.
        const std::vector<double> a = numbers(viaSo.out), b = numbers(inProcess.out);
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i)
            CHECK(a[i] == Approx(b[i]).margin(1e-12));
    }
    const auto json = runZbddc("run '" + so + "' --json --evidence '" + evid + "'");
    REQUIRE(json.exitCode == 0);
    CHECK(json.out.find("\"route\":\"jt\"") != std::string::npos);
    CHECK(json.out.find("\"device\":\"cpu (network.so, route jt)\"") != std::string::npos);

    // The C example, through the ABI alone: the same log10 P(e) as zbddc prints.
    const std::string answered = queryNetwork(so, "0=1 5=0");
    REQUIRE(answered.rfind("route jt\npr ", 0) == 0);
    const double log10 = std::stod(answered.substr(answered.find("pr ") + 3));
    const std::string single = writeScratch("alarm-one.evid", "2 0 1 5 0\n"); // UAI: indices
    const auto one = runZbddc("run '" + so + "' --json --evidence '" + single + "'");
    REQUIRE(one.exitCode == 0);
    const double printed = std::stod(one.out.substr(one.out.find("\"log10\":") + 8));
    CHECK(log10 == Approx(printed).margin(1e-12));
    CHECK(answered.find("\nmpe ") != std::string::npos);
}

TEST_CASE("-o net.so says which route it wrote; flags of the other route are usage errors",
          "[jt][cli][network_so]") {
    const std::string so = scratchDir() + "/alarm-route.so";
    const auto mlf = runZbddc("'" + kAlarm + "' -o '" + so + "' --route mlf");
    REQUIRE(mlf.exitCode == 0);
    CHECK(mlf.err.find("route mlf: asked for (--route mlf)") != std::string::npos);
    const auto automatic = runZbddc("'" + kAlarm + "' -o '" + so + "'");
    REQUIRE(automatic.exitCode == 0);
    CHECK(automatic.err.find("zbddc: note: route ") != std::string::npos);
    CHECK(runZbddc("'" + kAlarm + "' -o '" + so + "' --route jt -O2").exitCode == 2);
    CHECK(runZbddc("'" + kAlarm + "' -o '" + so + "' --route mlf --batch 4").exitCode == 2);
    CHECK(runZbddc("'" ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd' -o '" + so + "' --route jt")
              .exitCode == 2);
    const std::string jt = scratchDir() + "/alarm-jt2.so";
    REQUIRE(runZbddc("'" + kAlarm + "' -o '" + jt + "' --route jt").exitCode == 0);
    CHECK(runZbddc("run '" + jt + "' --task eval").exitCode == 2);
    CHECK(runZbddc("run '" + jt + "' --route mlf").exitCode == 2);
}

TEST_CASE("a network's MLF model.so answers PR and MAR through the same ABI as its network.so",
          "[jt][cli][network_so]") {
    const std::string evid =
        writeScratch("alarm-mlf.evid", "4\n2 0 1 5 0\n0\n1 20 2\n2 12 0 30 1\n");
    const std::string mlf = scratchDir() + "/alarm-mlf.so", jt = scratchDir() + "/alarm-jt3.so";
    REQUIRE(runZbddc("'" + kAlarm + "' -o '" + mlf + "' --route mlf").exitCode == 0);
    REQUIRE(runZbddc("'" + kAlarm + "' -o '" + jt + "' --route jt").exitCode == 0);
    for (const char *task : {"pr", "mar"}) {
        INFO(task);
        const auto viaMlf = runZbddc("run '" + mlf + "' --task " + std::string(task) +
                                     " --evidence '" + evid + "'");
        const auto viaJt =
            runZbddc("run '" + jt + "' --task " + std::string(task) + " --evidence '" + evid + "'");
        REQUIRE(viaMlf.exitCode == 0);
        REQUIRE(viaJt.exitCode == 0);
        const auto json = runZbddc("run '" + mlf + "' --json --task " + std::string(task));
        CHECK(json.out.find("\"device\":\"cpu (model.so, route mlf)\"") != std::string::npos);
        const std::vector<double> a = numbers(viaMlf.out), b = numbers(viaJt.out);
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i)
            CHECK(a[i] == Approx(b[i]).margin(1e-12));
        // ... and as the in-process MLF route prints it.
        const auto inProcess = runZbddc("run '" + kAlarm + "' --route mlf --task " +
                                        std::string(task) + " --evidence '" + evid + "'");
        CHECK(viaMlf.out == inProcess.out);
    }
    // MPE is not the MLF's (ZBDD_NETWORK_ENOTASK): the example says so, and zbddc run takes the
    // circuit path, which names the semiring the .so would need.
    const std::string answered = queryNetwork(mlf, "0=1");
    CHECK(answered.rfind("route mlf\npr ", 0) == 0);
    CHECK(answered.find("\nmpe unsupported\n") != std::string::npos);
    const auto mpe = runZbddc("run '" + mlf + "' --task mpe");
    CHECK(mpe.exitCode == 1);
    CHECK(mpe.err.find("max-product") != std::string::npos);
}
