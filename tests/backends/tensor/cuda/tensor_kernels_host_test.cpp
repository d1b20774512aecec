// The generated tensor kernels on the host (tests/support/cuda_host_shim.h) against the reference
// interpreter, table by table: random bucket programs whose kernels take the row-group path
// (tensor_kernels.h) on every table they can, launched over whole tables in the chunks the GPU
// executor uses, and over ranges that cut row groups (as a device's share of rows does); and the
// generic kernels (generic_tensor_kernels.h) of bucket programs and batched junction trees, every
// op generic, against the same ops' specialised kernels and the interpreter. Checks the kernels'
// indexing where CI has no GPU; test_wcsp_gpu runs them on a device.
#include "backends/tensor/cuda/codegen/generic_tensor_kernels.h"
#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "ir/tensor_interpret.h"

#include "tests/backends/tensor/cuda/host_kernel_programs.h"
#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/cuda_host_shim.h"

#include <cstdlib>
#include <map>
#include <tuple>

namespace zbddc::testing::cuda_host {
using Kernel = void(const double *const *, double *, unsigned long long, unsigned long long);
using FusedKernel = void(const unsigned char *);
#include "tensor_host_kernels.inc"
} // namespace zbddc::testing::cuda_host

using namespace zbddc;
using namespace zbddc::testing;

namespace {

constexpr unsigned kBlock = 32, kMaxGrid = 3; // a few blocks, so threads loop over the rows

// Threads of a launch of op `o` over `count` rows from `begin`, and rows per launch near
// `chunkRows`, as the GPU executor computes them from the op's row group (op_launch.cpp).
uint64_t threadsFor(const TensorProgram &p, uint32_t o, const cuda::TensorKernelOptions &opt,
                    uint64_t begin, uint64_t count) {
    return cuda::kernelThreads(cuda::rowGroupOf(p, o, opt), cuda::usesWarpPerRow(p, o, opt), begin,
                               count);
}
uint64_t chunkRowsFor(const TensorProgram &p, uint32_t o, const cuda::TensorKernelOptions &opt,
                      uint64_t chunkRows) {
    return cuda::launchChunkRows(cuda::rowGroupOf(p, o, opt), chunkRows);
}

// Op `o` of a program whose kernels are `ops` over output rows [begin, begin + count); a warp per
// row runs each block's threads together (its shuffles meet at the block's barrier).
void launchRange(cuda_host::Kernel *const *ops, const TensorProgram &p, uint32_t o,
                 const cuda::TensorKernelOptions &opt, const std::vector<const double *> &inputs,
                 double *out, uint64_t begin, uint64_t count) {
    const uint64_t threads = threadsFor(p, o, opt, begin, count);
    const unsigned grid =
        static_cast<unsigned>(std::clamp<uint64_t>((threads + kBlock - 1) / kBlock, 1, kMaxGrid));
    cuda_host::Kernel *kernel = ops[o];
    auto run = [&] { kernel(inputs.data(), out + begin, begin, count); };
    if (cuda::usesWarpPerRow(p, o, opt))
        cuda_host::launchBlocks(grid, kBlock, 0, run);
    else
        cuda_host::launch(grid, kBlock, run);
}

// Every table of a program whose kernels are `ops`, each op launched over `ranges(rows)`.
template <class Ranges>
std::vector<std::vector<double>> runOnHost(cuda_host::Kernel *const *ops, const TensorProgram &p,
                                           const cuda::TensorKernelOptions &opt, Ranges ranges) {
    std::vector<std::vector<double>> tables(p.tables.size());
    for (size_t t = 0; t < p.tables.size(); ++t)
        tables[t] = p.tables[t].input ? p.tables[t].denseValues()
                                      : std::vector<double>(p.tables[t].entries(), -1.0);
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        std::vector<const double *> inputs;
        for (uint32_t in : p.ops[o].inputs)
            inputs.push_back(tables[in].data());
        std::vector<double> &out = tables[p.ops[o].output];
        for (const auto &[begin, count] : ranges(p, o, opt, out.size()))
            launchRange(ops, p, o, opt, inputs, out.data(), begin, count);
    }
    return tables;
}

using Range = std::pair<uint64_t, uint64_t>;

