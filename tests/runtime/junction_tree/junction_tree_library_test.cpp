// network.so (route jt: the junction tree compiled into a shared object, loaded through the C ABI
// of zbdd_network.h) against oracles that share no code with it — brute force on random tiny
// networks (deterministic zeros, impossible cases in a batch, batches that are no multiple of the
// .so's), the tests' own variable elimination on benchmark networks, a closed form on a chain
// whose P(e) is about 10^-700 — and against the in-process junction tree on the same cases.
// Compiling a .so costs a fraction of a second, so each is shared by the checks of its network.
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "runtime/junction_tree/junction_tree_library.h"
#include "runtime/junction_tree/junction_tree_model.h"
#include "runtime/shared_objects/network_library.h"
#include "zbdd_network.h"

#include "tests/catch.hpp"
#include "tests/support/jt_testing.h"
#include "tests/support/network_answer_checks.h"
#include "tests/support/scratch.h"

#include <cmath>
#include <cstdint>
#include <dlfcn.h>
#include <random>

using namespace zbddc;
using namespace zbddc::testing;

namespace {

JunctionTree treeOf(const BayesNet &net) {
    OrderSearchOptions search;
    search.maxRuns = 8;
    auto tree = buildJunctionTree(net, searchOrder(moralGraph(net), search).order, true);
    REQUIRE(tree.ok());
    return std::move(*tree);
}

NetworkLibrary compileNetwork(const BayesNet &net, const std::string &name,
                              JunctionTreeLibraryOptions options = {}) {
    const std::string path = scratchDir() + "/" + name + ".so";
    auto written = writeJunctionTreeLibrary(net, treeOf(net), path, options);
    INFO(name << ": " << (written ? "" : written.error().message));
    REQUIRE(written.ok());
    if (options.batch)
        CHECK(written->batch == options.batch);
    auto lib = NetworkLibrary::open(path);
    INFO((lib ? "" : lib.error().message));
    REQUIRE(lib.ok());
    CHECK(lib->metadata().route == "jt");
    return std::move(*lib);
}

} // namespace

TEST_CASE("network.so: random tiny networks answer PR, MAR and MPE as brute force does",
          "[jt][network_so]") {
    std::mt19937 rng(31);
    for (int trial = 0; trial < 10; ++trial) {
        INFO("trial " << trial);
        const BayesNet net = randomBayesNet(rng, 1 + rng() % 8);
        std::vector<std::vector<int>> cases;
        for (int k = 0; k < 9; ++k) // 9 cases: no multiple of the batches below
            cases.push_back(randomEvidence(net, rng, k == 0 ? 1000 : 3));
        JunctionTreeLibraryOptions options;
        options.batch = 1 + trial % 4;
        options.belief =
            trial % 2 ? JunctionTreeLowering::Belief::Always : JunctionTreeLowering::Belief::Never;
        options.specialiseWork = trial % 3 ? 0 : kSpecialiseWork; // specialised C, generic loop
        const NetworkLibrary lib = compileNetwork(net, "tiny" + std::to_string(trial), options);
        lib.setThreads(1 + trial % 3); // answers do not depend on it
        checkAgainstBruteForce(lib, net, cases);
    }
}

TEST_CASE("network.so: the generated C and its driver run clean under UBSan", "[jt][network_so]") {
    // Bounds (the generic loop's variable-length arrays), overflow and alignment checks abort
    // the process on the first finding; both kinds of op, every task, batches padded.
    std::mt19937 rng(37);
    for (int trial = 0; trial < 4; ++trial) {
        INFO("trial " << trial);
        const BayesNet net = randomBayesNet(rng, 2 + rng() % 6);
        std::vector<std::vector<int>> cases;
        for (int k = 0; k < 5; ++k)
            cases.push_back(randomEvidence(net, rng, 3));
        JunctionTreeLibraryOptions options;
        options.batch = 2;
        options.specialiseWork = trial % 2 ? 0 : kSpecialiseWork;
        options.extraCompilerFlags = {"-fsanitize=undefined", "-fno-sanitize-recover=all"};
        const NetworkLibrary lib = compileNetwork(net, "ubsan" + std::to_string(trial), options);
        checkAgainstBruteForce(lib, net, cases);
    }
}

TEST_CASE("network.so: a batch with impossible cases answers the possible ones",
          "[jt][network_so]") {
    // A -> B with B = A deterministically: observing A=0, B=1 has probability 0.
    BayesNet net;
    net.variables.push_back({"A", {"a0", "a1"}, {}, {0.3, 0.7}});
    net.variables.push_back({"B", {"b0", "b1"}, {0}, {1, 0, 0, 1}});
    const std::vector<std::vector<int>> cases = {{0, 1}, {0, -1}, {1, 1}, {-1, 0}, {0, 1}};
    JunctionTreeLibraryOptions options;
    options.batch = 2;
    const NetworkLibrary lib = compileNetwork(net, "impossible", options);
    checkAgainstBruteForce(lib, net, cases);
    std::vector<Evidence> evidence;
    for (const auto &e : cases)
        evidence.push_back(runtimeEvidence(e));
    evidence[1].states[1] = kContradicted; // observed twice: P(e) = 0 without asking the .so
    const auto pr = lib.run(Task::Pr, evidence);
    CHECK(std::isinf(pr[1]->log10));
    const auto mar = lib.run(Task::Mar, evidence);
    CHECK_FALSE(mar[0].ok());
    CHECK_FALSE(mar[1].ok());
    CHECK(mar[2].ok());
    CHECK(mar[3].ok());
    CHECK_FALSE(mar[4].ok());
}

TEST_CASE("network.so: P(e) of about 10^-700 on a 1,500-variable chain, exact in log10",
          "[jt][network_so]") {
    const LongChain chain = longChain(1500);
    const NetworkLibrary lib = compileNetwork(chain.net, "chain");
    checkLongChain(lib, chain);
}

