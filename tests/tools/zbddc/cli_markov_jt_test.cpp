// `zbddc run X.uai --task pr|mar` (and `--task mpe --route jt`) on UAI MARKOV networks: the
// junction tree through the command line, its UAI result text (one case in the 2014 layout, a
// counted .evid in the 2010 layout) and JSON, read by the tests' own result reader and checked
// against brute force; a bare `n v s ...` .evid and a counted one give the same case; a model
// whose tree cannot fit is refused with its size, pointing to the approximate route.
#include "tests/catch.hpp"
#include "tests/support/markov_brute_force.h"
#include "tests/support/run_zbddc.h"
#include "tests/support/uai_result_reader.h"

#include <cmath>
#include <filesystem>
#include <random>

using namespace zbddc::testing;

TEST_CASE("run: a Markov network's PR, MAR and MPE through its junction tree", "[cli][markov]") {
    std::mt19937 rng(53);
    for (int trial = 0; trial < 6; ++trial) {
        INFO("trial " << trial);
        const MarkovNet net = randomMarkovNet(rng, 3 + rng() % 4, /*huge=*/trial % 2 == 1);
        const std::string uai = writeScratch("jt.uai", net.uaiText());
        // One case: variable 0 observed in a state its factors allow.
        std::vector<int> e(net.domains.size(), -1);
        MarkovAnswers want = bruteForceMarkov(net, e);
        if (std::isinf(want.log10Z))
            continue;
        e[0] = want.marginals[0][0] > 0 ? 0 : 1;
        want = bruteForceMarkov(net, e);
        const std::string bare = writeScratch("bare.evid", "1 0 " + std::to_string(e[0]) + "\n");
        const std::string counted =
            writeScratch("counted.evid", "1\n1 0 " + std::to_string(e[0]) + "\n");

        const auto pr = runZbddc("run '" + uai + "' --task pr --evidence '" + bare + "'");
        INFO(pr.err);
        REQUIRE(pr.exitCode == 0);
        const auto prSolution = readUai2014(pr.out, "PR");
        REQUIRE(prSolution.has_value());
        CHECK(prSolution->log10 == Approx(want.log10Z).epsilon(1e-12).margin(1e-9));

        const auto mar = runZbddc("run '" + uai + "' --task mar --evidence '" + counted + "'");
        REQUIRE(mar.exitCode == 0);
        const auto marBatch = readUai2010(mar.out, "MAR");
        REQUIRE(marBatch.has_value());
        REQUIRE(marBatch->size() == 1);
        const auto &marginals = marBatch->front().marginals;
        REQUIRE(marginals.size() == net.domains.size());
        for (size_t v = 0; v < marginals.size(); ++v)
            for (size_t s = 0; s < marginals[v].size(); ++s)
                CHECK(marginals[v][s] == Approx(want.marginals[v][s]).margin(1e-12));

        const auto mpe =
            runZbddc("run '" + uai + "' --task mpe --route jt --evidence '" + bare + "'");
        REQUIRE(mpe.exitCode == 0);
        const auto mpeSolution = readUai2014(mpe.out, "MPE");
        REQUIRE(mpeSolution.has_value());
        std::vector<uint32_t> x(mpeSolution->states.begin(), mpeSolution->states.end());
        REQUIRE(x.size() == net.domains.size());
        CHECK(x[0] == static_cast<uint32_t>(e[0]));
        CHECK(markovLog10Weight(net, x) == Approx(want.log10Mpe).epsilon(1e-12).margin(1e-9));

        const auto json = runZbddc("run '" + uai + "' --task pr --json --evidence '" + bare + "'");
        REQUIRE(json.exitCode == 0);
        CHECK(json.out.find("\"route\":\"jt\"") != std::string::npos);
    }
}

TEST_CASE("run: a Markov network no junction tree fits is refused with its size", "[cli][markov]") {
    // 30 variables of 16 states, every pair joined: a clique of 16^30 entries in every tree.
    MarkovNet net;
    net.domains.assign(30, 16);
    for (uint32_t u = 0; u < 30; ++u)
        for (uint32_t v = u + 1; v < 30; ++v)
            net.factors.push_back({{u, v}, std::vector<double>(16 * 16, 1.0)});
    const std::string uai = writeScratch("dense.uai", net.uaiText());
    const auto r = runZbddc("run '" + uai + "' --task mar");
    CHECK(r.exitCode == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("dense.uai") != std::string::npos);
    CHECK(r.err.find("entries") != std::string::npos);
    CHECK(r.err.find("--approximate") != std::string::npos);
}

// Grids_16's min-fill order gives bucket elimination 10^9.1 entries of messages, beyond its limit,
// where the tree's order search fits in 1.3e8 bytes: auto's MPE takes the tree rather than a
// refusal. Its optimum is Grids_16's MPE in BENCHMARKS.md (the tree and toulbar2 alike there).
TEST_CASE("run: MPE on a Markov network whose messages exceed elimination's limit takes the tree",
          "[cli][markov]") {
    const std::string uai = ZBDDC_BENCHMARKS_DIR "/uai/Grids_16.uai";
    REQUIRE(std::filesystem::exists(uai)); // tests/data's copy, unpacked by the build
    const auto r = runZbddc("run '" + uai + "' --task mpe --device cpu --json");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(r.out.find("\"route\":\"jt\"") != std::string::npos);
    CHECK(r.out.find("bucket elimination's messages exceed its limit") != std::string::npos);
}
