// `zbddc run X.uai --task mpe` on UAI MARKOV networks takes the elimination route: random tiny
// networks written as UAI files, solved through the CLI, must report the brute-force optimum of
// their -ln p costs and an assignment with that cost. `--task pr --route be` sums them: log10 Z(e)
// against brute force in log space (Z far beyond a double included); and a network no exact
// route fits is refused for PR with both routes' sizes.
#include "compiler/frontends/wcsp/read_cost_network.h"

#include "tests/catch.hpp"
#include "tests/support/markov_brute_force.h"
#include "tests/support/random_networks.h"
#include "tests/support/run_zbddc.h"
#include "tests/support/uai_result_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

using namespace zbddc;
using zbddc::testing::runZbddc;

namespace {
// A MARKOV file with `n` variables and `m` random factors (some zero entries).
std::string randomMarkovUai(std::mt19937 &rng, uint32_t n, uint32_t m) {
    std::uniform_int_distribution<uint32_t> domain(2, 3), arity(1, 3), entry(0, 9);
    std::vector<uint32_t> domains(n);
    std::ostringstream out;
    out << "MARKOV\n" << n << "\n";
    for (uint32_t &d : domains)
        out << (d = domain(rng)) << " ";
    out << "\n" << m << "\n";
    std::vector<std::vector<uint32_t>> scopes(m);
    for (auto &scope : scopes) {
        std::vector<uint32_t> vars(n);
        for (uint32_t v = 0; v < n; ++v)
            vars[v] = v;
        std::shuffle(vars.begin(), vars.end(), rng);
        scope.assign(vars.begin(), vars.begin() + std::min(arity(rng), n));
        out << scope.size();
        for (uint32_t v : scope)
            out << " " << v;
        out << "\n";
    }
    for (const auto &scope : scopes) {
        uint64_t rows = 1;
        for (uint32_t v : scope)
            rows *= domains[v];
        out << "\n" << rows << "\n";
        for (uint64_t r = 0; r < rows; ++r)
            out << (entry(rng) == 0 ? 0.0 : 0.05 + 0.1 * entry(rng)) << " "; // ~10% zeros
        out << "\n";
    }
    return out.str();
}

double jsonNumber(const std::string &json, const std::string &key) {
    std::smatch m;
    REQUIRE(std::regex_search(json, m, std::regex("\"" + key + "\": ([0-9.e+-]+)")));
    return std::stod(m[1]);
}
} // namespace

TEST_CASE("run on a UAI MARKOV file solves its MPE by bucket elimination", "[cli][uai]") {
    const auto dir = std::filesystem::temp_directory_path() / "zbddc_cli_markov";
    std::filesystem::create_directories(dir);
    std::mt19937 rng(20261122);
    for (int trial = 0; trial < 12; ++trial) {
        const std::string path = (dir / ("m" + std::to_string(trial) + ".uai")).string();
        std::ofstream(path) << randomMarkovUai(rng, 6, 7);
        auto net = readCostNetworkFile(path);
        REQUIRE(net.ok());
        const Cost optimum = zbddc::testing::bruteForceOptimum(*net);
        const auto r = runZbddc("run '" + path + "' --task mpe --device cpu --json");
        INFO(path << ": " << r.err);
        REQUIRE(r.exitCode == 0);
        if (optimum == kForbidden) {
            CHECK(r.out.find("\"feasible\": false") != std::string::npos);
            continue;
        }
        CHECK(jsonNumber(r.out, "cost") == Approx(optimum).epsilon(1e-9));
    }
    const std::string path = (dir / "m0.uai").string();
    // Without --task a cost network answers MPE, its only task (it used to exit 2 on pr).
    const auto byDefault = runZbddc("run '" + path + "' --device cpu --json");
    CHECK(byDefault.exitCode == 0);
    CHECK(byDefault.out.find("\"task\": \"mpe\"") != std::string::npos);
}

