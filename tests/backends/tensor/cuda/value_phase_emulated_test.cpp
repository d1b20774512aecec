// The device VALUE phase (backends/tensor/cuda/codegen/value_phase_kernel.inc) compiled as host C++
// and run by an emulated warp (32 OS threads meeting at a barrier for each shuffle) over the tables
// the reference interpreter computed: its optimum must equal programResult and its assignment the
// one recoverAssignment picks, on random programs (fused and unfused buckets, evidence, eliminated
// spaces wider than a warp) and every order semiring. Here no GPU is needed; tensor_gpu_test.cpp
// checks the real device.
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "backends/tensor/cuda/plan/split_reductions.h"
#include "backends/tensor/cuda/plan/value_phase_plan.h"
#include "compiler/elimination/bucket_program.h"
#include "compiler/elimination/elimination_order.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "ir/tensor_interpret.h"

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"
#include "tests/support/int64_programs.h"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <atomic>
#include <barrier>
#include <cstring>
#include <memory>
#include <thread>

namespace emu {
struct Dim {
    unsigned x = 0;
};
thread_local Dim threadIdx, blockIdx;
Dim blockDim;
std::unique_ptr<std::barrier<>> warps[32], block;
unsigned long long slots[1024];
alignas(8) unsigned shared[1 << 16]; // the block's dynamic shared memory (one block at a time)

// __shfl_sync for the lanes of one warp: every lane posts its value, then reads lane `from`'s.
// Each warp meets at its own barrier, so warps decoding different ops never wait on each other.
template <class T> T shuffle(T v, unsigned from) {
    static_assert(sizeof(T) == 8);
    std::barrier<> &warp = *warps[threadIdx.x / 32];
    std::memcpy(&slots[threadIdx.x], &v, 8);
    warp.arrive_and_wait();
    T out;
    std::memcpy(&out, &slots[threadIdx.x / 32 * 32 + from % 32], 8);
    warp.arrive_and_wait();
    return out;
}
// __shfl_xor_sync: each lane reads its partner's.
template <class T> T shuffleXor(T v, unsigned mask) {
    return shuffle(v, (threadIdx.x % 32) ^ mask);
}

// A block of `threads` (whole warps) running `thread(t)` together.
template <class Thread> void runBlock(unsigned threads, Thread thread) {
    blockDim.x = threads;
    for (unsigned w = 0; w < threads / 32; ++w)
        warps[w] = std::make_unique<std::barrier<>>(32);
    block = std::make_unique<std::barrier<>>(threads);
    std::vector<std::thread> all;
    for (unsigned t = 0; t < threads; ++t)
        all.emplace_back([&, t] { thread(t); });
    for (auto &t : all)
        t.join();
}
} // namespace emu
// atomicOr on the host: lanes of several warps report a tie to one word.
unsigned atomicOr(unsigned *word, unsigned bits) {
    return std::atomic_ref<unsigned>(*word).fetch_or(bits);
}
using emu::blockDim;
using emu::blockIdx;
using emu::threadIdx;

#define __syncthreads() emu::block->arrive_and_wait()
#define __launch_bounds__(threads)
#define __global__
#define __device__
#define __forceinline__ inline
#define ZB_SHFL_XOR(v, m) emu::shuffleXor((v), (m))
#define ZB_SHFL(v, lane) emu::shuffle((v), (lane))
#define ZB_SYNCWARP() emu::warps[threadIdx.x / 32]->arrive_and_wait()
#define ZB_VP_SHARED emu::shared
#define ZB_UNROLL
// The tie rule's text ahead of the kernel's, as mpeTieRuleKernelSource() puts it on the device.
#define ZB_TIE_FN __device__ __forceinline__
#define ZB_MPE_TIE_RULE(...) __VA_ARGS__
#include "ir/mpe_tie_rule.inc"
#undef ZB_MPE_TIE_RULE
#define ZB_VALUE_PHASE_KERNEL(...) __VA_ARGS__
#include "backends/tensor/cuda/codegen/value_phase_kernel.inc"
#undef ZB_VALUE_PHASE_KERNEL

