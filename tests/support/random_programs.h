// Random TensorPrograms shared by the chunk-plan tests (host) and the GPU out-of-core tests:
// bucket programs of random networks, programs with one wide elimination, and any program with
// its tables' layouts scrambled.
#pragma once

#include "backends/tensor/devices/chunk_layout.h"
#include "backends/tensor/devices/chunk_plan.h"
#include "compiler/elimination/bucket_program.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/program_tables.h"
#include "tests/support/random_networks.h"

#include <numeric>

namespace zbddc::testing {

inline TensorProgram randomBucketProgram(std::mt19937 &rng, bool fuse, bool evidence) {
    const CostNetwork net =
        randomNetwork(rng, 4 + rng() % 6, 3 + rng() % 8, 6, 4, 50, rng() % 2);
    const std::vector<uint32_t> order = minFillOrder(net);
    std::vector<uint32_t> ev;
    if (evidence) {
        ev.assign(net.numVariables(), UINT32_MAX);
        ev[rng() % net.numVariables()] = 0;
    }
    auto p = buildBucketProgram(net, order, {fuse, ev});
    REQUIRE(p.ok());
    return std::move(*p);
}

// One op eliminating several variables at once (a large eliminated space, so that the finest
// plans must also split it), then a marginalisation of everything left; scopes in random order.
inline TensorProgram randomWideEliminationProgram(std::mt19937 &rng) {
    TensorProgram p;
    const uint32_t n = 4 + rng() % 3;
    for (uint32_t v = 0; v < n; ++v)
        p.domainSizes.push_back(2 + rng() % 5);
    std::vector<uint32_t> inputs, all;
    for (uint32_t k = 1 + rng() % 3; k-- > 0;) {
        std::vector<uint32_t> vars(n);
        std::iota(vars.begin(), vars.end(), 0u);
        std::shuffle(vars.begin(), vars.end(), rng);
        Table t;
        t.input = true;
        t.scope.assign(vars.begin(), vars.begin() + 2 + rng() % (n - 1));
        for (uint32_t v : t.scope) {
            t.domains.push_back(p.domainSizes[v]);
            if (std::find(all.begin(), all.end(), v) == all.end())
                all.push_back(v);
        }
        for (uint64_t r = 0; r < t.entries(); ++r)
            t.values.push_back(rng() % 100);
        inputs.push_back(static_cast<uint32_t>(p.tables.size()));
        p.tables.push_back(std::move(t));
    }
    std::shuffle(all.begin(), all.end(), rng);
    const size_t eliminated = 1 + rng() % (all.size() - 1);
    Table mid, result;
    mid.scope.assign(all.begin() + eliminated, all.end());
    for (uint32_t v : mid.scope)
        mid.domains.push_back(p.domainSizes[v]);
    p.tables.push_back(mid);
    p.tables.push_back(result);
    const uint32_t midId = static_cast<uint32_t>(p.tables.size() - 2);
    p.ops.push_back({TensorOpKind::EliminateBucket, inputs, midId,
                     std::vector<uint32_t>(all.begin(), all.begin() + eliminated), {}});
    p.ops.push_back({TensorOpKind::Marginalize, {midId}, midId + 1, mid.scope, {}});
    p.results.push_back(midId + 1);
    computeLevels(p);
    REQUIRE(p.verify().ok());
    return p;
}

// Two buckets the multi-device plan slices (at a threshold of 4096 entries of work) and a final
// marginalisation, over variables a..e = 0..4 of domain 16 (T and U larger than the inputs the
// kernels stage whole, tensor_kernels.h): op 0 computes T(a b c) (table 2) from
// X(a b c e), sliced along a; op 1 eliminates c from T and Y(d c) into U(d a b) (table 3), whose
// layout leads with d: sliced along d, every share reads T whole; led by a (slice_layout.h), each
// device reads the rows of T it computed.
inline TensorProgram slicedChainProgram() {
    const uint32_t a = 0, b = 1, c = 2, d = 3, e = 4;
    TensorProgram p;
    p.semiring = Semiring::MinSum;
    p.domainSizes = {16, 16, 16, 16, 16};
    const auto values = [](uint64_t r) { return static_cast<double>((r * 7919) % 101); };
    const uint32_t x = appendTable(p, {a, b, c, e}, values), y = appendTable(p, {d, c}, values);
    const uint32_t t = appendTable(p, {a, b, c}), u = appendTable(p, {d, a, b});
    const uint32_t result = appendTable(p, {});
    p.ops.push_back({TensorOpKind::EliminateBucket, {x}, t, {e}, {}});
    p.ops.push_back({TensorOpKind::EliminateBucket, {t, y}, u, {c}, {}});
    p.ops.push_back({TensorOpKind::Marginalize, {u}, result, {d, a, b}, {}});
    p.results.push_back(result);
    computeLevels(p);
    REQUIRE(p.verify().ok());
    return p;
}

// The same program with every table's scope in a random order (input data transposed).
inline TensorProgram scrambleLayouts(TensorProgram p, std::mt19937 &rng) {
    for (Table &t : p.tables) {
        std::vector<uint32_t> scope = t.scope;
        std::shuffle(scope.begin(), scope.end(), rng);
        if (t.input && !t.sparse)
            t.values = transposeTable(t.values, t.scope, scope, p.domainSizes);
        else if (t.input) { // make it complete, then transpose
            std::vector<double> dense(t.entries(), t.defaultValue);
            for (size_t r = 0; r < t.rows.size(); ++r)
                dense[t.rows[r]] = t.values[r];
            t.values = transposeTable(dense, t.scope, scope, p.domainSizes);
            t.rows.clear();
            t.sparse = false;
        }
        t.scope = scope;
        t.domains.clear();
        for (uint32_t v : scope)
            t.domains.push_back(p.domainSizes[v]);
    }
    REQUIRE(p.verify().ok());
    return p;
}

// The smallest budget planChunks accepts (found by bisection; every budget at or above it must
// be accepted too, which the callers check at random points).
inline uint64_t smallestBudget(const TensorProgram &p, ChunkPlanOptions o) {
    uint64_t lo = 0, hi = uint64_t{1} << 40;
    while (lo + 1 < hi) {
        o.budgetBytes = lo + (hi - lo) / 2;
        (planChunks(p, o).ok() ? hi : lo) = o.budgetBytes;
    }
    return hi;
}

} // namespace zbddc::testing
