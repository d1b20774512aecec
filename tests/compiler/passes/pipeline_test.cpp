// Every pass keeps the circuit's value: the schedule interpreter must agree with the reference
// evaluator after every pass, at every -O level, in every semiring, on random ZBDD-shaped and
// general circuits; plus the structural promises each pass makes.
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/schedule_interpret.h"
#include "ir/interpret.h"
#include "ir/schedule_edit.h"

#include "tests/catch.hpp"

#include <algorithm>
#include "tests/support/close.h"
#include "tests/support/random_circuits.h"

#include <cmath>
#include <random>

using namespace zbddc;

namespace {

const Semiring kRings[] = {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum,
                           Semiring::MinSum};

// The schedule's outputs equal the circuit's in every semiring on a few random inputs.
void requireSameValues(const Circuit &c, const Schedule &s) {
    for (uint32_t trial = 0; trial < 3; ++trial) {
        const std::vector<double> x = testing::randomInputs(c.numInputs(), trial);
        for (Semiring ring : kRings) {
            Result<Evaluation> e = evaluate(c, x, ring);
            Result<std::vector<double>> got = interpretSchedule(s, x, ring);
            REQUIRE(e.ok());
            INFO((got.ok() ? std::string() : got.error().message));
            REQUIRE(got.ok());
            for (size_t o = 0; o < c.numOutputs(); ++o) {
                INFO("output " << o << " semiring " << semiringName(ring));
                INFO(got->at(o) << " vs " << e->values[c.outputs[o]]);
                REQUIRE(testing::close(got->at(o), e->values[c.outputs[o]], 1e-12));
            }
        }
    }
}

// ZBDD-shaped circuits whose children may lie any number of variables below (the long edges of
// zero-suppressed variables), and general ones.
std::vector<Circuit> circuits() {
    std::vector<Circuit> cs;
    for (uint32_t seed = 1; seed <= 4; ++seed) {
        const uint32_t vars = 12 + seed * 5;
        cs.push_back(testing::randomZddCircuit(
            {.vars = vars, .width = 200 * seed / vars, .roots = 1 + seed % 3, .reach = vars},
            seed));
        cs.push_back(testing::randomCircuit({.inputs = 8, .ops = 150 * seed}, seed));
    }
    return cs;
}

// Small device so that the random circuits exercise grid, single-block and preload tiles.
PipelineOptions smallDevice(int level) {
    PipelineOptions o = withGpuPasses({});
    o.level = level;
    o.verifyEach = true;
    o.device = DeviceShape{4, 8, 64, 8 * 8};
    o.gridMinOps = 16;
    o.threadsPerBlock = 8;
    return o;
}

} // namespace

TEST_CASE("every -O level keeps the value of random circuits in every semiring") {
    for (const Circuit &c : circuits())
        for (int level = 0; level <= 3; ++level) {
            INFO("-O" << level);
            Result<Schedule> s = buildSchedule(c, smallDevice(level));
            INFO((s.ok() ? std::string() : s.error().message));
            REQUIRE(s.ok());
            requireSameValues(c, *s);
        }
}

TEST_CASE("without a target's passes every level stays on the host and the value is kept") {
    for (const Circuit &c : circuits())
        for (int level = 0; level <= 3; ++level) {
            PipelineOptions o = smallDevice(level);
            o.targetPasses.clear();
            const std::vector<std::string> names = *passList(o);
            for (const char *gpuOnly : {"split-phases", "partition", "preload"})
                CHECK(std::find(names.begin(), names.end(), gpuOnly) == names.end());
            Result<Schedule> s = buildSchedule(c, o);
            REQUIRE(s.ok());
            for (uint32_t l = 0; l < s->numLevels(); ++l)
                CHECK(static_cast<Phase>(s->levelPhase[l]) == Phase::Host);
            CHECK(s->numBlocks() == s->numGroups());
            requireSameValues(c, *s);
            o.passes = {"levelize", "group", "preload"};
            CHECK_FALSE(passList(o).ok()); // a GPU pass is unknown without the GPU's list
        }
}

TEST_CASE("every pass alone keeps the value (each prefix of the -O3 and -O2 lists)") {
    const Circuit c =
        testing::randomZddCircuit({.vars = 30, .width = 20, .roots = 2, .reach = 30}, 11);
    for (int level : {2, 3}) {
        PipelineOptions o = smallDevice(level);
        const std::vector<std::string> full = *passList(o);
        for (size_t n = 1; n <= full.size(); ++n) {
            o.passes.assign(full.begin(), full.begin() + n);
            INFO("after " << o.passes.back());
            Result<Schedule> s = buildSchedule(c, o);
            REQUIRE(s.ok());
            requireSameValues(c, *s);
        }
    }
}

TEST_CASE("levelize gives as many levels as the longest path") {
    for (const Circuit &c : circuits()) {
        // Independent longest path over the circuit's op nodes (leaves are not ops).
        std::vector<uint32_t> depth(c.numNodes(), 0);
        uint32_t longest = 0;
        for (NodeId id = 0; id < c.numNodes(); ++id) {
            if (operandCount(c.kind[id]) == 0)
                continue;
            uint32_t d = 1;
            for (uint32_t operand : {c.a[id], c.b[id], c.c[id]})
                if (operand != kNone)
                    d = std::max(d, depth[operand] + 1);
            depth[id] = d;
            longest = std::max(longest, d);
        }
        PipelineOptions o = withGpuPasses({});
        o.passes = {"levelize"};
        Result<Schedule> s = buildSchedule(c, o);
        REQUIRE(s.ok());
        REQUIRE(s->numLevels() == longest);
    }
}