namespace {

using namespace zbddc;
using zbddc::testing::minFillOrder;

// The table entries the kernel reads: doubles, floats (narrow_costs.h) or int64 costs.
enum class Entries { Double, Float, Int64 };

// Every table's entries as the kernel reads them (zb_vp_tables): copies in segments, each table
// cut at up to two random rows where `cut` is given (a table held in parts by several devices),
// else one segment per table.
template <class T> struct HostTables {
    std::vector<std::vector<T>> copies;
    cuda::SegmentArrays arrays;
    std::vector<const T *> ptr;
};
template <class T, class Convert>
HostTables<T> hostTables(const TensorProgram &p, const std::vector<std::vector<double>> &computed,
                         Convert convert, std::mt19937 *cut) {
    HostTables<T> out;
    std::vector<cuda::TableSegment> segments;
    for (uint32_t t = 0; t < p.tables.size(); ++t) {
        const std::vector<double> values =
            p.tables[t].input ? p.tables[t].denseValues() : computed[t];
        std::vector<uint64_t> rows = {0, values.size()};
        for (int k = 0; cut && values.size() > 1 && k < 2; ++k)
            rows.push_back(1 + (*cut)() % (values.size() - 1));
        std::sort(rows.begin(), rows.end());
        rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
        for (size_t i = 0; i + 1 < rows.size(); ++i) {
            std::vector<T> &copy = out.copies.emplace_back();
            for (uint64_t r = rows[i]; r < rows[i + 1]; ++r)
                copy.push_back(convert(values[r]));
            segments.push_back(
                {t, rows[i], copy.size(), reinterpret_cast<unsigned long long>(copy.data())});
        }
    }
    auto arrays = cuda::segmentArrays(p, std::move(segments));
    REQUIRE(arrays.ok());
    out.arrays = std::move(*arrays);
    for (unsigned long long at : out.arrays.ptr)
        out.ptr.push_back(reinterpret_cast<const T *>(at));
    return out;
}

// Shared memory for a block whose warps' picks take `picks` words (none without pins), its plan
// and assignment `words` and the tables' arrays `arrays`: calls in turn get, past the picks,
// enough for all (the kernel walks copies there, as on a device where they fit), for the plan and
// the assignment only, and none (it walks global memory), so every path runs on every kind of
// program.
unsigned sharedWordsFor(uint64_t picks, size_t words, const cuda::SegmentArrays &arrays) {
    static unsigned calls = 0;
    const size_t all = words + cuda::segmentArrayWords(arrays);
    REQUIRE(picks + all <= std::size(emu::shared));
    const size_t given[] = {all, words, 0};
    return static_cast<unsigned>(picks + given[calls++ % 3]);
}

// The kernel on 32 emulated lanes over every table's complete values; the optimum as the 8-byte
// entry it is (a double, or an int64 cost's word). `pinned` (optional) as recoverAssignment's,
// given to the kernel as its pins; `cut` as hostTables'; `tied` (optional): the kernel's report
// of a tie.
double runEmulated(const TensorProgram &p, const std::vector<std::vector<double>> &computed,
                   std::vector<uint32_t> &assignment, Entries entries = Entries::Double,
                   const std::vector<uint8_t> *pinned = nullptr, std::mt19937 *cut = nullptr,
                   bool *tied = nullptr) {
    auto plan = cuda::buildValuePhasePlan(p);
    REQUIRE(plan.ok());
    const std::vector<uint32_t> pinWords =
        pinned ? cuda::casePins(*pinned, p.domainSizes.size(), 1) : std::vector<uint32_t>{};
    const unsigned *pins = pinned ? pinWords.data() : nullptr;
    const auto tables = hostTables<double>(
        p, computed, [](double v) { return v; }, cut);
    const auto floatTables = hostTables<float>(
        p, computed, [](double v) { return static_cast<float>(v); }, cut);
    const auto costTables = hostTables<long long>(p, computed, wordInt64, cut);
    double optimum = -1;
    long long costOptimum = -1;
    unsigned tiedWord = 2; // neither answer: the kernel must write it
    const unsigned planWords = static_cast<unsigned>(plan->size());
    const unsigned vars = static_cast<unsigned>(assignment.size());
    const unsigned casePinWords = cuda::pinWords(vars);
    const cuda::ValuePhaseShape shape = cuda::valuePhaseShape(*plan);
    const unsigned threads = cuda::valuePhaseThreads(shape);
    const unsigned shared = sharedWordsFor(pinned ? cuda::valuePhasePicks(shape, threads) : 0,
                                           planWords + vars, tables.arrays);
    const unsigned nTables = static_cast<unsigned>(p.tables.size());
    emu::runBlock(threads, [&](unsigned t) {
        threadIdx.x = t;
        blockIdx.x = 0; // one case
        const int minimize = cuda::valuePhaseMinimizes(p.semiring);
        const int product = cuda::valuePhaseMultiplies(p.semiring);
        switch (entries) {
        case Entries::Float:
            zb_value_phase_f32(plan->data(), planWords, pins, casePinWords,
                               floatTables.arrays.at.data(), floatTables.arrays.rows.data(),
                               floatTables.ptr.data(), nTables, assignment.data(), vars, shared,
                               &optimum, &tiedWord, minimize, product);
            break;
        case Entries::Int64:
            zb_value_phase_i64(plan->data(), planWords, pins, casePinWords,
                               costTables.arrays.at.data(), costTables.arrays.rows.data(),
                               costTables.ptr.data(), nTables, assignment.data(), vars, shared,
                               &costOptimum, &tiedWord, minimize, product);
            break;
        case Entries::Double:
            zb_value_phase(plan->data(), planWords, pins, casePinWords, tables.arrays.at.data(),
                           tables.arrays.rows.data(), tables.ptr.data(), nTables, assignment.data(),
                           vars, shared, &optimum, &tiedWord, minimize, product);
            break;
        }
    });
    REQUIRE(tiedWord <= 1);
    if (tied)
        *tied = tiedWord == 1;
    return entries == Entries::Int64 ? int64Word(costOptimum) : optimum;
}

// The batched kernel over `cases` blocks (one after another, 32 emulated lanes each), all cases
// walking one plan, each with its own pins (`pinned`, as recoverAssignment's per case), as
// decodeCasesOnDevice launches it; `tied` returns each case's report of a tie.
void runEmulatedCases(const TensorProgram &p, const std::vector<std::vector<double>> &computed,
                      std::vector<uint32_t> &assignments, const std::vector<uint8_t> &pinned,
                      uint32_t cases, std::vector<unsigned> &tied) {
    const size_t n = p.domainSizes.size();
    auto plan = cuda::buildValuePhasePlan(p);
    REQUIRE(plan.ok());
    const std::vector<uint32_t> pins = cuda::casePins(pinned, n, cases);
    const cuda::ValuePhaseShape shape = cuda::valuePhaseShape(*plan);
    const unsigned threads = cuda::valuePhaseThreads(shape);
    const auto tables = hostTables<double>(
        p, computed, [](double v) { return v; }, nullptr);
    const unsigned shared =
        sharedWordsFor(cuda::valuePhasePicks(shape, threads), plan->size() + n, tables.arrays);
    std::vector<double> optima(cases);
    tied.assign(cases, 2); // neither answer: the kernel must write each
    for (uint32_t b = 0; b < cases; ++b) {
        emu::runBlock(threads, [&](unsigned t) {
            threadIdx.x = t;
            blockIdx.x = b;
            zb_value_phase(plan->data(), static_cast<unsigned>(plan->size()), pins.data(),
                           cuda::pinWords(n), tables.arrays.at.data(), tables.arrays.rows.data(),
                           tables.ptr.data(), static_cast<unsigned>(p.tables.size()),
                           assignments.data(), static_cast<unsigned>(n), shared, optima.data(),
                           tied.data(), cuda::valuePhaseMinimizes(p.semiring),
                           cuda::valuePhaseMultiplies(p.semiring));
        });
    }
}

} // namespace

