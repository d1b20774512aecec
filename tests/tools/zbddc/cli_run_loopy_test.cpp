// `zbddc run MODEL --route lbp` and `zbddc stats MODEL --route lbp`: on polytree networks (cancer,
// earthquake) loopy BP is exact, so a batch answers as the junction tree does; a MARKOV chain's
// MPE equals the elimination route's; the JSON says the answer is approximate with each case's
// convergence; route auto never takes LBP for an exact query, and with --approximate takes it for
// a network no exact route holds (which without it fails naming the sizes); the flags' usage
// errors.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <bit>
#include <cmath>
#include <regex>

using namespace zbddc::testing;

namespace {

std::vector<double> numbers(const std::string &text) {
    std::vector<double> out;
    const std::regex number("-?[0-9][0-9.e+-]*|-?inf");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
         it != std::sregex_iterator(); ++it)
        out.push_back(std::stod(it->str()));
    return out;
}

size_t count(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

const std::string kBn = ZBDDC_BENCHMARKS_DIR "/bn/";

} // namespace

TEST_CASE("run --route lbp on polytrees answers a batch as the junction tree does", "[lbp][cli]") {
    const std::string evid = writeScratch("cancer.evid", "3\n0\n1 3 0\n2 0 1 4 0\n");
    for (const char *net : {"cancer.bif", "earthquake.bif"})
        for (const char *task : {"pr", "mar", "mpe"})
            for (const char *order : {"flooding", "residual"}) {
                INFO(net << " " << task << " " << order);
                const std::string args = "run '" + kBn + net + "' --task " + task +
                                         " --evidence '" + evid + "' --device cpu --route ";
                const auto lbp = runZbddc(args + "lbp --tolerance 1e-14 --update-order " + order);
                const auto jt = runZbddc(args + "jt");
                INFO(lbp.err << jt.err);
                REQUIRE(lbp.exitCode == 0);
                REQUIRE(jt.exitCode == 0);
                CHECK(lbp.err.find("approximate") != std::string::npos);
                const std::vector<double> a = numbers(lbp.out), b = numbers(jt.out);
                REQUIRE(a.size() == b.size());
                for (size_t i = 0; i < a.size(); ++i)
                    CHECK(a[i] == Approx(b[i]).margin(1e-9));
            }
}

TEST_CASE("run --route lbp --json reports each case's convergence", "[lbp][cli]") {
    const std::string evid = writeScratch("asia.evid", "2\n1 0 0\n2 1 1 6 0\n");
    const auto r = runZbddc("run '" + kBn + "asia.bif' --route lbp --task mar --json --evidence '" +
                            evid + "' --iterations 3 --damping 0.2");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    CHECK(count(r.out, "\"approximate\":true") == 2);
    CHECK(count(r.out, "\"iterations\":") == 2);
    CHECK(count(r.out, "\"converged\":") == 2);
    CHECK(count(r.out, "\"max_residual\":") == 2);
    CHECK(count(r.out, "\"iterations\":3") == 2); // three sweeps do not converge asia at 1e-6
    CHECK(count(r.out, "\"route\":\"lbp\",\"route_why\"") == 2);
    CHECK(count(r.out, "\"route\":\"lbp\",\"notes\"") == 2); // each device report's
}

TEST_CASE("run --route lbp answers MARKOV and .wcsp models by max-product", "[lbp][cli]") {
    // A chain x0 - x1 - x2 with unary and pairwise factors: a tree, so max-product is exact.
    const std::string uai =
        writeScratch("chain.uai", "MARKOV\n3\n2 3 2\n4\n1 0\n2 0 1\n2 1 2\n1 2\n"
                                  "2\n0.3 0.7\n6\n0.9 0.1 0.4 0.2 0.3 0.5\n"
                                  "6\n0.2 0.8 0.6 0.4 0.5 0.5\n2\n0.45 0.55\n");
    const auto lbp = runZbddc("run '" + uai + "' --route lbp --task mpe");
    const auto exact = runZbddc("run '" + uai + "' --task mpe");
    INFO(lbp.err << exact.err);
    REQUIRE(lbp.exitCode == 0);
    REQUIRE(exact.exitCode == 0);
    CHECK(lbp.out == exact.out);
    const auto mar = runZbddc("run '" + uai + "' --route lbp --task mar");
    CHECK(mar.exitCode == 0);
    // MAR on a MARKOV network is exact on its junction tree: --approximate leaves it so.
    const auto exactMar = runZbddc("run '" + uai + "' --task mar");
    CHECK(exactMar.exitCode == 0);
    const auto approximate = runZbddc("run '" + uai + "' --task mar --approximate");
    INFO(approximate.err);
    CHECK(approximate.exitCode == 0);
    CHECK(approximate.out == exactMar.out);
    CHECK(approximate.err.find("route jt") != std::string::npos);
    // MPE fits bucket elimination: --approximate leaves it exact.
    const auto exactMpe = runZbddc("run '" + uai + "' --task mpe --approximate --json");
    CHECK(count(exactMpe.out, "\"approximate\"") == 0);
    const auto wcsp =
        runZbddc("run '" ZBDDC_BENCHMARKS_DIR "/wcsp/4queens.wcsp' --route lbp --json");
    INFO(wcsp.err);
    REQUIRE(wcsp.exitCode == 0);
    CHECK(count(wcsp.out, "\"cost\":") == 1);
    CHECK(count(wcsp.out, "\"approximate\":true") == 1);
}

