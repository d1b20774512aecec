// The CPU executor of complete tables (backends/tensor/cpu/tensor_cpu.h) against the reference
// interpreter, table by table, on bucket programs of random networks with and without evidence.
#include "backends/tensor/cpu/tensor_cpu.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

using namespace zbddc;
using zbddc::testing::minFillOrder;
using zbddc::testing::randomNetwork;

namespace {

// An input table of `p` over `scope`, every entry `value`: its id.
uint32_t constantTable(TensorProgram &p, std::vector<uint32_t> scope, double value) {
    Table t;
    t.scope = std::move(scope);
    for (uint32_t v : t.scope)
        t.domains.push_back(p.domainSizes[v]);
    t.input = true;
    t.values.assign(t.entries(), value);
    p.tables.push_back(std::move(t));
    return static_cast<uint32_t>(p.tables.size() - 1);
}

} // namespace

TEST_CASE("tensor program: the CPU executor equals the reference interpreter table by table",
          "[tensor]") {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 40; ++trial) {
        const CostNetwork net =
            randomNetwork(rng, 3 + rng() % 7, 2 + rng() % 10, 5, 4, 50, trial % 2);
        std::vector<uint32_t> evidence;
        if (trial % 3 == 2) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[1] = rng() % net.domainSizes[1];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 4 != 0, evidence});
        REQUIRE(p.ok());
        auto ref = interpretTensorProgram(*p);
        auto cpu = runTensorProgramCpu(*p, {1 + static_cast<unsigned>(trial % 3)});
        REQUIRE(ref.ok());
        REQUIRE(cpu.ok());
        CHECK(*cpu == *ref); // integer costs: bit-exact
    }
}

TEST_CASE("tensor program: eliminations past the executor's offset block (an outer odometer) "
          "equal the reference interpreter, cut into parts or not, on any number of threads",
          "[tensor]") {
    // Five variables of 7 values eliminated (16,807 joint values, past a block of 4,096) from
    // three tables with zeros, under sum-product and max-product, onto one variable or none; then
    // seven (823,543: an op of few rows and 10^7 entries walked, which the executor cuts into
    // parts of the outer values and ⊕-s in part order, so the answer does not depend on the
    // threads).
    std::mt19937 rng(13);
    for (uint32_t vars : {6u, 8u}) {
        const std::vector<std::vector<uint32_t>> scopes =
            vars == 6
                ? std::vector<std::vector<uint32_t>>{{0, 2, 4}, {1, 3, 5}, {5, 2, 1, 0}}
                : std::vector<std::vector<uint32_t>>{{0, 2, 4, 6}, {1, 3, 5, 7}, {7, 5, 2, 1, 0}};
        for (Semiring semiring : {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MinSum}) {
            for (uint32_t kept : {0u, 1u}) {
                TensorProgram p;
                p.semiring = semiring;
                p.domainSizes.assign(vars, 7);
                std::vector<uint32_t> inputs;
                for (const auto &scope : scopes) {
                    Table t;
                    t.scope = scope;
                    t.domains.assign(scope.size(), 7);
                    t.input = true;
                    for (uint64_t r = 0; r < t.entries(); ++r)
                        t.values.push_back(rng() % 4 == 0 ? 0.0 : (rng() % 1000) / 1000.0);
                    p.tables.push_back(std::move(t));
                    inputs.push_back(static_cast<uint32_t>(p.tables.size() - 1));
                }
                Table out;
                std::vector<uint32_t> eliminated;
                for (uint32_t v = 0; v < vars; ++v)
                    if (v != 3 || !kept)
                        eliminated.push_back(v);
                if (kept) {
                    out.scope = {3};
                    out.domains = {7};
                }
                p.tables.push_back(std::move(out));
                p.ops.push_back({TensorOpKind::EliminateBucket,
                                 inputs,
                                 static_cast<uint32_t>(p.tables.size() - 1),
                                 eliminated,
                                 {}});
                computeLevels(p);
                auto ref = interpretTensorProgram(p);
                auto one = runTensorProgramCpu(p, {1});
                auto three = runTensorProgramCpu(p, {3});
                REQUIRE(ref.ok());
                REQUIRE(one.ok());
                REQUIRE(three.ok());
                const std::vector<double> &a = one->back(), &b = ref->back();
                REQUIRE(a.size() == b.size());
                for (size_t r = 0; r < a.size(); ++r)
                    CHECK(a[r] == Approx(b[r]).epsilon(1e-12));
                CHECK(three->back() == a);
            }
        }
    }
}