// One plan for the batch, each case's observations its pins: an op whose eliminated variables a
// case pins in part enumerates the others alone, one it pins in whole is skipped.
TEST_CASE("the batched VALUE phase kernel traces back every case of a junction tree, each with "
          "its observed variables pinned, and reports its ties as the host's walk does",
          "[value][emulated]") {
    std::mt19937 rng(19);
    int partlyPinned = 0, whollyPinned = 0, tiedCases = 0, untiedCases = 0;
    for (int trial = 0; trial < 6; ++trial) {
        BayesNet net = testing::randomBayesNet(rng, 7 + trial);
        if (trial % 2) // uniform CPTs: every case tied
            for (BnVariable &x : net.variables)
                for (double &p : x.cpt)
                    p = 1.0 / static_cast<double>(x.states.size());
        auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
        REQUIRE(tree.ok());
        const uint32_t n = static_cast<uint32_t>(net.variables.size()), cases = 8;
        JunctionTreeLowering lowering;
        lowering.maxProduct = true;
        lowering.batch = cases;
        lowering.batchFastest = trial % 2 == 0;
        for (uint32_t v = 0; v < n; ++v)
            lowering.observed.push_back(v);
        auto jt = lowerJunctionTree(net, *tree, lowering);
        REQUIRE(jt.ok());
        const size_t width = n + 1; // the variables, then the case
        std::vector<uint32_t> host(width * cases, 0);
        std::vector<uint8_t> pinned(width * cases, 0);
        for (uint32_t b = 0; b < cases; ++b) {
            std::vector<uint32_t> states(n, UINT32_MAX);
            for (uint32_t v = 0; v < n; ++v)
                if (rng() % 3 == 0) {
                    states[v] = rng() % net.variables[v].states.size();
                    host[b * width + v] = states[v];
                    pinned[b * width + v] = 1;
                }
            host[b * width + jt->batchVariable] = b;
            pinned[b * width + jt->batchVariable] = 1;
            jt->setEvidence(b, states);
        }
        auto computed = interpretTensorProgram(jt->program);
        REQUIRE(computed.ok());
        std::vector<uint32_t> device = host;
        std::vector<unsigned> hostTied(cases, 0), deviceTied;
        for (uint32_t b = 0; b < cases; ++b) {
            std::vector<uint32_t> a(host.begin() + b * width, host.begin() + (b + 1) * width);
            const std::vector<uint8_t> mine(pinned.begin() + b * width,
                                            pinned.begin() + (b + 1) * width);
            bool tied = false;
            recoverAssignment(jt->program, *computed, a, &mine, &tied);
            hostTied[b] = tied;
            (tied ? tiedCases : untiedCases) += 1;
            std::copy(a.begin(), a.end(), host.begin() + b * width);
            for (const TensorOp &op : jt->program.ops) {
                const auto pins = std::count_if(op.vars.begin(), op.vars.end(),
                                                [&](uint32_t v) { return mine[v] != 0; });
                if (reducesVariables(op.kind) && pins > 0)
                    ++(static_cast<size_t>(pins) < op.vars.size() ? partlyPinned : whollyPinned);
            }
        }
        runEmulatedCases(jt->program, *computed, device, pinned, cases, deviceTied);
        INFO("trial " << trial);
        CHECK(device == host);
        CHECK(deviceTied == hostTied);
    }
    CHECK(partlyPinned > 0);
    CHECK(whollyPinned > 0);
    CHECK((tiedCases > 0 && untiedCases > 0));
}