TEST_CASE("route auto never takes loopy BP for an exact query", "[lbp][cli]") {
    for (const char *flags : {"", " --approximate"}) {
        const auto r = runZbddc("run '" + kBn + "alarm.bif' --task mar --json" + flags);
        INFO(flags << r.err);
        REQUIRE(r.exitCode == 0);
        CHECK(count(r.out, "\"route\":\"lbp\"") == 0);
        CHECK(count(r.out, "\"approximate\"") == 0);
    }
}

namespace {

// A 40 x 40 grid network of binary variables, each with its upper and left neighbours as parents:
// a few kilobytes of BIF whose junction tree (treewidth 40) and MLF fit no machine.
std::string gridNetwork() {
    const int n = 40;
    auto name = [](int i, int j) { return "x" + std::to_string(i) + "_" + std::to_string(j); };
    std::string bif = "network grid {}\n";
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            bif += "variable " + name(i, j) + " { type discrete [ 2 ] { a, b }; }\n";
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            std::vector<std::string> parents;
            if (i > 0)
                parents.push_back(name(i - 1, j));
            if (j > 0)
                parents.push_back(name(i, j - 1));
            if (parents.empty()) {
                bif += "probability ( " + name(i, j) + " ) { table 0.6, 0.4; }\n";
                continue;
            }
            bif += "probability ( " + name(i, j) + " | " + parents[0] +
                   (parents.size() > 1 ? ", " + parents[1] : "") + " ) {\n";
            for (unsigned row = 0; row < (1u << parents.size()); ++row) {
                std::string states;
                for (size_t k = 0; k < parents.size(); ++k)
                    states += std::string(k ? ", " : "") +
                              (row >> (parents.size() - 1 - k) & 1 ? "b" : "a");
                const double p = 0.3 + 0.1 * std::popcount(row);
                bif += "  (" + states + ") " + std::to_string(p) + ", " + std::to_string(1 - p) +
                       ";\n";
            }
            bif += "}\n";
        }
    return bif;
}

} // namespace

TEST_CASE("a network no exact route holds fails naming the sizes; --approximate answers it by LBP",
          "[lbp][cli]") {
    const std::string grid = writeScratch("grid40.bif", gridNetwork());
    const auto exact = runZbddc("run '" + grid + "' --task mar");
    INFO(exact.err);
    CHECK(exact.exitCode != 0);
    CHECK(exact.out.empty());
    CHECK(exact.err.find("the junction tree needs") != std::string::npos);
    CHECK(exact.err.find("ZBDD is estimated at") != std::string::npos);
    const auto lbp = runZbddc("run '" + grid + "' --task mar --approximate --json");
    INFO(lbp.err);
    REQUIRE(lbp.exitCode == 0);
    CHECK(lbp.err.find("route lbp (auto --approximate: the junction tree needs") !=
          std::string::npos);
    CHECK(count(lbp.out, "\"approximate\":true") == 1);
    CHECK(count(lbp.out, "\"converged\":true") == 1);
    // Without evidence the messages up from the children are uniform, so the root's belief is
    // its prior exactly.
    const size_t root = lbp.out.find("\"x0_0\":[");
    REQUIRE(root != std::string::npos);
    const std::vector<double> prior = numbers(lbp.out.substr(root + 6, 60));
    REQUIRE(prior.size() >= 2);
    CHECK(std::abs(prior[0] - 0.6) < 1e-9);
    CHECK(std::abs(prior[1] - 0.4) < 1e-9);
}

TEST_CASE("stats --route lbp shows the factor graph and the GPU design", "[lbp][cli]") {
    const auto r = runZbddc("stats '" + kBn + "asia.bif' --route lbp --json");
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    // asia: 8 CPTs over 8 variables, 16 variable slots in their scopes (8 variables, 8 parents),
    // all binary.
    CHECK(count(r.out, "\"variables\":8,\"factors\":8,\"edges\":16,\"message_entries\":32") == 1);
    CHECK(count(r.out, "data-parallel") == 2);
    const auto text = runZbddc("stats '" + kBn + "asia.bif' --route lbp");
    CHECK(text.exitCode == 0);
    CHECK(text.out.find("GPU design") != std::string::npos);
}

TEST_CASE("the LBP flags' usage errors", "[lbp][cli]") {
    const std::string asia = "run '" + kBn + "asia.bif' ";
    for (const char *flags :
         {"--damping 0.5", "--route jt --iterations 5", "--route lbp --damping 1",
          "--route lbp --damping -0.1", "--route lbp --tolerance 0", "--route lbp --iterations 0",
          "--route lbp --update-order random", "--route lbp --task eval", "--route jt --approximate"}) {
        const auto r = runZbddc(asia + flags);
        INFO(flags << ": " << r.err);
        CHECK(r.exitCode == 2);
        CHECK(!r.err.empty());
    }
    // The update order's older name is refused, naming the new one.
    const auto old = runZbddc(asia + "--route lbp --schedule residual");
    CHECK(old.exitCode == 2);
    CHECK(old.err.find("--update-order") != std::string::npos);
    const auto wcsp =
        runZbddc("run '" ZBDDC_BENCHMARKS_DIR "/wcsp/4queens.wcsp' --route lbp --task mar");
    CHECK(wcsp.exitCode == 2);
}