// Launches over ranges of 1 to `longest` rows, so that rows begin anywhere in a table (inside row
// groups too).
auto randomRanges(std::mt19937 &rng, uint32_t longest) {
    return [&rng, longest](const TensorProgram &, uint32_t, const cuda::TensorKernelOptions &,
                           uint64_t rows) {
        std::vector<Range> r;
        for (uint64_t b = 0; b < rows;) {
            const uint64_t n = std::min<uint64_t>(1 + rng() % longest, rows - b);
            r.emplace_back(b, n);
            b += n;
        }
        return r;
    };
}

// The computed tables of `tables` equal the interpreter's (which leaves input tables empty).
void checkComputed(const TensorProgram &p, const std::vector<std::vector<double>> &tables,
                   const std::vector<std::vector<double>> &ref) {
    for (size_t t = 0; t < p.tables.size(); ++t)
        if (!p.tables[t].input) {
            INFO("table " << t);
            CHECK(tables[t] == ref[t]);
        }
}

} // namespace

TEST_CASE("generated tensor kernels, row groups included, equal the interpreter on the host",
          "[tensor][kernels]") {
    const std::vector<TensorProgram> programs = hostKernelPrograms();
    REQUIRE(programs.size() == std::size(cuda_host::programOps));
    std::mt19937 rng(5);
    int grouped = 0, groupedBig = 0, groupedTwice = 0, interleaved = 0;
    for (int i = 0; i < kHostKernelPrograms; ++i) {
        const TensorProgram &p = programs[i];
        INFO("program " << i);
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        for (uint32_t o = 0; o < p.ops.size(); ++o) {
            const cuda::RowGroup g = cuda::rowGroupOf(p, o, hostKernelOptions(i));
            grouped += g.rows() > 1;
            groupedBig += g.outer.size > 2 && g.outer.stride > 1;
            groupedTwice += g.inner.size > 1;
            interleaved += g.interleaved.size > 1;
        }
        // Chunks as the GPU executor launches them (at least one row group each).
        const auto chunks = [](const TensorProgram &p, uint32_t o,
                               const cuda::TensorKernelOptions &opt, uint64_t rows) {
            std::vector<Range> r;
            const uint64_t step = chunkRowsFor(p, o, opt, 7);
            for (uint64_t b = 0; b < rows; b += step)
                r.emplace_back(b, std::min(step, rows - b));
            return r;
        };
        const cuda::TensorKernelOptions opt = hostKernelOptions(i);
        checkComputed(p, runOnHost(cuda_host::programOps[i], p, opt, chunks), *ref);
        // Ranges of random length that start and end inside row groups.
        const auto cuts = randomRanges(rng, 11);
        checkComputed(p, runOnHost(cuda_host::programOps[i], p, opt, cuts), *ref);
        // Each table in one launch (an in-core op), then in two cut at a random row (devices'
        // shares): launches that hold whole periods of an interleaved variable and cut one.
        const auto whole = [](const TensorProgram &, uint32_t, const cuda::TensorKernelOptions &,
                              uint64_t rows) {
            return std::vector<Range>{{0, rows}};
        };
        checkComputed(p, runOnHost(cuda_host::programOps[i], p, opt, whole), *ref);
        const auto halves = [&rng](const TensorProgram &, uint32_t,
                                   const cuda::TensorKernelOptions &, uint64_t rows) {
            const uint64_t cut = rows > 1 ? 1 + rng() % (rows - 1) : rows;
            return std::vector<Range>{{0, cut}, {cut, rows - cut}};
        };
        checkComputed(p, runOnHost(cuda_host::programOps[i], p, opt, halves), *ref);
    }
    // The programs reach the path the test is for, with groups of more than two rows apart,
    // groups of two variables, and interleaved tiles.
    CHECK(grouped >= 20);
    CHECK(groupedBig >= 5);
    CHECK(groupedTwice >= 5);
    CHECK(interleaved >= 3);
}