// The device's program is split (split_reductions.h): a scale's first stage is a Marginalize that
// feeds the scale alone, and the plan skips it as the host's walk does (scaleOnlyTables), so one
// case's assignment on the split program is the whole program's.
TEST_CASE("the VALUE phase kernel decodes a split junction tree as the host decodes it whole",
          "[value][emulated]") {
    std::mt19937 rng(23);
    size_t scaleStages = 0;
    for (int trial = 0; trial < 6; ++trial) {
        const BayesNet net = testing::randomBayesNet(rng, 14);
        auto tree = buildJunctionTree(net, greedyOrder(moralGraph(net), OrderHeuristic::MinFill));
        REQUIRE(tree.ok());
        JunctionTreeLowering lowering;
        lowering.maxProduct = true;
        lowering.observed = {0, 1};
        auto jt = lowerJunctionTree(net, *tree, lowering);
        REQUIRE(jt.ok());
        const TensorProgram split = cuda::splitWideReductions(jt->program, {64, 8});
        const std::vector<uint8_t> scaleOnly = scaleOnlyTables(split);
        scaleStages += static_cast<size_t>(std::count(scaleOnly.begin(), scaleOnly.end(), 1));
        auto whole = interpretTensorProgram(jt->program);
        auto parts = interpretTensorProgram(split);
        REQUIRE(whole.ok());
        REQUIRE(parts.ok());
        std::vector<uint32_t> host(split.domainSizes.size(), 0);
        std::vector<uint8_t> pinned(host.size(), 0);
        pinned[jt->batchVariable] = 1;
        recoverAssignment(jt->program, *whole, host, &pinned);
        std::vector<uint32_t> device(host.size(), 0);
        std::vector<unsigned> tied;
        runEmulatedCases(split, *parts, device, pinned, 1, tied);
        INFO("trial " << trial);
        CHECK(device == host);
    }
    CHECK(scaleStages > 0);
}

// One op eliminating six variables (more than a lane's steps, kZbVpSteps) from 3 inputs (a lane
// per input) or 40 (a lane per joint value), then x6 on its own; each case of the batch pins its
// own subset of them, none, all, or some: the kernel enumerates the rest as recoverAssignment
// does, ties included (few distinct values), with one plan for all.
TEST_CASE("the batched VALUE phase kernel decodes an op of many variables, any of them pinned per "
          "case, as the host's walk does",
          "[value][emulated]") {
    std::mt19937 rng(37);
    int fewPicked = 0, manyPicked = 0, nonePicked = 0, tiedCases = 0, untiedCases = 0;
    for (const uint32_t inputs : {3u, 40u})
        for (const Semiring ring : {Semiring::MinSum, Semiring::MaxProduct}) {
            TensorProgram p;
            p.semiring = ring;
            p.domainSizes = {2, 3, 2, 2, 3, 2, 3};
            for (uint32_t k = 0; k < inputs; ++k) {
                Table t;
                for (uint32_t v = 0; v < 7; ++v)
                    if ((k == 0 && v == 6) || rng() % 2) // the first reads x6: g holds it
                        t.scope.push_back(v);
                if (t.scope.front() == 6)
                    t.scope.insert(t.scope.begin(), rng() % 6);
                for (uint32_t v : t.scope)
                    t.domains.push_back(p.domainSizes[v]);
                t.input = true;
                t.values.resize(t.entries());
                for (double &x : t.values)
                    x = ring == Semiring::MinSum ? rng() % 3 : (1 + rng() % 3) / 4.0;
                p.tables.push_back(std::move(t));
            }
            Table g, h, r;
            g.scope = h.scope = {6};
            g.domains = h.domains = {3};
            h.input = true;
            h.values = {1, 1, 1};
            p.tables.insert(p.tables.end(), {g, h, r});
            TensorOp all{TensorOpKind::EliminateBucket, {}, inputs, {0, 1, 2, 3, 4, 5}, {}};
            for (uint32_t k = 0; k < inputs; ++k)
                all.inputs.push_back(k);
            p.ops = {all,
                     {TensorOpKind::EliminateBucket, {inputs, inputs + 1}, inputs + 2, {6}, {}}};
            computeLevels(p);
            p.results = {inputs + 2};
            REQUIRE(p.verify().ok());
            auto computed = interpretTensorProgram(p);
            REQUIRE(computed.ok());
            const uint32_t n = 7, cases = 12;
            std::vector<uint32_t> host(n * cases, 0);
            std::vector<uint8_t> pinned(n * cases, 0);
            for (uint32_t b = 0; b < cases; ++b)
                for (uint32_t v = 0; v < n; ++v) {
                    // Case 0 pins none, case 1 all of x0..x5, the others each at random.
                    pinned[b * n + v] = b == 1 ? v < 6 : b > 1 && rng() % 2;
                    if (pinned[b * n + v])
                        host[b * n + v] = rng() % p.domainSizes[v];
                }
            std::vector<uint32_t> device = host;
            std::vector<unsigned> hostTied(cases, 0), deviceTied;
            for (uint32_t b = 0; b < cases; ++b) {
                std::vector<uint32_t> a(host.begin() + b * n, host.begin() + (b + 1) * n);
                const std::vector<uint8_t> mine(pinned.begin() + b * n,
                                                pinned.begin() + (b + 1) * n);
                bool tied = false;
                recoverAssignment(p, *computed, a, &mine, &tied);
                hostTied[b] = tied;
                (tied ? tiedCases : untiedCases) += 1;
                std::copy(a.begin(), a.end(), host.begin() + b * n);
                const auto picked = std::count(mine.begin(), mine.begin() + 6, 0);
                ++(picked == 0 ? nonePicked : picked <= 4 ? fewPicked : manyPicked);
            }
            runEmulatedCases(p, *computed, device, pinned, cases, deviceTied);
            INFO(inputs << " inputs, " << semiringName(ring));
            CHECK(device == host);
            CHECK(deviceTied == hostTied);
        }
    CHECK(fewPicked > 0); // kZbVpSteps or fewer
    CHECK(manyPicked > 0);
    CHECK(nonePicked > 0);
    CHECK((tiedCases > 0 && untiedCases > 0));
}