TEST_CASE("justify keeps the number of levels and never widens the widest level (balance)") {
    for (const Circuit &c : circuits())
        for (const char *how : {"greedy", "balance"}) {
            PipelineOptions o = smallDevice(2);
            o.justify = how;
            o.passes = {"levelize"};
            const uint32_t levels = buildSchedule(c, o)->numLevels();
            o.passes = {"levelize", "justify"};
            std::vector<PassStats> stats;
            Result<Schedule> s = buildSchedule(c, o, &stats);
            REQUIRE(s.ok());
            REQUIRE(s->numLevels() == levels);
            requireSameValues(c, *s);
        }
}

TEST_CASE("merging reduces ops on ZBDD circuits; seed merging yields only type1-type6") {
    const Circuit c =
        testing::randomZddCircuit({.vars = 40, .width = 50, .roots = 2, .reach = 40}, 5);
    PipelineOptions o = withGpuPasses({});
    o.passes = {"merge-seed"};
    Result<Schedule> s = buildSchedule(c, o);
    REQUIRE(s.ok());
    const uint32_t ops = lowerToSchedule(c).numOps();
    REQUIRE(s->numOps() < ops);
    for (uint32_t t = 0; t < s->numTypes(); ++t)
        REQUIRE(std::string("typeA typeB type2 type4 type5 type6").find(s->typeName[t]) !=
                std::string::npos);
    o.passes = {"merge-trees"};
    Result<Schedule> deep = buildSchedule(c, o);
    REQUIRE(deep.ok());
    REQUIRE(deep->numOps() <= s->numOps());
    REQUIRE(deep->numTypes() <= o.maxTypes);
}

TEST_CASE(
    "slot reuse never needs more slots than SSA numbering, and outputs are contiguous per group") {
    for (const Circuit &c : circuits()) {
        PipelineOptions o = smallDevice(2);
        Result<Schedule> reuse = buildSchedule(c, o);
        o.passes = *passList(o);
        o.passes.back() = "assign-slots-noreuse";
        Result<Schedule> plain = buildSchedule(c, o);
        REQUIRE(reuse.ok());
        REQUIRE(plain.ok());
        REQUIRE(reuse->numSlots <= plain->numSlots);
        for (const Schedule *s : {&*reuse, &*plain})
            for (uint32_t g = 0; g < s->numGroups(); ++g)
                for (uint32_t i = s->groupOpBegin[g] + 1; i < s->groupOpBegin[g + 1]; ++i)
                    REQUIRE(s->opOut[i] == s->opOut[i - 1] + 1);
    }
}

TEST_CASE("preload tiles fit the shared memory and only read inputs or constants") {
    const Circuit c =
        testing::randomZddCircuit({.vars = 30, .width = 50, .roots = 2, .reach = 30}, 3);
    const PipelineOptions o = smallDevice(2);
    Result<Schedule> s = buildSchedule(c, o);
    REQUIRE(s.ok());
    uint32_t preloaded = 0;
    for (uint32_t b = 0; b < s->numBlocks(); ++b) {
        REQUIRE(s->blockLoadBegin[b + 1] - s->blockLoadBegin[b] <= o.device.sharedMemBytes / 8);
        preloaded += s->blockPreloads(b);
    }
    for (uint32_t slot : s->blockLoads)
        REQUIRE(slot < s->computedBase());
    REQUIRE(preloaded > 0);
}

TEST_CASE("pass lists: unknown names, wrong order and missing levelize are refused") {
    REQUIRE(splitPassList("levelize,,group,") == std::vector<std::string>{"levelize", "group"});
    REQUIRE(splitPassList("").empty());
    PipelineOptions o = withGpuPasses({});
    o.passes = {"levelize", "frobnicate"};
    REQUIRE_FALSE(passList(o).ok());
    o.passes = {"levelize", "merge-seed"};
    REQUIRE_FALSE(passList(o).ok());
    o.passes = {"group"};
    REQUIRE_FALSE(passList(o).ok());
    o.passes.clear();
    o.level = 7;
    REQUIRE_FALSE(passList(o).ok());
    o.level = 3;
    o.fuse = false;
    const Result<std::vector<std::string>> list = passList(o);
    REQUIRE(list.ok());
    for (const std::string &p : *list)
        REQUIRE(p.find("merge") == std::string::npos);
}

TEST_CASE("afterEachPass sees the schedule after lowering and after every pass") {
    const Circuit c = testing::randomZddCircuit({.vars = 20, .width = 20, .reach = 20}, 9);
    PipelineOptions o = smallDevice(3);
    std::vector<std::string> seen;
    std::vector<uint32_t> ops;
    o.afterEachPass = [&](const std::string &pass, const Schedule &s) {
        seen.push_back(pass);
        ops.push_back(s.numOps());
    };
    REQUIRE(buildSchedule(c, o).ok());
    const std::vector<std::string> list = *passList(o);
    std::vector<std::string> want{"lower"};
    want.insert(want.end(), list.begin(), list.end());
    REQUIRE(seen == want);
    REQUIRE(ops[1] < ops[0]); // merge-trees ran second and merged
}
