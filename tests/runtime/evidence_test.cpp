#include "runtime/evidence.h"

#include "tests/catch.hpp"

using namespace zbddc;

static std::vector<Variable> vars() {
    return {{"A", {"a0", "a1"}}, {"B", {"b0", "b1", "b2"}}};
}

TEST_CASE("VAR=state lists map onto state indices", "[evidence]") {
    auto e = parseEvidenceList("B=b2, A=a0", vars());
    REQUIRE(e.ok());
    CHECK(e->states == std::vector<uint32_t>{0, 2});
    CHECK_THAT(parseEvidenceList("C=x", vars()).error().message,
               Catch::Contains("unknown variable 'C'"));
    CHECK_THAT(parseEvidenceList("A=zz", vars()).error().message,
               Catch::Contains("unknown state 'zz'"));
    CHECK_THAT(parseEvidenceList("A", vars()).error().message, Catch::Contains("not VAR=state"));
}

TEST_CASE("UAI .evid files give one case or a batch", "[evidence]") {
    auto one = parseUaiEvidence("1 1 2\n", "e.evid", vars());
    REQUIRE(one.ok());
    REQUIRE(one->cases.size() == 1);
    CHECK(one->cases[0].states == std::vector<uint32_t>{kNone, 2});
    auto batch = parseUaiEvidence("2\n1 0 1\n2 0 0 1 1\n", "e.evid", vars());
    REQUIRE(batch.ok());
    REQUIRE(batch->cases.size() == 2);
    CHECK(batch->cases[1].states == std::vector<uint32_t>{0, 1});
    auto bad = parseUaiEvidence("1\n5 0\n", "e.evid", vars());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().str() == "e.evid:2: variable 5 is out of range (the model has 2)");
    auto badState = parseUaiEvidence("1 0 7", "e.evid", vars());
    CHECK_THAT(badState.error().message, Catch::Contains("state 7 is out of range"));
}

TEST_CASE("a variable observed twice: the same state is accepted, two states contradict the case",
          "[evidence]") {
    // The last observation used to win silently, on every route.
    auto same = parseEvidenceList("A=a1,A=a1", vars());
    REQUIRE(same.ok());
    CHECK(same->states == std::vector<uint32_t>{1, kNone});
    CHECK(same->contradiction.empty());
    auto both = parseEvidenceList("A=a0,B=b1,A=a1", vars());
    REQUIRE(both.ok());
    CHECK(both->states == std::vector<uint32_t>{kContradicted, 1});
    CHECK(both->contradiction == "variable 'A' is observed as 'a0' and 'a1'");
    auto sameUai = parseUaiEvidence("2 0 1 0 1\n", "e.evid", vars());
    REQUIRE(sameUai.ok());
    CHECK(sameUai->cases[0].states == std::vector<uint32_t>{1, kNone});
    // Only the contradicted case of a batch is: its neighbours keep their evidence.
    auto batch = parseUaiEvidence("3\n1 1 0\n3 0 0 0 1 0 0\n1 0 1\n", "e.evid", vars());
    REQUIRE(batch.ok());
    CHECK(batch->cases[0].contradiction.empty());
    CHECK(batch->cases[1].states == std::vector<uint32_t>{kContradicted, kNone});
    CHECK(batch->cases[1].contradiction == "variable 'A' is observed as 'a0' and 'a1'");
    CHECK(batch->cases[2].states == std::vector<uint32_t>{1, kNone});
}

TEST_CASE("a contradicted variable admits no state: every indicator of it is 0", "[evidence]") {
    ModelInterface c;
    c.variables = vars();
    for (uint32_t v = 0; v < 2; ++v)
        for (uint32_t s = 0; s < c.variables[v].states.size(); ++s)
            c.inputs.push_back({InputKind::Indicator, v, s, 0.0, ""});
    auto e = parseEvidenceList("A=a1,A=a0", vars());
    REQUIRE(e.ok());
    CHECK(*inputVector(c, *e) == std::vector<double>{0, 0, 1, 1, 1});
}

TEST_CASE("input vectors set indicators from evidence and fill free inputs", "[evidence]") {
    ModelInterface c;
    c.variables = vars();
    c.inputs.push_back({InputKind::Indicator, 1, 1, 0.0, ""});
    c.inputs.push_back({InputKind::Parameter, kNone, kNone, 0.7, ""});
    c.inputs.push_back({InputKind::Free, kNone, kNone, 0.0, ""});
    Evidence e = noEvidence(c.variables);
    CHECK(*inputVector(c, e, {3.0}) == std::vector<double>{1.0, 0.7, 3.0});
    e.states[1] = 2;
    CHECK(*inputVector(c, e, {3.0}) == std::vector<double>{0.0, 0.7, 3.0});
    CHECK_FALSE(inputVector(c, e).ok());
    CHECK_FALSE(inputVector(c, e, {1.0, 2.0}).ok());
}