TEST_CASE("row groups: the variables read once per group, and what keeps an op a row per thread",
          "[tensor][kernels]") {
    // out(a, b, c) = min over e of in0(a, c, e) + in1(b, e): `b` is missing from the larger input.
    TensorProgram p;
    p.semiring = Semiring::MinSum;
    p.domainSizes = {4, 3, 40, 5};
    const auto ones = [](uint64_t) { return 1.0; };
    const uint32_t in0 = appendTable(p, {0, 2, 3}, ones), in1 = appendTable(p, {1, 3}, ones);
    const uint32_t out = appendTable(p, {0, 1, 2});
    p.ops.push_back({TensorOpKind::EliminateBucket, {in0, in1}, out, {3}, {}});
    computeLevels(p);
    REQUIRE(p.verify().ok());
    cuda::TensorKernelOptions o;
    o.rowGroupMinRows = 0;
    CHECK(cuda::rowGroupOf(p, 0, o).rows() == 1); // in0's 800 entries are staged in shared memory
    o.sharedInputMaxEntries = 0;
    // A reduction (815 entries read, 480 written): `b` alone, which in0 lacks.
    cuda::RowGroup g = cuda::rowGroupOf(p, 0, o);
    CHECK(g.outer.var == 1);
    CHECK(g.inner.size == 1);
    // Where pairs are allowed: `b` first, then `a`, which in1 lacks: 7 reads per 12 rows instead
    // of 4 per 3.
    // A group variable as (index in the output's scope, domain, stride).
    auto var = [](const cuda::RowGroupVar &v) { return std::tuple(v.var, v.size, v.stride); };
    o.rowGroupPairsWhenExpanding = false;
    g = cuda::rowGroupOf(p, 0, o);
    CHECK(var(g.outer) == std::tuple(0u, 4u, uint64_t{120}));
    CHECK(var(g.inner) == std::tuple(1u, 3u, uint64_t{40}));
    CHECK(threadsFor(p, 0, o, 0, 480) == 40);
    CHECK(chunkRowsFor(p, 0, o, 1000) == 960);
    o.rowGroupMaxRows = 8; // 12 rows are too many: `b` alone
    g = cuda::rowGroupOf(p, 0, o);
    CHECK(var(g.outer) == std::tuple(1u, 3u, uint64_t{40}));
    CHECK(g.inner.size == 1);
    CHECK(threadsFor(p, 0, o, 0, 480) == 160);
    CHECK(chunkRowsFor(p, 0, o, 1000) == 960);
    o.rowGroupMaxRows = 32;
    o.rowGroupMaxSize = 2; // b's domain is too large, a's stride too
    CHECK(cuda::rowGroupOf(p, 0, o).rows() == 1);
    o.rowGroupMaxSize = 8;
    o.rowGroupMinRows = 481; // too small
    CHECK(cuda::rowGroupOf(p, 0, o).rows() == 1);
    o.rowGroupMinRows = 0;
    o.eliminationRange = true; // out of core, the eliminated space split: a row per thread
    CHECK(cuda::rowGroupOf(p, 0, o).rows() == 1);
    CHECK(threadsFor(p, 0, o, 0, 480) == 480);
}

TEST_CASE("interleaved tiles: a variable outside the group that a large input lacks",
          "[tensor][kernels]") {
    // out(a, b, c, d) = min over e of in0(c, d, e) + in1(a, b): in0 lacks a and b, a's domain is
    // too large for a group variable, in1 is staged in shared memory.
    TensorProgram p;
    p.semiring = Semiring::MinSum;
    p.domainSizes = {10, 4, 6, 3, 20};
    const auto ones = [](uint64_t) { return 1.0; };
    const uint32_t in0 = appendTable(p, {2, 3, 4}, ones), in1 = appendTable(p, {0, 1}, ones);
    const uint32_t out = appendTable(p, {0, 1, 2, 3});
    p.ops.push_back({TensorOpKind::EliminateBucket, {in0, in1}, out, {4}, {}});
    computeLevels(p);
    REQUIRE(p.verify().ok());
    cuda::TensorKernelOptions o;
    o.rowGroupMinRows = 0;
    o.rowGroupMinStride = 1;
    o.rowGroupMaxRows = 4; // b alone
    o.sharedInputMaxEntries = 100;
    o.interleaveMinBytes = 2880; // in0's 360 doubles, all read per value of a
    o.interleaveTileGroups = 2;
    auto var = [](const cuda::RowGroupVar &v) { return std::tuple(v.var, v.size, v.stride); };
    cuda::RowGroup g = cuda::rowGroupOf(p, 0, o);
    CHECK(var(g.outer) == std::tuple(1u, 4u, uint64_t{18}));
    CHECK(var(g.interleaved) == std::tuple(0u, 10u, uint64_t{72}));
    CHECK(g.valueGroups == 18); // c's and d's values
    CHECK(g.tileGroups == 3);   // d's
    o.interleaveTileGroups = 7; // c and d: all of a value's groups, nothing to interleave
    CHECK(cuda::rowGroupOf(p, 0, o).interleaved.size == 1);
    o.interleaveTileGroups = 2;
    o.interleaveMinBytes = 2881; // too few
    CHECK(cuda::rowGroupOf(p, 0, o).interleaved.size == 1);
    o.interleaveMinBytes = 0;
    o.interleaveTileGroups = 1; // tiles of one group
    g = cuda::rowGroupOf(p, 0, o);
    CHECK(g.interleaved.size == 10);
    CHECK(g.tileGroups == 1);
    o.interleaveTileGroups = 0; // row order
    g = cuda::rowGroupOf(p, 0, o);
    CHECK(g.outer.var == 1);
    CHECK(g.interleaved.size == 1);
}

