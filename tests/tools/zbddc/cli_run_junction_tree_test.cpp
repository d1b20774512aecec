// `zbddc run NET --route mlf|jt|auto`: the two routes answer a batch alike (the MLF route is the
// oracle here; both are checked against brute force and elimination in their own tests), the
// JSON says which route ran and why, auto weighs the routes by the device and takes the junction
// tree where the MLF would exceed the node limit, and --route on a model that is not a network is a
// usage error.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"
#include "tests/support/scratch.h"
#include "tests/support/uai_result_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

using namespace zbddc::testing;

namespace {

// Every number in the output, in order (UAI text: task lines, counts and values).
std::vector<double> numbers(const std::string &text) {
    std::vector<double> out;
    const std::regex number("-?[0-9][0-9.e+-]*|-?inf");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
         it != std::sregex_iterator(); ++it)
        out.push_back(std::stod(it->str()));
    return out;
}

void checkSameNumbers(const std::string &a, const std::string &b, double tolerance) {
    const std::vector<double> x = numbers(a), y = numbers(b);
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i)
        CHECK(x[i] == Approx(y[i]).margin(tolerance));
}

const std::string kAlarm = ZBDDC_BENCHMARKS_DIR "/bn/alarm.bif";
const std::string kAsia = ZBDDC_BENCHMARKS_DIR "/bn/asia.bif";

} // namespace

TEST_CASE("run --route jt answers a batch as --route mlf does", "[jt][cli]") {
    // Four cases of the UAI batch layout over asia's 8 variables (one with no evidence).
    const std::string evid = writeScratch("asia.evid", "4\n1 0 0\n2 1 1 6 0\n0\n3 2 0 3 1 7 1\n");
    for (const char *task : {"pr", "mar", "mpe"}) {
        INFO(task);
        const std::string args = "run '" + kAsia + "' --task " + task + " --evidence '" + evid +
                                 "' --device cpu --route ";
        const auto jt = runZbddc(args + "jt");
        const auto mlf = runZbddc(args + "mlf");
        INFO(jt.err << mlf.err);
        REQUIRE(jt.exitCode == 0);
        REQUIRE(mlf.exitCode == 0);
        checkSameNumbers(jt.out, mlf.out, 1e-12);
        CHECK(jt.err.find("route jt: asked for (--route jt)") != std::string::npos);
    }
    const auto json = runZbddc("run '" + kAlarm + "' --task mar --route jt --json");
    INFO(json.err);
    REQUIRE(json.exitCode == 0);
    CHECK(json.out.find("\"route\":\"jt\"") != std::string::npos);
    CHECK(json.out.find("junction tree") != std::string::npos); // in the device field
}

TEST_CASE("run --route auto weighs the routes for the device that runs them, and --device auto "
          "runs one case on the CPU",
          "[jt][cli]") {
    // On the CPU a ZBDD node per case costs ~1/50 of a clique entry, and compiling it ~12: one
    // case of alarm goes to the tree (1e3 entries against 1e4 nodes to compile), 200 cases to
    // the MLF (2e5 entries of work against 1.3e5 + 4e4). The estimate alone (--estimate-only):
    // these are within the pilot's band, where auto otherwise times both.
    const auto sampled = runZbddc("sample '" + kAlarm + "' --cases 200 --seed 3");
    REQUIRE(sampled.exitCode == 0);
    const std::string many = writeScratch("alarm200.evid", sampled.out);
    const auto batch = runZbddc("run '" + kAlarm +
                                "' --task pr --device cpu --json --estimate-only "
                                "--evidence '" +
                                many + "'");
    INFO(batch.err);
    REQUIRE(batch.exitCode == 0);
    CHECK(batch.out.find("\"route\":\"mlf\",\"route_why\":\"auto (cpu): 200 case(s)") !=
          std::string::npos);
    const auto one = runZbddc("run '" + kAlarm + "' --task pr --device cpu --json --estimate-only");
    INFO(one.err);
    REQUIRE(one.exitCode == 0);
    CHECK(one.out.find("\"route\":\"jt\",\"route_why\":\"auto (cpu): 1 case(s)") !=
          std::string::npos);
    // --device auto (the default) runs one case on the CPU on either route, and says so.
    const auto oneAuto = runZbddc("run '" + kAlarm + "' --task pr --json");
    REQUIRE(oneAuto.exitCode == 0);
    CHECK(oneAuto.out.find("; auto: one case)\"") != std::string::npos);
    CHECK(one.out.find("auto: one case") == std::string::npos); // --device cpu: asked for
    const auto mlf = runZbddc("run '" + kAsia + "' --task pr --json --route mlf");
    INFO(mlf.err);
    REQUIRE(mlf.exitCode == 0);
    CHECK(mlf.out.find("\"device\":\"cpu (data-driven loop, float64; auto: one case)\"") !=
          std::string::npos);
    const auto asked = runZbddc("run '" + kAsia + "' --task pr --json --route mlf --device cpu");
    REQUIRE(asked.exitCode == 0);
    CHECK(asked.out.find("auto: one case") == std::string::npos);
}