TEST_CASE("run --task pr --route be: the partition function against brute force", "[cli][uai]") {
    std::mt19937 rng(20261205);
    for (int trial = 0; trial < 6; ++trial) {
        INFO("trial " << trial);
        const zbddc::testing::MarkovNet net =
            zbddc::testing::randomMarkovNet(rng, 3 + rng() % 4, /*huge=*/trial % 2 == 1);
        const std::string uai = zbddc::testing::writeScratch("be_pr.uai", net.uaiText());
        std::vector<int> e(net.domains.size(), -1);
        e[0] = 1;
        const double want = zbddc::testing::bruteForceMarkov(net, e).log10Z;
        const std::string evid = zbddc::testing::writeScratch("be_pr.evid", "1 0 1\n");
        const auto pr = runZbddc("run '" + uai + "' --task pr --route be --evidence '" + evid + "'");
        INFO(pr.err);
        REQUIRE(pr.exitCode == 0);
        const auto got = zbddc::testing::readUai2014(pr.out, "PR");
        REQUIRE(got.has_value());
        if (std::isinf(want))
            CHECK(std::isinf(got->log10));
        else
            CHECK(got->log10 == Approx(want).epsilon(1e-12).margin(1e-9));
    }
}

TEST_CASE("run --task pr: a network no exact route fits is refused with both sizes", "[cli][uai]") {
    // 30 variables of 16 states, every pair joined: every order holds a table of 16^29 entries.
    zbddc::testing::MarkovNet net;
    net.domains.assign(30, 16);
    for (uint32_t u = 0; u < 30; ++u)
        for (uint32_t v = u + 1; v < 30; ++v)
            net.factors.push_back({{u, v}, std::vector<double>(16 * 16, 1.0)});
    const std::string uai = zbddc::testing::writeScratch("dense_pr.uai", net.uaiText());
    const auto r = runZbddc("run '" + uai + "' --task pr");
    CHECK(r.exitCode == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("dense_pr.uai") != std::string::npos);
    CHECK(r.err.find("no exact route fits") != std::string::npos);
    CHECK(r.err.find("entries") != std::string::npos);
    CHECK(r.err.find("--approximate") != std::string::npos);
}

TEST_CASE("sample on a MARKOV file: Gibbs-sampled cases, each with P(e) > 0, answered by run",
          "[cli][uai]") {
    std::mt19937 rng(20261207);
    int sampled = 0;
    for (int trial = 0; trial < 8; ++trial) {
        INFO("trial " << trial);
        const zbddc::testing::MarkovNet net =
            zbddc::testing::randomMarkovNet(rng, 4 + rng() % 3, /*huge=*/false);
        const std::vector<int> none(net.domains.size(), -1);
        if (std::isinf(zbddc::testing::bruteForceMarkov(net, none).log10Z))
            continue; // no state of positive weight: nothing to sample
        ++sampled;
        const std::string uai = zbddc::testing::writeScratch("gibbs.uai", net.uaiText());
        const std::string evid = zbddc::testing::scratchDir() + "/gibbs.evid";
        const auto s = runZbddc("sample '" + uai + "' --cases 25 --observed 0.5 --seed " +
                                std::to_string(trial) + " -o '" + evid + "'");
        INFO(s.err);
        REQUIRE(s.exitCode == 0);
        std::istringstream cases(zbddc::testing::slurp(evid));
        size_t count = 0;
        REQUIRE(cases >> count);
        REQUIRE(count == 25);
        std::vector<double> want;
        for (size_t c = 0; c < count; ++c) {
            std::vector<int> e(net.domains.size(), -1);
            size_t n = 0;
            REQUIRE(cases >> n);
            for (size_t i = 0; i < n; ++i) {
                size_t v = 0;
                REQUIRE(cases >> v >> e.at(v));
            }
            want.push_back(zbddc::testing::bruteForceMarkov(net, e).log10Z);
            CHECK(std::isfinite(want.back())); // P(e) > 0
        }
        const auto pr =
            runZbddc("run '" + uai + "' --task pr --device cpu --evidence '" + evid + "'");
        INFO(pr.err);
        REQUIRE(pr.exitCode == 0);
        const auto got = zbddc::testing::readUai2010(pr.out, "PR");
        REQUIRE(got.has_value());
        REQUIRE(got->size() == count);
        for (size_t c = 0; c < count; ++c)
            CHECK((*got)[c].log10 == Approx(want[c]).epsilon(1e-12).margin(1e-9));
    }
    CHECK(sampled > 0);
}