TEST_CASE("the VALUE phase kernel on an emulated warp equals recoverAssignment",
          "[value][emulated]") {
    std::mt19937 rng(7);
    int wide = 0, floats = 0, tiedRuns = 0, untiedRuns = 0;
    for (int trial = 0; trial < 60; ++trial) {
        // Domains up to 40 make eliminated spaces wider than the warp, so lanes loop; costs in
        // [0, 2] make ties, across lanes too.
        const bool wideDomains = trial % 3 == 0;
        const CostNetwork net = testing::randomNetwork(
            rng, 3 + rng() % (wideDomains ? 3 : 6), 2 + rng() % 9, wideDomains ? 40 : 5,
            wideDomains ? 2 : 4, trial % 4 ? 30 : 2, trial % 2);
        std::vector<uint32_t> evidence;
        if (trial % 5 == 4) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[0] = rng() % net.domainSizes[0];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 3 != 1, evidence});
        REQUIRE(p.ok());
        // The same tables read under each order semiring (min-sum is the WCSP's own).
        const Semiring rings[] = {Semiring::MinSum, Semiring::MaxSum, Semiring::MaxProduct};
        p->semiring = rings[trial % 3];
        if (p->semiring == Semiring::MaxProduct) // no infinite costs under a product
            for (Table &t : p->tables) {
                for (double &v : t.values)
                    v = std::isinf(v) ? 0 : v;
                t.defaultValue = std::isinf(t.defaultValue) ? 0 : t.defaultValue;
            }
        auto computed = interpretTensorProgram(*p);
        REQUIRE(computed.ok());
        for (const TensorOp &op : p->ops) {
            uint64_t space = 1;
            for (uint32_t v : op.vars)
                space *= p->domainSizes[v];
            wide += reducesVariables(op.kind) && space > 32;
        }
        std::vector<uint32_t> host(net.numVariables(), 0);
        for (size_t v = 0; v < evidence.size(); ++v)
            if (evidence[v] != UINT32_MAX)
                host[v] = evidence[v];
        std::vector<uint32_t> device = host;
        bool hostTied = false, deviceTied = !hostTied;
        recoverAssignment(*p, *computed, host, nullptr, &hostTied);
        (hostTied ? tiedRuns : untiedRuns) += 1;
        // Odd trials read tables cut into segments, as several devices hold sliced ones.
        std::mt19937 cut(static_cast<unsigned>(trial));
        std::mt19937 *cuts = trial % 2 ? &cut : nullptr;
        const double optimum =
            runEmulated(*p, *computed, device, Entries::Double, nullptr, cuts, &deviceTied);
        INFO("trial " << trial << "\n" << p->dump());
        CHECK(device == host);
        CHECK(deviceTied == hostTied);
        const double expected = programResult(*p, *computed);
        CHECK((optimum == expected || (std::isnan(optimum) && std::isnan(expected))));
        if (cuda::fitsFloat32(*p)) { // float tables, as the GPU holds them then: the same picks
            std::vector<uint32_t> narrowed(net.numVariables(), 0);
            for (size_t v = 0; v < evidence.size(); ++v)
                if (evidence[v] != UINT32_MAX)
                    narrowed[v] = evidence[v];
            bool floatTied = !hostTied;
            CHECK(runEmulated(*p, *computed, narrowed, Entries::Float, nullptr, cuts, &floatTied) ==
                  expected);
            CHECK(narrowed == host);
            CHECK(floatTied == hostTied);
            ++floats;
        }
    }
    CHECK(floats > 0);
    CHECK(wide > 0); // the lanes' loop and the cross-lane ties were exercised
    CHECK((tiedRuns > 0 && untiedRuns > 0));
}

// An op's inputs share the warp's lanes (up to 32 of them, one lane each, the joint values of a
// pass filling what is left); more than 32 inputs fall back to a lane per joint value. Inexact
// values under both rings, against the host's walk.
TEST_CASE("the VALUE phase kernel decodes ops of up to and beyond 32 inputs as the host does",
          "[value][emulated]") {
    std::mt19937 rng(13);
    std::uniform_real_distribution<double> unit(0.05, 1.0);
    for (const uint32_t inputs : {2u, 5u, 11u, 31u, 32u, 33u, 40u})
        for (const Semiring ring : {Semiring::MaxProduct, Semiring::MinSum}) {
            TensorProgram p;
            p.semiring = ring;
            p.domainSizes = {7};
            for (uint32_t k = 0; k < inputs; ++k) {
                Table t;
                t.scope = {0};
                t.domains = {7};
                t.input = true;
                for (int v = 0; v < 7; ++v)
                    t.values.push_back(unit(rng));
                p.tables.push_back(t);
            }
            p.tables.push_back(Table{}); // the result
            TensorOp op{TensorOpKind::EliminateBucket, {}, inputs, {0}, {}};
            for (uint32_t k = 0; k < inputs; ++k)
                op.inputs.push_back(k);
            p.ops = {op};
            computeLevels(p);
            p.results = {inputs};
            REQUIRE(p.verify().ok());
            auto computed = interpretTensorProgram(p);
            REQUIRE(computed.ok());
            std::vector<uint32_t> host{0}, device{0};
            recoverAssignment(p, *computed, host);
            INFO(inputs << " inputs, " << (ring == Semiring::MinSum ? "min-sum" : "max-product"));
            CHECK(runEmulated(p, *computed, device) == programResult(p, *computed));
            CHECK(device == host);
        }
}

