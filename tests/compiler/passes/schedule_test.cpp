// The Schedule's verifier, the lowering and the schedule interpreter, on small hand-made inputs.
#include "compiler/passes/passes.h"
#include "compiler/passes/schedule_interpret.h"
#include "ir/interpret.h"
#include "ir/schedule_edit.h"

#include "tests/catch.hpp"
#include "tests/support/random_circuits.h"

using namespace zbddc;

namespace {

// f4 = f(x1)·x2 + ... : the Minato et al. 2011 §2 example  f[4] = f[1]x[2] + f[2]; f[5] = f[3]x[3];
// f[6] = f[4]x[4] + f[5], with f[1], f[2], f[3] inputs too.
Circuit seedExample() {
    Circuit c;
    for (int i = 0; i < 5; ++i) {
        c.addInputInfo(InputInfo{InputKind::Free, kNone, kNone, 0.0, "x" + std::to_string(i)});
        c.addInput(i);
    }
    const NodeId one = c.addOne();
    const NodeId f1 = c.addTimes(one, 1), f2 = c.addTimes(one, 0), f3 = c.addTimes(one, 3);
    const NodeId f4 = c.addMulAdd(f1, 2, f2);
    const NodeId f5 = c.addTimes(f3, 3);
    c.addOutput(c.addMulAdd(f4, 4, f5), "f6");
    return c;
}

} // namespace

TEST_CASE("lowering names Minato et al. 2011's typeA and typeB and keeps F before X") {
    const Schedule s = lowerToSchedule(seedExample());
    REQUIRE(verify(s).ok());
    REQUIRE(s.numOps() == 6);
    REQUIRE(s.typeName[s.opType[3]] == "typeA");
    REQUIRE(templateText(s, s.opType[3]) == "F X * F +");
    REQUIRE(s.typeName[s.opType[0]] == "typeB");
    REQUIRE(s.operands[s.opOperandBegin[0]] == kSlotOne); // f1 = 1·x1: F operand is the One slot
}

TEST_CASE("the schedule interpreter agrees with the reference evaluator on the lowered circuit") {
    const Circuit c = seedExample();
    const std::vector<double> x = {0.3, 0.7, 0.2, 0.9, 0.4};
    for (Semiring ring :
         {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum}) {
        Result<Evaluation> e = evaluate(c, x, ring);
        Result<std::vector<double>> got = interpretSchedule(lowerToSchedule(c), x, ring);
        REQUIRE(e.ok());
        REQUIRE(got.ok());
        REQUIRE(got->at(0) == e->values[c.outputs[0]]);
    }
    // By hand, sum-product: f6 = (x1·x2 + x0)·x4 + x3·x3.
    Result<std::vector<double>> got =
        interpretSchedule(lowerToSchedule(c), x, Semiring::SumProduct);
    REQUIRE(got->at(0) == Approx((0.7 * 0.2 + 0.3) * 0.4 + 0.9 * 0.9));
}

TEST_CASE("merge-seed builds type2, type4, type5 and type6 where Minato et al. 2011 says") {
    // f[6] = f[4]x[4] + f[5], with f[4] typeA (not mergeable) and f[5] = f[3]x[3] single-parent
    // typeB: f6 becomes type5. f[3] = 1·x3 is typeB under f5, which was absorbed: f3 stays.
    Schedule s = lowerToSchedule(seedExample());
    PassStats st;
    mergeSeedTypes(s, PipelineOptions{}, st);
    REQUIRE(verify(s).ok());
    std::vector<std::string> names;
    for (uint32_t i = 0; i < s.numOps(); ++i)
        names.push_back(s.typeName[s.opType[i]]);
    // f1 (typeB, one parent f4) merges into f4: f4 = (1·x1)·x2 + f2 → type4, and f2 too → type6.
    REQUIRE(names == std::vector<std::string>{"typeB", "type6", "type5"});
    const std::vector<double> x = {0.3, 0.7, 0.2, 0.9, 0.4};
    REQUIRE(interpretSchedule(s, x, Semiring::SumProduct)->at(0) ==
            Approx((0.7 * 0.2 + 0.3) * 0.4 + 0.9 * 0.9));
}

TEST_CASE("the verifier rejects a level that reads what it writes and malformed templates") {
    Schedule s = lowerToSchedule(seedExample());
    // Put every op in one level: op 3 reads what ops 0 and 1 write in the same level.
    std::vector<uint32_t> order{0, 1, 2, 3, 4, 5}, level(6, 0);
    rebuildOps(s, order, level, 1);
    REQUIRE_FALSE(verify(s).ok());

    Schedule t = lowerToSchedule(seedExample());
    t.typeCode[t.typeCodeBegin[0]] = static_cast<uint32_t>(TemplateStep::Plus);
    REQUIRE_FALSE(verify(t).ok());

    Schedule u = lowerToSchedule(seedExample());
    u.opOut[5] = u.opOut[4];   // two ops write one slot in separate levels, but op 5 then is output
    u.outputs[0] = u.numSlots; // out of range
    REQUIRE_FALSE(verify(u).ok());
}

TEST_CASE("random ZBDD circuits lower to ZBDD types only") {
    const Circuit c =
        testing::randomZddCircuit({.vars = 20, .width = 15, .roots = 3, .reach = 20}, 7);
    const Schedule s = lowerToSchedule(c);
    REQUIRE(verify(s).ok());
    for (uint32_t t = 0; t < s.numTypes(); ++t)
        REQUIRE((s.typeName[t] == "typeA" || s.typeName[t] == "typeB"));
}

TEST_CASE("unify-types runs a few typeB ops of a level as typeA with a Zero operand") {
    // One level: five typeA ops and two typeB ops over constants and inputs; warp 8 holds all
    // seven.
    Circuit c;
    for (int i = 0; i < 4; ++i) {
        c.addInputInfo(InputInfo{InputKind::Free, kNone, kNone, 0.0, "x" + std::to_string(i)});
        c.addInput(i);
    }
    const NodeId half = c.addConst(0.5), quarter = c.addConst(0.25);
    for (int k = 0; k < 5; ++k)
        c.addOutput(c.addMulAdd(half, k % 4, quarter)); // typeA: F X * F +
    for (int k = 0; k < 2; ++k)
        c.addOutput(c.addTimes(quarter, k)); // typeB: F X *
    Schedule s = lowerToSchedule(c);
    PipelineOptions o;
    o.device.warp = 8;
    PassStats st;
    levelize(s, o, st);
    REQUIRE(s.numLevels() == 1);
    REQUIRE(s.numGroups() >= 2);
    unifyTypes(s, o, st);
    REQUIRE(verify(s).ok());
    REQUIRE(s.numGroups() == 1);
    REQUIRE(s.typeName[s.groupType[0]] == "typeA");
    const std::vector<double> x = {0.3, 0.7, 0.2, 0.9};
    for (Semiring ring :
         {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum}) {
        Result<Evaluation> e = evaluate(c, x, ring);
        Result<std::vector<double>> got = interpretSchedule(s, x, ring);
        REQUIRE(got.ok());
        for (size_t k = 0; k < c.numOutputs(); ++k)
            REQUIRE(got->at(k) == e->values[c.outputs[k]]);
    }
}
