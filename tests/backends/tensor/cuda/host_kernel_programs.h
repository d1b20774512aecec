// The programs whose generated tensor kernels tensor_kernels_host_test runs on the host: random
// bucket programs (fused and not, with evidence) and expanding joins, each with kernel options
// that reach the row-group path on small tables; and for the generic kernels
// (generic_tensor_kernels.h) the same programs and batched junction trees (slices, InverseMax,
// marginals), each written both ways. The build-time helper (emit_host_tensor_kernels) writes their
// kernels and the test rebuilds the same programs, so both call this.
#pragma once

#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"

#include "tests/support/bn_brute_force.h"

#include "tests/support/min_fill_order.h"
#include "tests/support/program_tables.h"
#include "tests/support/random_networks.h"

#include <stdexcept>

namespace zbddc::testing {

// Op `op`'s kernel in programSource.
inline std::string opKernelName(uint32_t op) { return "zb_op_" + std::to_string(op); }

// One source of a whole program: the prelude, then each op's kernel under opKernelName (the
// executors compile each distinct kernel once, in modules: tensor_module_sources.h).
inline std::string programSource(const TensorProgram &p, const cuda::TensorKernelOptions &o = {}) {
    std::string src = cuda::tensorKernelPrelude(p, o);
    for (uint32_t op = 0; op < p.ops.size(); ++op)
        src += cuda::tensorKernelText(p, op, o, opKernelName(op));
    return src;
}

inline constexpr int kHostRandomKernelPrograms = 12, kHostKernelPrograms = 15;

// out(a, b, c, d, f) = min over e of in0(c, d, f, e) + in1(a, b, e) + in2(d): a join whose
// largest input lacks `a` and `b`, a's domain too large for a row-group variable, so that its
// groups take `b` and leave `a` above them for interleaved tiles (RowGroup::interleaved).
inline TensorProgram expandingJoinProgram(std::mt19937 &rng, uint32_t fDomain) {
    TensorProgram p;
    p.semiring = Semiring::MinSum;
    p.domainSizes = {10, 2, 3, 5, fDomain, 3}; // a b c d f e
    const auto values = [&rng](uint64_t) { return static_cast<double>(rng() % 50); };
    const uint32_t in0 = appendTable(p, {2, 3, 4, 5}, values),
                   in1 = appendTable(p, {0, 1, 5}, values), in2 = appendTable(p, {3}, values),
                   out = appendTable(p, {0, 1, 2, 3, 4});
    p.ops.push_back({TensorOpKind::EliminateBucket, {in0, in1, in2}, out, {5}, {}});
    computeLevels(p);
    return p;
}

inline std::vector<TensorProgram> hostKernelPrograms() {
    std::mt19937 rng(41);
    std::vector<TensorProgram> programs;
    for (int i = 0; i < kHostRandomKernelPrograms; ++i) {
        const CostNetwork net = randomNetwork(rng, 4 + rng() % 6, 3 + rng() % 8, 6, 4, 50, i % 2);
        std::vector<uint32_t> evidence;
        if (i % 4 == 1) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[rng() % net.numVariables()] = 0;
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {i % 3 != 0, evidence});
        if (!p) // no Catch here: the build-time helper calls this too
            throw std::runtime_error(p.error().str());
        programs.push_back(std::move(*p));
    }
    for (uint32_t f : {5u, 4u, 7u})
        programs.push_back(expandingJoinProgram(rng, f));
    return programs;
}

// Row groups on every table (no size or stride threshold), of one or two variables of domains up
// to 2..8, their tiles interleaved wherever an input lacks a variable outside them; no
// shared-memory staging (the host shim runs a block's threads one after another, without barriers);
// warp per row only for eliminated spaces of 64 or more, so that most ops run a thread per row or
// per group.
inline cuda::TensorKernelOptions hostKernelOptions(int program) {
    cuda::TensorKernelOptions o;
    o.rowGroupMinRows = 0;
    o.rowGroupMinStride = 1;
    o.rowGroupMaxSize = 2 + program % 7;
    o.rowGroupPairsWhenExpanding = false; // two-variable groups on reductions too
    o.interleaveMinBytes = 0;             // tiles interleaved wherever an input lacks a variable
    o.interleaveTileGroups = 1 + program % 5;
    o.sharedInputMaxEntries = 0;
    o.warpRowThreshold = 64;
    o.genericMaxWork = 0; // the specialised kernels: hostGenericOptions covers the generic ones
    o.streamingStoreMinBytes = program % 2 ? 1 : 0; // streaming stores in every other program
    return o;
}

// A random network's batched junction tree (its min-fill tree), every variable observed (evidence
// slices), sum-product with marginals (and their InverseMax rescaling) or max-product. Throws
// where the tree or lowering fails (no Catch here: the build-time helper calls this too).
inline TensorProgram batchedTreeProgram(const BayesNet &net, uint32_t batch, bool marginals,
                                        bool maxProduct) {
    auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
    if (!tree)
        throw std::runtime_error(tree.error().str());
    JunctionTreeLowering lowering;
    lowering.marginals = marginals;
    lowering.maxProduct = maxProduct;
    lowering.batch = batch;
    lowering.batchFastest = true;
    for (uint32_t v = 0; v < net.variables.size(); ++v)
        lowering.observed.push_back(v);
    auto lowered = lowerJunctionTree(net, *tree, lowering);
    if (!lowered)
        throw std::runtime_error(lowered.error().str());
    return std::move(lowered->program);
}

// hostKernelPrograms, then batched junction trees of random networks: sum-product with marginals
// and max-product.
inline constexpr int kHostGenericPrograms = kHostKernelPrograms + 4;

inline std::vector<TensorProgram> hostGenericPrograms() {
    std::vector<TensorProgram> programs = hostKernelPrograms();
    std::mt19937 rng(43);
    for (int i = 0; i < kHostGenericPrograms - kHostKernelPrograms; ++i) {
        const BayesNet net = randomBayesNet(rng, 6 + i);
        programs.push_back(batchedTreeProgram(net, 3 + i, i % 2 == 0, i % 2 == 1));
    }
    return programs;
}

// Every op specialised (generic = false) or generic: no row groups and no shared-memory staging
// (either would keep an op specialised), warp per row from 8 eliminated values so that both
// generic variants run.
inline cuda::TensorKernelOptions hostGenericOptions(bool generic) {
    cuda::TensorKernelOptions o;
    o.rowGroups = false;
    o.sharedInputMaxEntries = 0;
    o.warpRowThreshold = 8;
    o.genericMaxWork = generic ? UINT64_MAX : 0;
    o.fusedEntries = generic;
    return o;
}

} // namespace zbddc::testing