TEST_CASE(".evid is read by its line structure, never by counting tokens", "[evidence]") {
    // A batch of two (the second without evidence), which counting tokens read as one case with
    // two observations.
    auto two = parseUaiEvidence("2\n1 0 1\n0\n", "e.evid", vars());
    REQUIRE(two.ok());
    REQUIRE(two->cases.size() == 2);
    CHECK(two->cases[0].states == std::vector<uint32_t>{1, kNone});
    CHECK(two->cases[1].states == std::vector<uint32_t>{kNone, kNone});
    auto four = parseUaiEvidence("4\n1 1 0\n0\n1 1 1\n0\n", "e.evid", vars());
    REQUIRE(four.ok());
    CHECK(four->cases.size() == 4);
    // Truncated single lines are errors, not cases without evidence.
    auto cut = parseUaiEvidence("1 0", "e.evid", vars());
    REQUIRE_FALSE(cut.ok());
    CHECK(cut.error().str() == "e.evid:1: variable 0 has no state on its line");
    auto cut2 = parseUaiEvidence("2 0 0", "e.evid", vars());
    REQUIRE_FALSE(cut2.ok());
    CHECK(cut2.error().str() ==
          "e.evid:1: the case declares 2 observed variables but its line holds 1");
    // A batch line that ends early or runs on, and a batch shorter than its count.
    CHECK(parseUaiEvidence("2\n1 0 1 1 1\n0\n", "e.evid", vars()).error().str() ==
          "e.evid:2: unexpected data after the case's 1 (variable, state) pairs");
    CHECK(parseUaiEvidence("3\n1 0 1\n0\n", "e.evid", vars()).error().str() ==
          "e.evid:3: the file declares 3 evidence cases but holds 2");
    CHECK_FALSE(parseUaiEvidence("1 0 1\n1 1 1\n", "e.evid", vars()).ok());
    // One case spread over lines (older writers) is still that case where it is no batch.
    auto spread = parseUaiEvidence("2\n0 1\n1 2\n", "e.evid", vars());
    REQUIRE(spread.ok());
    REQUIRE(spread->cases.size() == 1);
    CHECK(spread->cases[0].states == std::vector<uint32_t>{1, 2});
}

TEST_CASE("--evidence-format decides what the structure cannot", "[evidence]") {
    // Batch of two, or one case of two observations spread over lines: Detect takes the batch.
    const char *ambiguous = "2\n1 0 1\n0\n";
    auto detected = parseUaiEvidence(ambiguous, "e.evid", vars());
    REQUIRE(detected.ok());
    CHECK(detected->batch);
    CHECK(detected->cases.size() == 2);
    auto single = parseUaiEvidence(ambiguous, "e.evid", vars(), EvidenceLayout::Single);
    REQUIRE(single.ok());
    CHECK_FALSE(single->batch);
    REQUIRE(single->cases.size() == 1);
    CHECK(single->cases[0].states == std::vector<uint32_t>{kNone, 0}); // (1,0) observed twice
    // A forced batch needs its count alone on the first line; a one-line file is then refused.
    CHECK(parseUaiEvidence("1 0 1\n", "e.evid", vars(), EvidenceLayout::Batch).error().str() ==
          "e.evid:1: a batch starts with the number of cases alone on its first line");
    auto one = parseUaiEvidence("1\n1 1 2\n", "e.evid", vars(), EvidenceLayout::Batch);
    REQUIRE(one.ok());
    CHECK(one->batch);
    CHECK(one->cases.size() == 1);
    CHECK_FALSE(parseUaiEvidence("1 0 1\n", "e.evid", vars())->batch);
    CHECK(parseEvidenceLayout("batch") == EvidenceLayout::Batch);
    CHECK_FALSE(parseEvidenceLayout("2010").has_value());
}

TEST_CASE("an evidence batch holds each case's input vector, the indicators varying",
          "[evidence]") {
    ModelInterface c;
    c.variables = vars();
    auto indicator = [](uint32_t v, uint32_t s) {
        return InputInfo{InputKind::Indicator, v, s, 0.0, ""};
    };
    auto parameter = [](double value) {
        return InputInfo{InputKind::Parameter, kNone, kNone, value, ""};
    };
    c.inputs = {indicator(0, 0), parameter(0.3), indicator(0, 1), InputInfo{},
                indicator(1, 0), indicator(1, 1), indicator(1, 2), parameter(0.7)};
    CHECK(indicatorInputs(c) == std::vector<uint32_t>{0, 2, 4, 5, 6});
    CHECK_THAT(evidenceBatch(c).error().message, Catch::Contains("x[3] is free"));
    CHECK_THAT(evidenceBatch(c, {1, 2}).error().message, Catch::Contains("1 free inputs"));
    auto batch = evidenceBatch(c, {0.25});
    REQUIRE(batch.ok());
    addEvidence(c, Evidence{{1, kNone}, {}}, *batch);
    addEvidence(c, Evidence{{kNone, kContradicted}, {}}, *batch);
    REQUIRE(batch->check(c.numInputs()).ok());
    CHECK(batch->dense() == std::vector<double>{0, 0.3, 1, 0.25, 1, 1, 1, 0.7, //
                                                1, 0.3, 1, 0.25, 0, 0, 0, 0.7});
    auto one = inputVector(c, Evidence{{0, 2}, {}}, {0.25});
    REQUIRE(one.ok());
    CHECK(*one == std::vector<double>{1, 0.3, 0, 0.25, 0, 0, 1, 0.7});
}