TEST_CASE("run --route auto times both routes where the estimates are close, and remembers",
          "[jt][cli]") {
    // 50 cases of alarm: the estimates within 2x (one case: 130x, the tree by the estimate).
    const auto sampled = runZbddc("sample '" + kAlarm + "' --cases 50 --seed 3");
    REQUIRE(sampled.exitCode == 0);
    const std::string cases = writeScratch("alarm50.evid", sampled.out);
    const std::string cache = scratchDir() + "/route-cache";
    const std::string run = "ZBDDC_CACHE_DIR='" + cache + "' " + std::string(ZBDDC_EXE) + " run '" +
                            kAlarm + "' --task mar --device cpu --json --evidence '" + cases + "'";
    const auto first = runProgram(run);
    INFO(first.err);
    REQUIRE(first.exitCode == 0);
    CHECK(first.out.find("\"route_why\":\"pilot over 8 case(s)") != std::string::npos);
    const auto second = runProgram(run);
    REQUIRE(second.exitCode == 0);
    CHECK(second.out.find(" (cached)\"") != std::string::npos);
    // A damaged cache file: one warning naming it, and the routes timed again.
    for (const auto &entry : std::filesystem::directory_iterator(cache + "/route-choice"))
        std::ofstream(entry.path(), std::ios::trunc) << "not a route choice\n";
    const auto damaged = runProgram(run);
    REQUIRE(damaged.exitCode == 0);
    CHECK(damaged.err.find(cache + "/route-choice/") != std::string::npos);
    CHECK(damaged.err.find(".route: warning: not a route choice") != std::string::npos);
    CHECK(damaged.out.find("\"route_why\":\"pilot over 8 case(s)") != std::string::npos);
    const auto forced = runProgram(run + " --route jt");
    CHECK(forced.out.find("\"route_why\":\"asked for (--route jt)\"") != std::string::npos);
}

TEST_CASE("run --route auto takes the junction tree over the node limit, and says why",
          "[jt][cli]") {
    const auto r = runZbddc("run '" + kAlarm + "' --task pr --json --zbdd-node-limit 100");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("\"route\":\"jt\"") != std::string::npos);
    CHECK(r.out.find("over the node limit") != std::string::npos);
    const auto mlf = runZbddc("run '" + kAsia + "' --task pr --json --route mlf");
    REQUIRE(mlf.exitCode == 0);
    CHECK(mlf.out.find("\"route\":\"mlf\",\"route_why\":\"asked for (--route mlf)\"") !=
          std::string::npos);
}

TEST_CASE("run --route: usage errors", "[jt][cli]") {
    const std::string zdd = ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd";
    CHECK(runZbddc("run '" + zdd + "' --route jt").exitCode == 2);
    CHECK(runZbddc("run '" + kAsia + "' --route nope").exitCode == 2);
    CHECK(runZbddc("run '" + kAsia + "' --route jt --task eval").exitCode == 2);
    const std::string wcsp = writeScratch("tiny.wcsp", "tiny 2 2 1 10\n2 2\n2 0 1 0 1\n1 1 5\n");
    CHECK(runZbddc("run '" + wcsp + "' --heuristic search").exitCode == 2);
}