// One op over a variable of 40 values (lanes loop, and meet in the reduction): the best value and
// one runner-up at a given distance, in the same lane or in different ones, on either side of the
// best; the rest far off. A tie is reported exactly where the distance is within the tolerance
// (ir/mpe_tie_rule.inc: relative for products, times max(1, |x|) for log sums, absolute for
// costs), on the device as on the host.
TEST_CASE("the VALUE phase kernel reports a runner-up within the tie tolerance, across lanes",
          "[value][emulated][ties]") {
    struct Ring {
        Semiring semiring;
        double best, far, tiedStep, untiedStep; // steps from best toward worse (or better)
    };
    const Ring rings[] = {{Semiring::MaxProduct, 0.5, 0.1, 0.4e-9, 3e-9},
                          {Semiring::MaxSum, -3.0, -9.0, 0.5e-9, 2e-9},
                          {Semiring::MinSum, 2.0, 7.0, -0.5e-9, -1e-6}};
    int checked = 0;
    for (const Ring &ring : rings)
        for (const auto &[bestAt, runnerAt] : {std::pair{3u, 35u}, {3u, 20u}, {20u, 3u}, {39u, 0u}})
            for (const bool tiedCase : {true, false})
                for (const double side : {1.0, -1.0}) { // the runner-up worse, or a hair better
                    const double step = tiedCase ? ring.tiedStep : ring.untiedStep;
                    if (side < 0 && !tiedCase)
                        continue; // better beyond the tolerance: it is the best
                    TensorProgram p;
                    p.semiring = ring.semiring;
                    p.domainSizes = {40};
                    Table t;
                    t.scope = {0};
                    t.domains = {40};
                    t.input = true;
                    t.values.assign(40, ring.far);
                    t.values[bestAt] = ring.best;
                    const double scale =
                        ring.semiring == Semiring::MinSum ? 1.0 : std::fabs(ring.best);
                    t.values[runnerAt] = ring.best - side * step * scale;
                    p.tables = {t, Table{}};
                    p.ops = {TensorOp{TensorOpKind::EliminateBucket, {0}, 1, {0}, {}}};
                    computeLevels(p);
                    p.results = {1};
                    REQUIRE(p.verify().ok());
                    auto computed = interpretTensorProgram(p);
                    REQUIRE(computed.ok());
                    std::vector<uint32_t> host{0}, device{0};
                    bool hostTied = false, deviceTied = !tiedCase;
                    recoverAssignment(p, *computed, host, nullptr, &hostTied);
                    runEmulated(p, *computed, device, Entries::Double, nullptr, nullptr,
                                &deviceTied);
                    INFO(semiringName(ring.semiring) << ", best at " << bestAt << ", runner-up at "
                                                     << runnerAt << ", side " << side);
                    CHECK(hostTied == tiedCase);
                    CHECK(deviceTied == tiedCase);
                    CHECK(device == host);
                    // Maximising, a tie keeps the first of the two; costs compare exactly.
                    const bool exact = ring.semiring == Semiring::MinSum;
                    CHECK(host[0] == (tiedCase && !exact ? std::min(bestAt, runnerAt)
                                      : side < 0         ? runnerAt
                                                         : bestAt));
                    ++checked;
                }
    CHECK(checked == 3 * 4 * 3);
}

TEST_CASE("the VALUE phase kernel decodes int64 costs beyond 2^53 as recoverAssignment does",
          "[value][emulated][int64]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 30; ++trial) {
        const bool wideDomains = trial % 3 == 0;
        const CostNetwork net = testing::randomNetwork(
            rng, 3 + rng() % (wideDomains ? 3 : 6), 2 + rng() % 9, wideDomains ? 40 : 5,
            wideDomains ? 2 : 4, trial % 4 ? 30 : 2, trial % 2);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 3 != 1, {}});
        REQUIRE(p.ok());
        testing::widenToInt64(*p);
        auto computed = interpretTensorProgram(*p);
        REQUIRE(computed.ok());
        std::vector<uint32_t> host(net.numVariables(), 0), device = host;
        bool hostTied = false, deviceTied = !hostTied;
        recoverAssignment(*p, *computed, host, nullptr, &hostTied);
        const double optimum =
            runEmulated(*p, *computed, device, Entries::Int64, nullptr, nullptr, &deviceTied);
        INFO("trial " << trial << "\n" << p->dump());
        CHECK(device == host);
        CHECK(deviceTied == hostTied);
        CHECK(wordInt64(optimum) == wordInt64(programResult(*p, *computed)));
    }
}