TEST_CASE("tensor program: a scale over millions of entries into one row, cut into parts",
          "[tensor]") {
    // InverseMax of one table of 2^22 entries (a batched tree's scale of one case): the max is
    // taken over parts and inverted once, a row of zeros answering 1.
    for (bool zeros : {false, true}) {
        TensorProgram p;
        p.semiring = Semiring::SumProduct;
        p.domainSizes.assign(22, 2);
        Table t;
        for (uint32_t v = 0; v < 22; ++v)
            t.scope.push_back(v);
        t.domains.assign(22, 2);
        t.input = true;
        std::mt19937 rng(3);
        t.values.resize(t.entries());
        for (uint64_t r = 0; r < t.entries(); ++r) // variable 0 is the output's: two rows
            t.values[r] = zeros && r < t.entries() / 2 ? 0.0 : (rng() % 100000) / 1e5;
        t.values[t.entries() - 5] = 7; // each row's max in its last part
        if (!zeros)
            t.values[t.entries() / 2 - 3] = 5;
        p.tables.push_back(std::move(t));
        Table out;
        out.scope = {0};
        out.domains = {2};
        p.tables.push_back(std::move(out));
        std::vector<uint32_t> eliminated;
        for (uint32_t v = 1; v < 22; ++v)
            eliminated.push_back(v);
        p.ops.push_back({TensorOpKind::InverseMax, {0}, 1, eliminated, {}});
        computeLevels(p);
        auto ref = interpretTensorProgram(p);
        auto one = runTensorProgramCpu(p, {1});
        auto two = runTensorProgramCpu(p, {2});
        REQUIRE(ref.ok());
        REQUIRE(one.ok());
        REQUIRE(two.ok());
        CHECK(one->back() == ref->back());
        CHECK(two->back() == ref->back());
        if (zeros)
            CHECK(one->back()[0] == 1.0);
    }
}

// A plan kept from run to run (CpuPlanCache) reads this run's tables, and is made anew where a
// one-entry input crosses 1 (planOp keeps only factors of at most 1 out of the loop): each run
// with the cache equals a run without it.
TEST_CASE("tensor program: kept plans follow new tables and new constants", "[tensor]") {
    TensorProgram p;
    p.semiring = Semiring::SumProduct;
    p.domainSizes = {3, 2};
    auto input = [&](std::vector<uint32_t> scope) {
        Table t;
        for (uint32_t v : scope)
            t.domains.push_back(p.domainSizes[v]);
        t.scope = std::move(scope);
        t.input = true;
        t.values.assign(t.entries(), 1.0);
        p.tables.push_back(std::move(t));
        return static_cast<uint32_t>(p.tables.size() - 1);
    };
    const uint32_t scale = input({}), table = input({0, 1});
    Table out;
    out.scope = {1};
    out.domains = {2};
    p.tables.push_back(out);
    p.ops.push_back({TensorOpKind::EliminateBucket, {scale, table}, 2, {0}, {}});
    computeLevels(p);
    REQUIRE(p.verify().ok());
    CpuPlanCache plans;
    std::vector<std::vector<double>> computed(p.tables.size()), fresh(p.tables.size());
    for (const auto &[c, base] :
         {std::pair{0.5, 1.0}, std::pair{0.25, 2.0}, std::pair{3.0, 0.5}, std::pair{0.75, -1.0}}) {
        INFO("scale " << c);
        const std::vector<double> scaleValues{c};
        const std::vector<double> values{base, 2, 3, 4, 5, 6 * base}; // a new buffer each run
        std::vector<const double *> data(p.tables.size(), nullptr), plain = data;
        data[scale] = plain[scale] = scaleValues.data();
        data[table] = plain[table] = values.data();
        REQUIRE(runTensorOpsCpu(p, p.levels[0], data, computed, 1, &plans).ok());
        REQUIRE(runTensorOpsCpu(p, p.levels[0], plain, fresh, 1).ok());
        CHECK(computed[2] == fresh[2]);
        CHECK(computed[2][0] == Approx(c * (base + 3 + 5)));
        CHECK(computed[2][1] == Approx(c * (2 + 4 + 6 * base)));
    }
}

