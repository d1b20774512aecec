// The TensorProgram (ir/tensor_program.h) and its reference interpreter: the interpreter's optimum
// and VALUE-phase assignment against brute force on random networks, levels of independent
// buckets, and the verifier on malformed programs.
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

using namespace zbddc;
using zbddc::testing::bruteForceOptimum;
using zbddc::testing::minFillOrder;
using zbddc::testing::randomNetwork;

TEST_CASE("tensor program: reference interpreter equals brute force on random networks",
          "[tensor]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 60; ++trial) {
        const CostNetwork net =
            randomNetwork(rng, 2 + rng() % 6, 1 + rng() % 8, 4, 3, 20, trial % 2);
        std::vector<uint32_t> order = minFillOrder(net);
        if (trial % 3 == 0)
            std::shuffle(order.begin(), order.end(), rng); // any order is correct, only slower
        std::vector<uint32_t> evidence;
        if (trial % 4 == 1) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[0] = rng() % net.domainSizes[0];
        }
        for (bool fuse : {true, false}) {
            auto p = buildBucketProgram(net, order, {fuse, evidence});
            REQUIRE(p.ok());
            auto values = interpretTensorProgram(*p);
            REQUIRE(values.ok());
            const double bf = bruteForceOptimum(net, evidence);
            const double got = programResult(*p, *values);
            INFO("trial " << trial << " fuse " << fuse << "\n" << p->dump());
            CHECK((got >= net.upperBound ? kForbidden : got) == bf);
            // The VALUE phase returns an assignment of exactly that cost.
            std::vector<uint32_t> a(net.numVariables(), 0);
            for (size_t v = 0; v < evidence.size(); ++v)
                if (evidence[v] != UINT32_MAX)
                    a[v] = evidence[v];
            recoverAssignment(*p, *values, a);
            CHECK(assignmentCost(net, a) == bf);
        }
    }
}

TEST_CASE("tensor program: levels group independent buckets", "[tensor]") {
    // Two disjoint chains: their buckets pair up level by level.
    CostNetwork net;
    net.domainSizes.assign(6, 2);
    for (auto scope : {std::vector<uint32_t>{0, 1}, {1, 2}, {3, 4}, {4, 5}}) {
        CostFunction f;
        f.scope = scope;
        f.costs = {1, 2, 3, 4};
        net.functions.push_back(f);
    }
    auto p = buildBucketProgram(net, {0, 3, 1, 4, 2, 5});
    REQUIRE(p.ok());
    REQUIRE(p->levels.size() == 3);
    for (const auto &level : p->levels)
        CHECK(level.size() == 2);
}

TEST_CASE("tensor program: verify rejects malformed programs", "[tensor]") {
    TensorProgram p;
    p.domainSizes = {2, 3};
    Table in;
    in.scope = {0, 1};
    in.domains = {2, 3};
    in.input = true;
    in.values.assign(6, 1.0);
    p.tables.push_back(in);
    Table out;
    out.scope = {0};
    out.domains = {2};
    p.tables.push_back(out);
    p.ops.push_back({TensorOpKind::Marginalize, {0}, 1, {1}, {}});
    computeLevels(p);
    CHECK(p.verify().ok());
    TensorProgram wrongScope = p;
    wrongScope.ops[0].vars = {0};
    CHECK(wrongScope.verify().error().message ==
          "op 0 (marginalize): output scope lacks variable 1");
    TensorProgram readsLater = p;
    readsLater.ops[0].inputs = {1};
    CHECK_FALSE(readsLater.verify().ok());
    TensorProgram badDomain = p;
    badDomain.tables[1].domains = {3};
    CHECK(badDomain.verify().error().message ==
          "table 1: domain of variable 0 disagrees with the program");
}