TEST_CASE("the VALUE phase kernel saturates int64 totals at the forbidden cost as the host does",
          "[value][emulated][int64]") {
    // Totals straddle 2^63 - 1 (testing::widenToLimit): the optimum is just below it, or every
    // assignment saturates to forbidden and ties pick the first joint value, as on the host.
    std::mt19937 rng(12);
    int saturated = 0, feasible = 0;
    for (int trial = 0; trial < 24; ++trial) {
        const CostNetwork net =
            testing::randomConnectedNetwork(rng, 3 + rng() % 5, 2 + rng() % 8, 5, 3, 20, trial % 2);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 3 != 1, {}});
        REQUIRE(p.ok());
        const Cost best = testing::bruteForceOptimum(net);
        const int64_t bestCost = std::isinf(best) ? 0 : static_cast<int64_t>(best);
        // The limit just below, at or above the optimum.
        const auto w = testing::widenToLimit(*p, std::max<int64_t>(bestCost + trial % 3 - 1, 0));
        auto computed = interpretTensorProgram(*p);
        REQUIRE(computed.ok());
        std::vector<uint32_t> host(net.numVariables(), 0), device = host;
        recoverAssignment(*p, *computed, host);
        const int64_t optimum = wordInt64(runEmulated(*p, *computed, device, Entries::Int64));
        INFO("trial " << trial << ": limit " << w.limit << ", optimum " << best);
        CHECK(optimum == w.total(best));
        CHECK(device == host);
        CHECK(w.total(assignmentCost(net, device)) == optimum);
        ++(optimum == kInt64Forbidden ? saturated : feasible);
    }
    CHECK(saturated > 0);
    CHECK(feasible > 0);
}

TEST_CASE("the VALUE phase plan lists reducing ops last first, eliminated variables marked",
          "[value]") {
    // x0 in {0,1}, x1 in {0,1,2}: f(x0,x1) eliminated x1 into g(x0), then x0 into the result.
    TensorProgram p;
    p.domainSizes = {2, 3};
    Table f;
    f.scope = {0, 1};
    f.domains = {2, 3};
    f.input = true;
    f.values = {5, 1, 4, 2, 0, 3};
    Table g;
    g.scope = {0};
    g.domains = {2};
    Table r;
    p.tables = {f, g, r};
    p.ops = {{TensorOpKind::EliminateBucket, {0}, 1, {1}, {}},
             {TensorOpKind::EliminateBucket, {1}, 2, {0}, {}}};
    computeLevels(p);
    p.results = {2};
    REQUIRE(p.verify().ok());
    auto plan = cuda::buildValuePhasePlan(p);
    REQUIRE(plan.ok());
    // clang-format off
    const std::vector<uint32_t> expected{
        1, 2,                            // one result: table 2
        2,                               // two reducing ops
        2, 1,                            // two depths, ops of at most one variable
        1, 1,                            // one op each
        9, 20,                           // their records' offsets
        1, 0, 2, 1, 0,                   // op 1 eliminates x0 (domain 2, stride 1)
        1, 7,                            //   one input, its record 7 words into the op's
        1, 1, 0x80000000u, 2,            //   g(x0), x0 marked
        1, 1, 3, 1, 0,                   // op 0 eliminates x1 (domain 3, stride 1)
        1, 7,                            //   one input, its record 7 words into the op's
        0, 2, 0, 2, 0x80000000u, 3};     //   f(x0, x1), x1 marked
    // clang-format on
    CHECK(*plan == expected);
    const cuda::ValuePhaseShape shape = cuda::valuePhaseShape(*plan);
    CHECK((shape.ops == 2 && shape.depths == 2 && shape.widest == 1 && shape.vars == 1));
    auto computed = interpretTensorProgram(p);
    REQUIRE(computed.ok());
    std::vector<uint32_t> a{0, 0};
    CHECK(runEmulated(p, *computed, a) == 0); // f's least entry: x0 = 1, x1 = 1
    CHECK(a == std::vector<uint32_t>{1, 1});
}

namespace {

// Binary functions of small costs (ties abound) over the given pairs of variables.
CostNetwork pairsNetwork(std::mt19937 &rng, uint32_t n,
                         const std::vector<std::pair<uint32_t, uint32_t>> &pairs) {
    CostNetwork net;
    for (uint32_t v = 0; v < n; ++v)
        net.domainSizes.push_back(2 + rng() % 2);
    for (auto [a, b] : pairs) {
        CostFunction f;
        f.scope = {a, b};
        for (uint32_t k = 0; k < net.domainSizes[a] * net.domainSizes[b]; ++k)
            f.costs.push_back(rng() % 3);
        net.functions.push_back(std::move(f));
    }
    return net;
}

// The kernel over `p` with `pinned` (random values) equals recoverAssignment, in every table type.
void checkEveryEntries(std::mt19937 &rng, const TensorProgram &program,
                       const std::vector<uint8_t> &pinned) {
    for (Entries e : {Entries::Double, Entries::Float, Entries::Int64}) {
        TensorProgram p = program;
        if (e == Entries::Int64)
            testing::widenToInt64(p);
        auto computed = interpretTensorProgram(p);
        REQUIRE(computed.ok());
        std::vector<uint32_t> host(p.domainSizes.size(), 0);
        for (size_t v = 0; v < host.size(); ++v)
            if (pinned[v])
                host[v] = rng() % p.domainSizes[v];
        std::vector<uint32_t> device = host;
        recoverAssignment(p, *computed, host, &pinned);
        runEmulated(p, *computed, device, e, &pinned);
        INFO("entries " << static_cast<int>(e));
        CHECK(device == host);
    }
}

// Trial `trial`'s bucket program of a pairs network in `order`: buckets fused every other trial.
TensorProgram pairsProgram(std::mt19937 &rng, uint32_t n,
                           const std::vector<std::pair<uint32_t, uint32_t>> &pairs,
                           const std::vector<uint32_t> &order, int trial) {
    auto p = buildBucketProgram(pairsNetwork(rng, n, pairs), order, {trial % 2 == 0, {}});
    REQUIRE(p.ok());
    return std::move(*p);
}

// The shape of the VALUE phase's plan over `p`.
cuda::ValuePhaseShape shapeOf(const TensorProgram &p) {
    auto plan = cuda::buildValuePhasePlan(p);
    REQUIRE(plan.ok());
    return cuda::valuePhaseShape(*plan);
}

} // namespace