// A scale of 10^300 on an output variable, the same over every product of a block (or of a
// tile), must meet the small factors inside the product: ⊗-ed into the sum afterwards, the
// products 10^-200 · 10^-200 would underflow to zero first.
TEST_CASE("tensor program: a large scale constant over a block meets its small factors first",
          "[tensor]") {
    for (uint32_t eliminatedValues : {32u, 4u}) { // the per-row path, then the tiles
        const uint32_t tileValues = eliminatedValues == 4 ? 1024 : 1;
        TensorProgram p;
        p.semiring = Semiring::SumProduct;
        p.domainSizes = {2, tileValues, eliminatedValues}; // y, z, x
        const uint32_t scale = constantTable(p, {0}, 1e300), m1 = constantTable(p, {2, 1}, 1e-200),
                       m2 = constantTable(p, {1, 2}, 1e-200);
        Table out;
        out.scope = {0, 1};
        out.domains = {2, tileValues};
        p.tables.push_back(std::move(out));
        p.ops.push_back({TensorOpKind::EliminateBucket, {scale, m1, m2},
                         static_cast<uint32_t>(p.tables.size() - 1), {2}, {}});
        computeLevels(p);
        auto cpu = runTensorProgramCpu(p, {1});
        REQUIRE(cpu.ok());
        for (double v : cpu->back())
            CHECK(v == Approx(eliminatedValues * 1e-100).epsilon(1e-12));
    }
}

TEST_CASE("tensor program: inputs over a block's first variables are ⊗-ed in after the sums "
          "over its last ones, and equal the reference interpreter",
          "[tensor]") {
    // One output variable o (3 values) and a block of a (4), b (5), c (6): 120 values a row on
    // the per-row path. Inputs over {a}, {o, a}, {a, b}, {b} are one value over runs of 30 or 6
    // of the block (levels); {o, a, b, c}, {c}, {a, c}, {c, b} vary within every run. One input
    // over {a} holds 1e150 in one entry under the products (not foldable: it stays in them), a
    // cost of 300 under min-sum.
    std::mt19937 rng(21);
    for (Semiring semiring : {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MinSum}) {
        TensorProgram p;
        p.semiring = semiring;
        p.domainSizes = {3, 4, 5, 6}; // o, a, b, c
        std::vector<uint32_t> inputs;
        for (const std::vector<uint32_t> &scope : std::vector<std::vector<uint32_t>>{
                 {0, 1, 2, 3}, {1}, {0, 1}, {3}, {1, 2}, {2}, {1, 3}, {3, 2}, {1}}) {
            Table t;
            t.scope = scope;
            for (uint32_t v : scope)
                t.domains.push_back(p.domainSizes[v]);
            t.input = true;
            for (uint64_t r = 0; r < t.entries(); ++r)
                t.values.push_back(rng() % 8 == 0 ? 0.0 : 0.5 + (rng() % 1000) / 1000.0);
            p.tables.push_back(std::move(t));
            inputs.push_back(static_cast<uint32_t>(p.tables.size() - 1));
        }
        p.tables.back().values[2] = semiring == Semiring::MinSum ? 300.0 : 1e150;
        Table out;
        out.scope = {0};
        out.domains = {3};
        p.tables.push_back(std::move(out));
        p.ops.push_back({TensorOpKind::EliminateBucket,
                         inputs,
                         static_cast<uint32_t>(p.tables.size() - 1),
                         {1, 2, 3},
                         {}});
        computeLevels(p);
        auto ref = interpretTensorProgram(p);
        auto one = runTensorProgramCpu(p, {1});
        auto three = runTensorProgramCpu(p, {3});
        REQUIRE(ref.ok());
        REQUIRE(one.ok());
        REQUIRE(three.ok());
        for (size_t r = 0; r < 3; ++r)
            CHECK(one->back()[r] == Approx(ref->back()[r]).epsilon(1e-12));
        CHECK(three->back() == one->back());
    }
}

TEST_CASE("tensor program: an input over a block's first variables that is far from 1 stays in "
          "the products",
          "[tensor]") {
    // Σ over a (4), b (8), c (8) of m1(b, c) · big(a) · m2(c, b): 1e-200 · 1e300 · 1e-200 in
    // that order; big ⊗-ed in after the sums over b and c would meet 1e-400, a zero.
    TensorProgram p;
    p.semiring = Semiring::SumProduct;
    p.domainSizes = {4, 8, 8};
    const uint32_t m1 = constantTable(p, {1, 2}, 1e-200), big = constantTable(p, {0}, 1e300),
                   m2 = constantTable(p, {2, 1}, 1e-200);
    p.tables.push_back(Table{});
    p.ops.push_back({TensorOpKind::EliminateBucket,
                     {m1, big, m2},
                     static_cast<uint32_t>(p.tables.size() - 1),
                     {0, 1, 2},
                     {}});
    computeLevels(p);
    auto cpu = runTensorProgramCpu(p, {1});
    REQUIRE(cpu.ok());
    CHECK(cpu->back()[0] == Approx(256 * 1e-100).epsilon(1e-12));
}