TEST_CASE("generic tensor kernels give the specialised kernels' tables, and the interpreter's",
          "[tensor][kernels][generic]") {
    const std::vector<TensorProgram> programs = hostGenericPrograms();
    REQUIRE(programs.size() == std::size(cuda_host::genericOps));
    const cuda::TensorKernelOptions special = hostGenericOptions(false);
    const cuda::TensorKernelOptions generic = hostGenericOptions(true);
    std::mt19937 rng(6);
    int genericOps = 0, warpOps = 0, inverseMax = 0, slices = 0, empty = 0;
    for (int i = 0; i < kHostGenericPrograms; ++i) {
        const TensorProgram &p = programs[i];
        INFO("program " << i);
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        for (uint32_t o = 0; o < p.ops.size(); ++o) {
            CHECK(!cuda::usesGenericKernel(p, o, special));
            if (!cuda::usesGenericKernel(p, o, generic))
                continue;
            ++genericOps;
            warpOps += cuda::usesWarpPerRow(p, o, generic);
            inverseMax += p.ops[o].kind == TensorOpKind::InverseMax;
            slices += p.ops[o].kind == TensorOpKind::SliceEvidence;
            empty += p.tables[p.ops[o].output].scope.empty();
        }
        // Launches of random length, so that rows begin anywhere in a table.
        const auto cuts = randomRanges(rng, 13);
        const auto bySpecial = runOnHost(cuda_host::specialOps[i], p, special, cuts);
        const auto byGeneric = runOnHost(cuda_host::genericOps[i], p, generic, cuts);
        // The interpreter sums a warp's share of a row in another order: equal to rounding.
        for (size_t t = 0; t < p.tables.size(); ++t) {
            INFO("table " << t);
            CHECK(byGeneric[t] == bySpecial[t]); // the same arithmetic in the same order
            if (p.tables[t].input)
                continue;
            REQUIRE(byGeneric[t].size() == ref->at(t).size());
            for (size_t r = 0; r < byGeneric[t].size(); ++r)
                CHECK(close(byGeneric[t][r], (*ref)[t][r]));
        }
    }
    // The programs reach every variant and kind of generic kernel.
    CHECK(genericOps >= 150);
    CHECK(warpOps >= 10);
    CHECK(inverseMax >= 5);
    CHECK(slices >= 3);
    CHECK(empty >= 2);
}