TEST_CASE("the VALUE phase decodes a star's leaves side by side, more of them than warps",
          "[value][emulated][depth]") {
    // Leaves 1..70 around x0, each eliminated first: x0's op at depth 0, then all 70 leaves at
    // depth 1, shared by 32 warps (warp w takes leaves w, w + 32, w + 64).
    std::mt19937 rng(23);
    const uint32_t n = 71;
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    std::vector<uint32_t> order;
    for (uint32_t v = 1; v < n; ++v)
        pairs.push_back({0, v}), order.push_back(v);
    order.push_back(0);
    for (int trial = 0; trial < 4; ++trial) {
        const TensorProgram p = pairsProgram(rng, n, pairs, order, trial);
        std::vector<uint8_t> pinned(n, 0);
        const cuda::ValuePhaseShape shape = shapeOf(p);
        CHECK((shape.ops == n && shape.depths == 2 && shape.widest == n - 1 && shape.vars == 1));
        CHECK(cuda::valuePhaseThreads(shape) == 1024);
        checkEveryEntries(rng, p, pinned);
        // Pinned leaves skip their ops; a pinned x0 is read by every leaf, its op skipped.
        for (uint32_t v = 1; v < n; v += 3)
            pinned[v] = 1;
        checkEveryEntries(rng, p, pinned);
        pinned[0] = 1;
        checkEveryEntries(rng, p, pinned);
    }
}

TEST_CASE("the VALUE phase decodes a path one op per depth", "[value][emulated][depth]") {
    // x0 - x1 - ... - x39 eliminated from x0 on: x_i's op reads x_{i+1}, so 40 depths of one op.
    std::mt19937 rng(29);
    const uint32_t n = 40;
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    std::vector<uint32_t> order;
    for (uint32_t v = 0; v < n; ++v) {
        if (v + 1 < n)
            pairs.push_back({v, v + 1});
        order.push_back(v);
    }
    for (int trial = 0; trial < 4; ++trial) {
        const TensorProgram p = pairsProgram(rng, n, pairs, order, trial);
        std::vector<uint8_t> pinned(n, 0);
        const cuda::ValuePhaseShape shape = shapeOf(p);
        CHECK((shape.ops == n && shape.depths == n && shape.widest == 1));
        checkEveryEntries(rng, p, pinned);
        // A pinned x20: its op skipped, x19's reads the value it arrived with.
        pinned[20] = 1;
        checkEveryEntries(rng, p, pinned);
    }
}

TEST_CASE("the VALUE phase decodes random programs with pinned variables in every table type",
          "[value][emulated][depth]") {
    std::mt19937 rng(31);
    for (int trial = 0; trial < 30; ++trial) {
        const CostNetwork net =
            testing::randomConnectedNetwork(rng, 4 + rng() % 30, 3 + rng() % 40, 3, 3, 4, false);
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 2 == 0, {}});
        REQUIRE(p.ok());
        std::vector<uint8_t> pinned(net.numVariables(), 0);
        for (auto &b : pinned)
            b = rng() % 5 == 0;
        INFO("trial " << trial << "\n" << p->dump());
        checkEveryEntries(rng, *p, pinned);
    }
}

TEST_CASE("the VALUE phase's table segments must cover each table they name exactly", "[value]") {
    TensorProgram p;
    p.domainSizes = {4};
    Table t;
    t.scope = {0};
    t.domains = {4};
    t.input = true;
    t.values = {1, 2, 3, 4};
    p.tables = {t, t};
    // Table 0 in two parts, table 1 named by none (an empty segment stands in).
    auto fine = cuda::segmentArrays(p, {{0, 2, 2, 0x200}, {0, 0, 2, 0x100}});
    REQUIRE(fine.ok());
    CHECK(fine->at == std::vector<uint32_t>{0, 2, 3});
    CHECK(fine->rows == std::vector<unsigned long long>{0, 2, 2, 4, 0, 0});
    CHECK(fine->ptr == std::vector<unsigned long long>{0x100, 0x200, 0});
    auto gap = cuda::segmentArrays(p, {{0, 0, 1, 0x100}, {0, 2, 2, 0x200}});
    REQUIRE_FALSE(gap.ok());
    CHECK(gap.error().message.find("miss row 1") != std::string::npos);
    auto overlap = cuda::segmentArrays(p, {{0, 0, 3, 0x100}, {0, 2, 2, 0x200}});
    REQUIRE_FALSE(overlap.ok());
    CHECK(overlap.error().message.find("overlap at row 3") != std::string::npos);
    auto shortOf = cuda::segmentArrays(p, {{1, 0, 3, 0x100}});
    REQUIRE_FALSE(shortOf.ok());
    CHECK(shortOf.error().message.find("cover 3 of its 4 rows") != std::string::npos);
    REQUIRE_FALSE(cuda::segmentArrays(p, {{2, 0, 1, 0x100}}).ok());
}
