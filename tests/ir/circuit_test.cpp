#include "ir/circuit.h"

#include "tests/catch.hpp"

#include <sstream>

using namespace zbddc;

namespace {
Circuit smallCircuit() {
    Circuit c;
    c.variables.push_back({"A", {"a0", "a1"}});
    c.addInputInfo({InputKind::Indicator, 0, 0, 0.0, ""});
    c.addInputInfo({InputKind::Indicator, 0, 1, 0.0, ""});
    c.addInputInfo({InputKind::Parameter, kNone, kNone, 0.25, ""});
    const NodeId x0 = c.addInput(0), x1 = c.addInput(1), t = c.addInput(2);
    const NodeId one = c.addOne();
    const NodeId m = c.addTimes(one, t);
    c.addOutput(c.addMulAdd(m, x0, c.addTimes(one, x1)), "f");
    return c;
}
} // namespace

TEST_CASE("a well-formed circuit verifies", "[ir]") { REQUIRE(verify(smallCircuit()).ok()); }

TEST_CASE("the verifier rejects forward references (cycles)", "[ir]") {
    Circuit c = smallCircuit();
    c.a[4] = 6; // node 4 reads a later node
    auto s = verify(c);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.error().message, Catch::Contains("not an earlier node"));
}

TEST_CASE("the verifier rejects out-of-range inputs and outputs", "[ir]") {
    Circuit c = smallCircuit();
    c.a[0] = 7;
    CHECK_THAT(verify(c).error().message, Catch::Contains("input index out of range"));
    c = smallCircuit();
    c.outputs[0] = 100;
    CHECK_THAT(verify(c).error().message, Catch::Contains("is not a node"));
    c = smallCircuit();
    c.inputs[1].state = 2;
    CHECK_THAT(verify(c).error().message, Catch::Contains("unknown state"));
}

TEST_CASE("the verifier checks constants against the semiring", "[ir]") {
    Circuit c;
    c.addOutput(c.addConst(-1.0));
    c.semiring = Semiring::SumProduct;
    CHECK(verify(c).ok());
    c.semiring = Semiring::MaxProduct;
    CHECK_FALSE(verify(c).ok());
    c.constants[0] = std::numeric_limits<double>::infinity();
    c.semiring = Semiring::MaxSum;
    CHECK_FALSE(verify(c).ok());
    c.semiring = Semiring::MinSum;
    CHECK(verify(c).ok());
}

TEST_CASE("the text dump names every node, input and output", "[ir]") {
    std::ostringstream out;
    dump(smallCircuit(), out);
    const std::string text = out.str();
    CHECK_THAT(text, Catch::Contains("x0 indicator A=a0"));
    CHECK_THAT(text, Catch::Contains("x2 parameter 0.25"));
    CHECK_THAT(text, Catch::Contains("%6 = muladd %4, %0, %5"));
    CHECK_THAT(text, Catch::Contains("output %6 \"f\""));
}