TEST_CASE("sample writes forward-sampled cases: reproducible, each with P(e) > 0", "[jt][cli]") {
    const std::string a = scratchDir() + "/a.evid", b = scratchDir() + "/b.evid";
    REQUIRE(runZbddc("sample '" + kAlarm + "' --cases 40 --seed 3 -o '" + a + "'").exitCode == 0);
    REQUIRE(runZbddc("sample '" + kAlarm + "' --cases 40 --seed 3 -o '" + b + "'").exitCode == 0);
    CHECK(slurp(a) == slurp(b));
    CHECK(slurp(a).rfind("40\n", 0) == 0);
    const auto other = runZbddc("sample '" + kAlarm + "' --cases 40 --seed 4");
    REQUIRE(other.exitCode == 0);
    CHECK(other.out != slurp(a));
    // P(e) of every case from the MLF route (an oracle independent of the sampler).
    const auto pr = runZbddc("run '" + kAlarm + "' --task pr --route mlf --evidence '" + a + "'");
    REQUIRE(pr.exitCode == 0);
    const auto values = readUai2010(pr.out, "PR"); // a batch prints the 2010 layout
    REQUIRE(values.has_value());
    REQUIRE(values->size() == 40);
    for (const UaiSolution &s : *values)
        CHECK(s.log10 > -300);
    CHECK(runZbddc("sample '" ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd'").exitCode == 2);
    CHECK(runZbddc("sample '" + kAlarm + "' --observed 2").exitCode == 2);
}

TEST_CASE("run: an impossible case of a batch is reported alone, the others answered", "[cli]") {
    // asia: `either` is a deterministic OR of tub and lung; observing tub=yes and
    // either=no is impossible. Variables by index: asia 0, tub 1, smoke 2, lung 3, bronc 4,
    // either 5, xray 6, dysp 7; state 0 is "yes".
    const std::string evid = writeScratch("mixed.evid", "3\n1 2 0\n2 1 0 5 1\n0\n");
    for (const char *route : {"jt", "mlf"}) {
        INFO(route);
        const auto r = runZbddc("run '" + kAsia + "' --task mar --evidence '" + evid +
                                "' --route " + route + " --device cpu");
        CHECK(r.exitCode == 1);
        CHECK(r.err.find("case 1: ") != std::string::npos);
        CHECK(r.err.find("probability 0") != std::string::npos);
        // The 2010 layout keeps one line per case: the impossible one answers nothing ("0").
        const auto cases = readUai2010(r.out, "MAR");
        REQUIRE(cases.has_value());
        REQUIRE(cases->size() == 3);
        CHECK((*cases)[0].marginals.size() == 8);
        CHECK((*cases)[1].marginals.empty());
        CHECK((*cases)[2].marginals.size() == 8);
        const auto json = runZbddc("run '" + kAsia + "' --task mpe --json --evidence '" + evid +
                                   "' --route " + route + " --device cpu");
        CHECK(json.exitCode == 1);
        CHECK(json.out.find("{\"case\":1,\"error\":\"MPE is undefined: the evidence has "
                            "probability 0\"}") != std::string::npos);
    }
}

TEST_CASE("run: a batch whose every case fails alike is one error, and writes nothing", "[cli]") {
    // Both cases observe tub=yes and either=no, which asia's OR makes impossible.
    const std::string evid = writeScratch("impossible.evid", "2\n2 1 0 5 1\n2 1 0 5 1\n");
    const std::string out = scratchDir() + "/impossible.mar";
    std::filesystem::remove(out);
    const auto r = runZbddc("run '" + kAsia + "' --task mar --evidence '" + evid +
                            "' --route jt --device cpu -o '" + out + "'");
    CHECK(r.exitCode == 1);
    CHECK(r.err.find("MAR is undefined: the evidence has probability 0") != std::string::npos);
    CHECK(r.err.find("case 0: ") == std::string::npos); // one line for the run, not one a case
    CHECK_FALSE(std::filesystem::exists(out));
}
