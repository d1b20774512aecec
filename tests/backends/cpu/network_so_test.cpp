// model.so of every benchmark network the MLF route compiles (the model.so route end to end): the
// network is compiled the way a user does it (`zbddc NET.bif -o NET.zdd`, then
// `zbddc NET.zdd -o NET.so`), the C example program dlopens the .so and evaluates random inputs,
// the test itself dlopens it for the adjoints, and both must equal the reference evaluator on the
// .zdd's circuit; then `zbddc run NET.so` must answer PR and MAR like `zbddc run NET.zdd --device
// reference`. The small networks run in the unit suite; insurance, water, hailfinder and pathfinder
// (10^5 ZBDD nodes, seconds each) only under [slow] (CTest: test_cpu_networks_slow).
#include "ir/interpret.h"
#include "pipeline/load_model.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/random_circuits.h"
#include "tests/support/run_zbddc.h"
#include "tests/support/so_loader.h"
#include "tests/support/uai_answer.h"

#include <filesystem>
#include <fstream>
#include <limits>

using namespace zbddc;
using zbddc::testing::checkSameAnswer;
using zbddc::testing::close;
using zbddc::testing::runZbddc;
using zbddc::testing::scratchDir;
namespace fs = std::filesystem;

namespace {

constexpr double kPoison = std::numeric_limits<double>::quiet_NaN();

fs::path network(const std::string &name) {
    return fs::path(ZBDDC_BENCHMARKS_DIR) / "bn" / (name + ".bif");
}

// Forward through the C example program (a separate process: dlopen from C), adjoints through
// the test's own dlopen; both against the reference evaluator.
void checkAgainstReference(const Circuit &c, const fs::path &so, std::mt19937 &rng) {
    const size_t batch = 5, n = c.numInputs(), m = c.numOutputs();
    const std::vector<double> x = testing::randomInputs(rng, batch * n);
    const fs::path in = so.string() + ".in", out = so.string() + ".out";
    {
        std::ofstream f(in);
        f.precision(17);
        for (size_t s = 0; s < batch; ++s)
            for (size_t i = 0; i < n; ++i)
                f << x[s * n + i] << (i + 1 == n ? '\n' : ' ');
    }
    const std::string command = std::string(ZBDDC_BINARY_DIR) + "/examples/zbdd_eval_model " +
                                so.string() + " < " + in.string() + " > " + out.string();
    REQUIRE(std::system(command.c_str()) == 0);
    std::ifstream printed(out);
    std::vector<Evaluation> refs;
    for (size_t s = 0; s < batch; ++s) {
        auto ref = evaluate(c, std::span(x.data() + s * n, n), c.semiring);
        REQUIRE(ref.ok());
        for (size_t o = 0; o < m; ++o) {
            double got = kPoison;
            REQUIRE(static_cast<bool>(printed >> got));
            CHECK(close(got, ref->values[c.outputs[o]]));
        }
        refs.push_back(std::move(*ref));
    }
    double extra;
    CHECK_FALSE(static_cast<bool>(printed >> extra));

    testing::Loaded lib(so);
    REQUIRE(lib.numInputs() == n);
    REQUIRE(lib.numOutputs() == m);
    std::vector<double> adj(batch * n, kPoison);
    REQUIRE(lib.adjoints(x.data(), 0, adj.data(), batch) == ZBDD_OK);
    for (size_t s = 0; s < batch; ++s) {
        const std::vector<double> want = inputAdjoints(c, refs[s], 0);
        for (size_t i = 0; i < n; ++i)
            CHECK(close(adj[s * n + i], want[i]));
    }
}

// `zbddc run NET.so` against `zbddc run NET.zdd --device reference`: PR and MAR, without and
// with evidence on the first variable.
void checkRunAgreesWithZdd(const fs::path &zdd, const fs::path &so) {
    const std::string evidence = testing::writeScratch(zdd.stem().string() + ".evid", "1\n0 0\n");
    for (const char *task : {"pr", "mar"}) {
        for (const std::string &e : {std::string(), " --evidence " + evidence}) {
            INFO(task << e);
            auto want = runZbddc("run " + zdd.string() + " --device reference --task " + task + e);
            auto got = runZbddc("run " + so.string() + " --task " + task + e);
            REQUIRE(want.exitCode == 0);
            REQUIRE(got.exitCode == 0);
            checkSameAnswer(got.out, want.out);
        }
    }
}

void checkNetworks(const std::vector<std::string> &names, uint32_t seed) {
    std::mt19937 rng(seed);
    for (const std::string &name : names) {
        const fs::path bif = network(name);
        INFO(name);
        REQUIRE(fs::exists(bif));
        const fs::path zdd = fs::path(scratchDir()) / (name + ".zdd");
        const fs::path so = fs::path(scratchDir()) / (name + ".so");
        REQUIRE(runZbddc(bif.string() + " -o " + zdd.string()).exitCode == 0);
        REQUIRE(runZbddc(zdd.string() + " -o " + so.string()).exitCode == 0);
        auto circuit = loadCircuit(zdd.string());
        REQUIRE(circuit.ok());
        checkAgainstReference(*circuit, so, rng);
        checkRunAgreesWithZdd(zdd, so);
    }
}

} // namespace

TEST_CASE("model.so of the small benchmark networks equals the reference evaluator",
          "[cpu][so][networks]") {
    checkNetworks({"asia", "cancer", "earthquake", "sachs", "survey", "alarm"}, 31);
}

TEST_CASE("model.so of the 10^5-node benchmark networks equals the reference evaluator",
          "[.][slow]") {
    checkNetworks({"insurance", "water", "hailfinder", "pathfinder"}, 37);
}