TEST_CASE("fused launches of a level's generic ops give the interpreter's tables",
          "[tensor][kernels][generic][fused]") {
    // As fused_launch.h groups them: a level's generic ops of one family in one launch, op
    // blockIdx.y of it, each reading its descriptor (appendFusedOpDescriptor's bytes); the rest
    // alone.
    const std::vector<TensorProgram> programs = hostGenericPrograms();
    const cuda::TensorKernelOptions generic = hostGenericOptions(true);
    int fusedLaunches = 0, fusedOps = 0;
    for (int i = 0; i < kHostGenericPrograms; ++i) {
        const TensorProgram &p = programs[i];
        INFO("program " << i);
        auto ref = interpretTensorProgram(p);
        REQUIRE(ref.ok());
        std::vector<std::vector<double>> tables(p.tables.size());
        for (size_t t = 0; t < p.tables.size(); ++t)
            tables[t] = p.tables[t].input ? p.tables[t].denseValues()
                                          : std::vector<double>(p.tables[t].entries(), -1.0);
        std::vector<std::vector<const double *>> inputs(p.ops.size());
        for (uint32_t o = 0; o < p.ops.size(); ++o)
            for (uint32_t in : p.ops[o].inputs)
                inputs[o].push_back(tables[in].data());
        for (const std::vector<uint32_t> &level : p.levels) {
            std::map<int, std::vector<uint32_t>> byFamily;
            for (uint32_t o : level) {
                const int family = cuda_host::genericFamily[i][o];
                if (family < 0)
                    launchRange(cuda_host::genericOps[i], p, o, generic, inputs[o],
                                tables[p.ops[o].output].data(), 0,
                                p.tables[p.ops[o].output].entries());
                else
                    byFamily[family].push_back(o);
            }
            for (const auto &[family, ops] : byFamily) {
                std::vector<unsigned char> descriptors;
                uint64_t threads = 1;
                for (uint32_t o : ops) {
                    const uint64_t rows = p.tables[p.ops[o].output].entries();
                    cuda::appendFusedOpDescriptor(
                        descriptors, reinterpret_cast<uint64_t>(inputs[o].data()),
                        reinterpret_cast<uint64_t>(tables[p.ops[o].output].data()), rows,
                        cuda::genericKernelShape(p, o));
                    threads = std::max(threads, threadsFor(p, o, generic, 0, rows));
                }
                const unsigned grid = static_cast<unsigned>(
                    std::clamp<uint64_t>((threads + kBlock - 1) / kBlock, 1, kMaxGrid));
                cuda_host::FusedKernel *kernel = cuda_host::genericFused[i][ops[0]];
                for (unsigned y = 0; y < ops.size(); ++y) {
                    auto run = [&] {
                        cuda_host::blockIdx.y = y;
                        kernel(descriptors.data());
                    };
                    if (cuda::usesWarpPerRow(p, ops[0], generic))
                        cuda_host::launchBlocks(grid, kBlock, 0, run);
                    else
                        cuda_host::launch(grid, kBlock, run);
                }
                fusedLaunches += ops.size() > 1;
                fusedOps += ops.size() > 1 ? static_cast<int>(ops.size()) : 0;
            }
        }
        for (size_t t = 0; t < p.tables.size(); ++t) {
            INFO("table " << t);
            if (p.tables[t].input)
                continue;
            REQUIRE(tables[t].size() == ref->at(t).size());
            for (size_t r = 0; r < tables[t].size(); ++r)
                CHECK(close(tables[t][r], (*ref)[t][r]));
        }
    }
    // Levels of several ops of one family occur, so launches of several ops ran.
    CHECK(fusedLaunches >= 5);
    CHECK(fusedOps >= 10);
}

TEST_CASE("a generic kernel's division by a run-time domain is exact below 2^31",
          "[tensor][kernels][generic]") {
    // zb_div as the kernels compute it (cuda_host_shim.h's __umulhi), against the / operator.
    auto divide = [](uint32_t n, uint32_t d) {
        const cuda::GenericDivider g = cuda::genericDivider(d);
        return (cuda_host::__umulhi(n, g.mul) + n) >> g.shift;
    };
    std::mt19937 rng(7);
    const uint32_t top = 0x7fffffffu;
    for (uint32_t d = 1; d <= 4096; ++d)
        for (uint32_t n : {0u, 1u, d - 1, d, d + 1, top, top - 1, top - d, top / d * d,
                           top / d * d - 1, static_cast<uint32_t>(rng() & top)}) {
            INFO("n " << n << ", d " << d);
            REQUIRE(divide(n, d) == n / d);
        }
    for (int trial = 0; trial < 200000; ++trial) {
        const uint32_t d = 1 + static_cast<uint32_t>(rng() & top), n = rng() & top;
        INFO("n " << n << ", d " << d);
        REQUIRE(divide(n, d) == n / d);
    }
}
