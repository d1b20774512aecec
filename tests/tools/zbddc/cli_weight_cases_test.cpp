// `zbddc run CIRCUIT --weight-cases FILE`: one result row per weighting (UAI text and JSON), each
// as a run of its own with that weighting as --weights prints it, and each count against
// enumeration of the CNF's models; malformed batches named by file:line.
#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"
#include "tests/support/run_zbddc.h"

#include <regex>
#include <sstream>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

std::vector<double> jsonValues(const std::string &json) {
    std::vector<double> values;
    const std::regex value("\"value\":([-+0-9.eE]+)");
    for (auto it = std::sregex_iterator(json.begin(), json.end(), value);
         it != std::sregex_iterator(); ++it)
        values.push_back(std::stod((*it)[1]));
    return values;
}

std::vector<std::string> lines(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        out.push_back(line);
    return out;
}

// A weights file in the plain table layout: `v w(x_v) w(¬x_v)` per variable.
std::string weightsTable(const LiteralWeights &w) {
    std::ostringstream out;
    out.precision(17);
    for (uint32_t v = 1; v <= w.numVars(); ++v)
        out << v << " " << w.positive[v - 1] << " " << w.negative[v - 1] << "\n";
    return out.str();
}

} // namespace

TEST_CASE("--weight-cases prints a row per weighting, as one --weights run per case and "
          "enumeration give",
          "[cli][circuits]") {
    const std::string circuit = kCircuitFiles + "cnf_a.sdd";
    const Cnf cnf = readDimacs(kCircuitFiles + "cnf_a.cnf");
    REQUIRE(cnf.numVars == 6);
    LiteralWeights base; // --weights: every variable; the batch varies x1 and x4 over it
    for (uint32_t v = 1; v <= 6; ++v) {
        base.positive.push_back(0.2 + 0.15 * v);
        base.negative.push_back(1.3 - 0.1 * v);
    }
    const std::string baseFile = writeScratch("wc-base.weights", weightsTable(base));
    const std::vector<std::vector<double>> rows = {
        {0.25, 0.75, 0.5, 1.5}, {1, 1, 1, 1}, {0.1, 0.9, 2, 0}, {3, 0.125, 0.7, 0.3}};
    std::string batch = "c x1 and x4 vary\nliterals 1 -1 4 -4\n";
    std::vector<LiteralWeights> weightings;
    for (const auto &row : rows) {
        batch += std::to_string(row[0]) + " " + std::to_string(row[1]) + " " +
                 std::to_string(row[2]) + " " + std::to_string(row[3]) + "\n";
        LiteralWeights w = base;
        w.positive[0] = row[0], w.negative[0] = row[1], w.positive[3] = row[2],
        w.negative[3] = row[3];
        weightings.push_back(w);
    }
    const std::string cases = writeScratch("wc.cases", batch);
    const std::string common = "run " + circuit + " --weights " + baseFile + " --device cpu ";

    auto pr = runZbddc(common + "--weight-cases " + cases + " --task pr --json");
    REQUIRE(pr.exitCode == 0);
    const std::vector<double> counts = jsonValues(pr.out);
    REQUIRE(counts.size() == rows.size());
    for (size_t k = 0; k < rows.size(); ++k) {
        INFO("case " << k);
        CHECK(relativeError(counts[k], bruteForceCnfWmc(cnf, weightings[k])) < 1e-12);
        const std::string one =
            writeScratch("wc-" + std::to_string(k) + ".weights", weightsTable(weightings[k]));
        auto single =
            runZbddc("run " + circuit + " --weights " + one + " --device cpu --task pr --json");
        REQUIRE(single.exitCode == 0);
        REQUIRE(jsonValues(single.out).size() == 1);
        CHECK(jsonValues(single.out)[0] == counts[k]); // the same circuit, the same arithmetic
        // MAR and MPE: the batch's row k is the single run's answer line.
        for (const char *task : {"mar", "mpe"}) {
            INFO(task);
            auto rowsRun = runZbddc(common + "--weight-cases " + cases + " --task " + task);
            auto singleRun =
                runZbddc("run " + circuit + " --weights " + one + " --device cpu --task " + task);
            REQUIRE(rowsRun.exitCode == 0);
            REQUIRE(singleRun.exitCode == 0);
            const auto batchLines = lines(rowsRun.out), singleLines = lines(singleRun.out);
            REQUIRE(batchLines.size() == 2 + rows.size()); // MAR, the count, a line per case
            REQUIRE(singleLines.size() == 2);
            CHECK(batchLines[0] == singleLines[0]);
            CHECK(batchLines[1] == std::to_string(rows.size()));
            CHECK(batchLines[2 + k] == singleLines[1]);
        }
    }
    // Evidence applies to every weighting: x1 = 1 keeps the models with x1 true.
    auto observed = runZbddc(common + "--weight-cases " + cases + " --evidence x1=1 --json");
    REQUIRE(observed.exitCode == 0);
    const std::vector<double> conditioned = jsonValues(observed.out);
    REQUIRE(conditioned.size() == rows.size());
    for (size_t k = 0; k < rows.size(); ++k)
        CHECK(relativeError(conditioned[k], bruteForceCnfWmc(cnf, weightings[k], 1)) < 1e-12);
    // Without a literals line the columns are w(x1) w(¬x1) w(x2) w(¬x2) ...: the same counts.
    std::string full;
    for (const LiteralWeights &w : weightings) {
        std::ostringstream row;
        row.precision(17);
        for (uint32_t v = 1; v <= 6; ++v)
            row << w.positive[v - 1] << " " << w.negative[v - 1] << (v < 6 ? " " : "\n");
        full += row.str();
    }
    auto plain = runZbddc("run " + circuit + " --device cpu --json --weight-cases " +
                          writeScratch("wc-full.cases", full));
    REQUIRE(plain.exitCode == 0);
    CHECK(jsonValues(plain.out) == counts);
}

TEST_CASE("a malformed --weight-cases names file:line; its misuse is a usage error",
          "[cli][circuits]") {
    const std::string circuit = kCircuitFiles + "cnf_a.nnf";
    const std::string bad = writeScratch("wc-bad.cases", "literals 1 -1\n0.5 0.5\n0.5\n");
    const std::string out = scratchDir() + "/wc-never.txt";
    auto r = runZbddc("run " + circuit + " --weight-cases " + bad + " -o " + out);
    CHECK(r.exitCode == 1);
    CHECK(r.err == bad + ":3: case 2 has 1 weights, for 2 literals\n");
    CHECK(!exists(out)); // nothing half-written
    const std::string half = writeScratch("wc-half.cases", "literals 2\n1\n");
    auto h = runZbddc("run " + circuit + " --weight-cases " + half);
    CHECK(h.exitCode == 1);
    CHECK_THAT(h.err, Catch::Contains(half + ":1: literal 2 without -2"));
    const std::string good = writeScratch("wc-good.cases", "0.5 0.5\n");
    CHECK(runZbddc("run " + circuit + " --weight-cases " + good + " --inputs " +
                   writeScratch("wc.inputs", "1 1"))
              .exitCode == 2);
    auto evid = runZbddc("run " + circuit + " --weight-cases " + good + " --evidence " +
                         writeScratch("wc.evid", "2\n1 0 1\n1 0 0\n"));
    CHECK(evid.exitCode == 2);
    CHECK_THAT(evid.err, Catch::Contains("one evidence case"));
    auto zdd = runZbddc("run " ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd --weight-cases " + good);
    CHECK(zdd.exitCode == 2);
    CHECK_THAT(zdd.err, Catch::Contains("--weight-cases does not apply to a zdd"));
}