TEST_CASE("network.so: benchmark networks against variable elimination and the in-process tree",
          "[jt][network_so]") {
    const auto dir = benchmarkNetworks();
    REQUIRE(std::filesystem::exists(dir));
    std::mt19937 rng(13);
    for (const char *name : {"asia", "alarm", "insurance"}) {
        INFO(name);
        auto net = readNetworkFile((dir / (std::string(name) + ".bif")).string());
        REQUIRE(net.ok());
        JunctionTreeLibraryOptions so; // alarm and insurance: both kinds of op
        so.specialiseWork = 1 << 12;
        const NetworkLibrary lib = compileNetwork(*net, name, so);
        const std::vector<std::vector<int>> cases = sampledCases(*net, rng, 5);
        checkAgainstElimination(lib, *net, cases);

        JunctionTreeOptions options;
        options.executor = "cpu";
        JunctionTreeModel model(*net, treeOf(*net), options);
        std::vector<Evidence> evidence;
        for (const auto &e : cases)
            evidence.push_back(runtimeEvidence(e));
        for (Task task : {Task::Pr, Task::Mar, Task::Mpe}) {
            const auto so = lib.run(task, evidence);
            const auto in = model.run(task, evidence);
            for (size_t k = 0; k < cases.size(); ++k) {
                REQUIRE(so[k].ok());
                REQUIRE(in[k].ok());
                CHECK(so[k]->log10 == Approx(in[k]->log10).margin(1e-10));
                for (size_t v = 0; v < in[k]->marginals.size(); ++v)
                    for (size_t x = 0; x < in[k]->marginals[v].size(); ++x)
                        CHECK(so[k]->marginals[v][x] ==
                              Approx(in[k]->marginals[v][x]).margin(1e-12));
            }
        }
    }
}

TEST_CASE("network.so: the C ABI refuses bad arguments before reading anything",
          "[jt][network_so][abi]") {
    BayesNet net;
    net.variables.push_back({"A", {"a0", "a1", "a2"}, {}, {0.2, 0.3, 0.5}});
    net.variables.push_back({"B", {"b0", "b1"}, {0}, {0.9, 0.1, 0.4, 0.6, 0.5, 0.5}});
    const NetworkLibrary keep = compileNetwork(net, "abi"); // checked, and kept loaded
    void *lib = dlopen((scratchDir() + "/abi.so").c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib);
    auto pr = reinterpret_cast<int (*)(const int *, size_t, double *, int *)>(
        dlsym(lib, "zbdd_network_pr"));
    auto mar = reinterpret_cast<int (*)(const int *, size_t, double *, double *, int *)>(
        dlsym(lib, "zbdd_network_mar"));
    auto mpe = reinterpret_cast<int (*)(const int *, size_t, int *, double *, int *)>(
        dlsym(lib, "zbdd_network_mpe"));
    auto marginals = reinterpret_cast<size_t (*)(void)>(dlsym(lib, "zbdd_network_num_marginals"));
    REQUIRE((pr && mar && mpe && marginals));
    CHECK(marginals() == 5);
    alignas(8) double log10[4], m[4 * 5 + 1];
    alignas(8) int status[4], assignment[4 * 2 + 1];
    const int evidence[] = {0, -1, -1, 1, 2, 0, -1, -1};

    CHECK(pr(evidence, 0, nullptr, nullptr) == ZBDD_NETWORK_OK); // nothing to read or write
    CHECK(pr(evidence, 4, nullptr, status) == ZBDD_NETWORK_EARG);
    CHECK(pr(evidence, 4, log10, nullptr) == ZBDD_NETWORK_EARG);
    CHECK(mar(evidence, 4, nullptr, log10, status) == ZBDD_NETWORK_EARG);
    CHECK(mpe(evidence, 4, nullptr, log10, status) == ZBDD_NETWORK_EARG);
    const auto misaligned = reinterpret_cast<double *>(reinterpret_cast<char *>(m) + 4);
    CHECK(pr(evidence, 4, misaligned, status) == ZBDD_NETWORK_EARG);
    CHECK(mar(evidence, 4, misaligned, log10, status) == ZBDD_NETWORK_EARG);
    CHECK(pr(evidence, SIZE_MAX / 2, log10, status) == ZBDD_NETWORK_EARG);    // bytes overflow
    CHECK(pr(evidence, size_t{1} << 40, log10, status) == ZBDD_NETWORK_EARG); // unmapped end
    const int outOfRange[] = {3, -1};
    CHECK(pr(outOfRange, 1, log10, status) == ZBDD_NETWORK_EARG);
    const int negative[] = {-2, -1};
    CHECK(pr(negative, 1, log10, status) == ZBDD_NETWORK_EARG);

    // NULL evidence: every case unobserved; P(e) = 1, and the marginals are the priors.
    REQUIRE(mar(nullptr, 2, m, log10, status) == ZBDD_NETWORK_OK);
    CHECK(status[1] == ZBDD_CASE_OK);
    CHECK(log10[1] == Approx(0).margin(1e-15));
    CHECK(m[5 + 1] == Approx(0.3));
    CHECK(m[5 + 3] == Approx(0.2 * 0.9 + 0.3 * 0.4 + 0.5 * 0.5));
    REQUIRE(mpe(evidence, 4, assignment, log10, status) == ZBDD_NETWORK_OK);
    CHECK(assignment[2 * 2] == 2); // A observed as a2: B's best is b0 (a tie, the first wins)
    CHECK(assignment[2 * 2 + 1] == 0);
    CHECK(log10[2] == Approx(std::log10(0.5 * 0.5)));
    dlclose(lib);
}
