// The d-DNNF (.nnf: c2d, d4), SDD (.sdd, .vtree), literal-weights and batch-of-weightings readers:
// what they accept, and one `file:line: what` for each malformed input.
#include "compiler/frontends/circuits/circuit_formats.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "compiler/frontends/circuits/weight_cases.h"

#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"

using namespace zbddc;

namespace {

// (x1 AND x2) OR (NOT x1 AND x3), c2d's format: a decision on x1.
const char *kC2d = "nnf 7 6 3\nL 1\nL 2\nA 2 0 1\nL -1\nL 3\nA 2 3 4\nO 1 2 2 5\n";
// The same in d4's format: root 1 first, literals on edges into a TRUE node.
const char *kD4 = "o 1 0\nt 2 0\n1 2 1 2 0\n1 2 -1 3 0\n";
// The same as an SDD over the vtree ((1 2) 3)... with x1 the prime: vtree 1 over (x1, (x2 x3)).
const char *kVtree = "vtree 5\nL 0 1\nL 2 2\nL 4 3\nI 3 2 4\nI 1 0 3\n";
const char *kSdd = "sdd 5\nL 1 0 1\nL 2 2 2\nL 3 0 -1\nL 4 4 3\nD 0 1 2 1 2 3 4\n";

LiteralWeights someWeights(uint32_t n) {
    LiteralWeights w;
    for (uint32_t v = 1; v <= n; ++v) {
        w.positive.push_back(0.3 + 0.1 * v);
        w.negative.push_back(1.7 - 0.2 * v);
    }
    return w;
}

struct Bad {
    const char *what, *text;
    size_t line;
    const char *says;
};

// Each text is refused at its line with a message that says what.
template <size_t N, class Parse> void checkRejected(const Bad (&cases)[N], Parse parse) {
    for (const Bad &b : cases) {
        INFO(b.what);
        auto r = parse(b.text);
        REQUIRE(!r.ok());
        CHECK(r.error().line == b.line);
        CHECK_THAT(r.error().message, Catch::Matchers::Contains(b.says));
    }
}

} // namespace

TEST_CASE("c2d, d4 and SDD spellings of one function read as the same function",
          "[circuits][readers]") {
    auto c2d = parseNnf(kC2d, "c2d.nnf");
    auto d4 = parseNnf(kD4, "d4.nnf");
    auto vtree = parseVtree(kVtree, "f.vtree");
    REQUIRE(c2d.ok());
    REQUIRE(d4.ok());
    REQUIRE(vtree.ok());
    auto sdd = parseSdd(kSdd, "f.sdd", *vtree);
    REQUIRE(sdd.ok());
    CHECK(c2d->numVars == 3);
    CHECK(d4->numVars == 3);
    CHECK(sdd->numVars == 3);
    for (uint64_t x = 0; x < 8; ++x) {
        const bool want =
            testing::literalTrue(1, x) ? testing::literalTrue(2, x) : testing::literalTrue(3, x);
        CHECK(testing::logicValue(*c2d, x) == want);
        CHECK(testing::logicValue(*d4, x) == want);
        CHECK(testing::logicValue(*sdd, x) == want);
    }
}

TEST_CASE("writeNnf's text reads back as the same function", "[circuits][readers]") {
    auto vtree = parseVtree(kVtree, "f.vtree");
    REQUIRE(vtree.ok());
    for (const char *text : {kSdd, "sdd 1\nT 0\n", "sdd 1\nF 0\n"}) {
        auto sdd = parseSdd(text, "f.sdd", *vtree);
        REQUIRE(sdd.ok());
        auto back = parseNnf(writeNnf(*sdd), "back.nnf");
        REQUIRE(back.ok());
        for (uint64_t x = 0; x < 8; ++x)
            CHECK(testing::logicValue(*back, x) == testing::logicValue(*sdd, x));
    }
}

TEST_CASE("the four weight conventions read the same weights", "[circuits][readers]") {
    const std::vector<std::string> texts = {
        "c p weight 1 0.25 0\nc p weight -1 0.75 0\nc p weight 2 2 0\nc p weight -2 0.5 0\n",
        "p cnf 2 0\nw 1 0.25\nw -1 0.75\nw 2 2\nw -2 0.5\n",
        "c weights 0.25 0.75 2 0.5\n",
        "c a plain table\n1 0.25 0.75\n2 2 0.5\n",
    };
    for (const std::string &text : texts) {
        auto w = parseLiteralWeights(text, "w.txt");
        INFO(text);
        REQUIRE(w.ok());
        CHECK(w->positive == std::vector<double>{0.25, 2});
        CHECK(w->negative == std::vector<double>{0.75, 0.5});
    }
    auto declared = parseLiteralWeights("p cnf 4 0\nw 1 0.5\nw -1 0.5\n", "w.txt");
    REQUIRE(declared.ok());
    CHECK(declared->numVars() == 4); // the unnamed ones weigh 1
    CHECK(declared->positive[3] == 1.0);
}

TEST_CASE("malformed circuit and weight files fail with file:line: what", "[circuits][readers]") {
    const Bad nnf[] = {
        {"empty", "c nothing\n", 1, "empty file"},
        {"short header", "nnf 1 0\nL 1\n", 1, "expected 'nnf"},
        {"literal beyond the variables", "nnf 1 0 2\nL 3\n", 2, "out of range"},
        {"literal 0", "nnf 1 0 2\nL 0\n", 2, "literal 0"},
        {"forward child", "nnf 2 1 1\nA 1 1\nL 1\n", 2, "not a node above"},
        {"wrong child count", "nnf 2 2 1\nL 1\nO 0 2 0\n", 3, "says 2 children"},
        {"unknown node", "nnf 1 0 1\nX 1\n", 2, "unknown node 'X'"},
        {"too many nodes", "nnf 1 0 1\nL 1\nL -1\n", 3, "more node lines"},
        {"too few nodes", "nnf 2 0 1\nL 1\n", 1, "says 2 nodes"},
        {"edge count", "nnf 2 2 1\nL 1\nA 1 0\n", 1, "says 2 edges"},
        {"d4 cycle", "o 1 0\na 2 0\n1 2 0\n2 1 0\n", 4, "cycle"},
        {"d4 undeclared", "o 1 0\n1 5 0\n", 2, "not declared"},
        {"d4 no root", "o 2 0\n", 1, "no node 1"},
        {"d4 edge without 0", "o 1 0\nt 2 0\n1 2 3\n", 3, "expected a node"},
        {"d4 edge from a constant", "t 1 0\nt 2 0\n1 2 0\n", 3, "constant"},
        {"a variable count past the bound", "nnf 1 0 99999999\nL 1\n", 1, "out of range"},
        {"a d4 literal past the bound", "o 1 0\nt 2 0\n1 2 2000000000 0\n", 3, "out of range"},
    };
    checkRejected(nnf, [](const char *t) { return parseNnf(t, "bad.nnf"); });
    CHECK(parseNnf("nnf 1 0 1\nX\n", "bad.nnf").error().file == "bad.nnf");
    const Bad vtrees[] = {
        {"no header", "L 0 1\n", 1, "expected 'vtree"},
        {"two leaves of a variable", "vtree 3\nL 0 1\nL 1 1\nI 2 0 1\n", 3, "two leaves"},
        {"child not above", "vtree 3\nL 0 1\nI 2 0 1\nL 1 2\n", 3, "not a node above"},
        {"two parents", "vtree 4\nL 0 1\nL 1 2\nI 2 0 1\nI 3 0 1\n", 5, "two parents"},
        {"not one tree", "vtree 2\nL 0 1\nL 1 2\n", 1, "not one tree"},
        {"more nodes than the header", "vtree 1\nL 0 1\nL 1 2\n", 3,
         "more vtree nodes than the header's 1"},
        {"fewer nodes than the header", "vtree 2\nL 0 1\n", 1, "says 2 vtree nodes"},
        {"no nodes", "vtree 0\n", 1, "the vtree has no nodes"},
    };
    checkRejected(vtrees, [](const char *t) { return parseVtree(t, "bad.vtree"); });
    auto vtree = parseVtree(kVtree, "f.vtree");
    REQUIRE(vtree.ok());
    const Bad sdds[] = {
        {"literal on the wrong leaf", "sdd 1\nL 1 2 1\n", 2, "not the variable of vtree node"},
        {"literal on an internal node", "sdd 1\nL 1 1 1\n", 2, "an internal node"},
        {"decision on a leaf", "sdd 3\nL 1 0 1\nL 2 2 2\nD 0 0 1 1 2\n", 4, "vtree leaf"},
        {"unknown vtree node", "sdd 1\nL 1 9 1\n", 2, "not in the vtree"},
        {"element not above", "sdd 2\nL 1 0 1\nD 0 1 1 1 7\n", 3, "not defined above"},
        {"element count", "sdd 2\nL 1 0 1\nD 0 1 2 1 1\n", 3, "says 2 elements"},
        {"duplicate id", "sdd 2\nL 1 0 1\nL 1 0 -1\n", 3, "duplicate"},
        {"count", "sdd 2\nL 1 0 1\n", 1, "says 2 SDD nodes"},
        {"more nodes than the header", "sdd 1\nL 1 0 1\nL 2 0 -1\n", 3,
         "more SDD nodes than the header's 1"},
        {"no nodes", "sdd 0\n", 1, "the SDD has no nodes"},
    };
    checkRejected(sdds, [&](const char *t) { return parseSdd(t, "bad.sdd", *vtree); });
    const Bad weights[] = {
        {"one polarity only", "w 1 0.5\nw 2 0.5\nw -2 0.5\n", 1, "give both literals"},
        {"negative weight", "w 1 -0.5\n", 1, "non-negative"},
        {"twice", "w 1 0.5\nw 1 0.25\n", 2, "second weight"},
        {"odd c weights", "c weights 0.5 0.5 0.5\n", 1, "even count"},
        {"bad row", "1 0.5\n", 1, "expected '<variable>"},
        {"not a number", "c p weight 1 x 0\n", 1, "expected weight"},
    };
    checkRejected(weights, [](const char *t) { return parseLiteralWeights(t, "bad.w"); });
}

TEST_CASE("a batch of weightings reads with a literals line or in c weights order",
          "[circuits][readers]") {
    auto named = parseWeightCases("c x2 and x1\nliterals -2 2 1 -1\n0.5 2 0.25 0.75\n"
                                  "\n1 1 1 1\n0 3 0.5 0.5\n",
                                  "w.cases");
    REQUIRE(named.ok());
    CHECK(named->count() == 3);
    CHECK(named->numVars() == 2);
    const LiteralWeights base{{9, 9, 9}, {8, 8, 8}}; // a --weights file's, under the columns
    const LiteralWeights first = caseWeights(*named, 0, base);
    CHECK(first.positive == std::vector<double>{0.25, 2, 9});
    CHECK(first.negative == std::vector<double>{0.75, 0.5, 8});
    const LiteralWeights third = caseWeights(*named, 2, {});
    CHECK(third.positive == std::vector<double>{0.5, 3});
    CHECK(third.negative == std::vector<double>{0.5, 0});
    auto rows = parseWeightCases("0.25 0.75 2 0.5\n1 1 1 1\n", "w.cases");
    REQUIRE(rows.ok());
    CHECK(rows->literals == std::vector<int32_t>{1, -1, 2, -2});
    CHECK(caseWeights(*rows, 0, {}).negative == std::vector<double>{0.75, 0.5});
    const Bad cases[] = {
        {"one literal of a variable", "literals 1 -1 2\n1 1 1\n", 1, "literal 2 without -2"},
        {"a literal twice", "literals 1 -1 1\n", 1, "literal 1 named twice"},
        {"literal 0", "literals 0\n", 1, "literal 0"},
        {"not a literal", "literals 1 x\n", 1, "expected literal, found 'x'"},
        {"a short case", "literals 1 -1\n0.5 0.5\n0.5\n", 3, "case 2 has 1 weights, for 2"},
        {"a long case", "0.5 0.5\n0.5 0.5 1 1\n", 2, "case 2 has 4 weights, for 2"},
        {"an odd first case", "0.5 0.5 1\n", 1, "an even count"},
        {"a negative weight", "literals 3 -3\n0.5 -1\n", 2, "the weight of -3 must be"},
        {"not a weight", "literals 3 -3\nnan 1\n", 2, "the weight of 3"},
        {"a header after a case", "1 1\nliterals 1 -1\n", 2, "before the first case"},
        {"two headers", "literals 1 -1\nliterals 2 -2\n", 2, "a second 'literals' line"},
        {"a variable past the bound", "literals 99999999 -99999999\n", 1, "out of range"},
        {"no case", "c nothing\nliterals 1 -1\n", 0, "no cases"},
    };
    checkRejected(cases, [](const char *t) { return parseWeightCases(t, "bad.cases"); });
}

TEST_CASE("an .sdd without its .vtree names the vtree it looked for", "[circuits][readers]") {
    auto r = readSddFile(testing::kCircuitFiles + "no_such.sdd");
    REQUIRE(!r.ok());
    CHECK_THAT(r.error().message, Catch::Matchers::Contains("no_such.vtree"));
}

TEST_CASE("an .sdd is read with the vtree named, where one is", "[circuits][readers]") {
    const std::string base = testing::kCircuitFiles + "cnf_a";
    auto beside = readSddFile(base + ".sdd");
    auto named = readSddFile(base + ".sdd", base + ".vtree");
    REQUIRE(beside.ok());
    REQUIRE(named.ok());
    CHECK(named->kind == beside->kind);
    CHECK(named->children == beside->children);
    auto missing = readSddFile(base + ".sdd", testing::kCircuitFiles + "elsewhere.vtree");
    REQUIRE(!missing.ok());
    CHECK_THAT(missing.error().message, Catch::Matchers::Contains("elsewhere.vtree"));
}

TEST_CASE("the committed PySDD files read in all three spellings", "[circuits][readers]") {
    for (const char *name : {"cnf_a", "cnf_b", "cnf_c", "cnf_d", "cnf_e"}) {
        const std::string base = testing::kCircuitFiles + name;
        auto sdd = readSddFile(base + ".sdd");
        auto c2d = readNnfFile(base + ".nnf");
        auto d4 = readNnfFile(base + ".d4.nnf");
        REQUIRE(sdd.ok());
        REQUIRE(c2d.ok());
        REQUIRE(d4.ok());
        const LiteralWeights w = someWeights(sdd->numVars);
        d4->numVars = sdd->numVars; // d4 names no variable count
        const double want = testing::bruteForceLogicWmc(*sdd, w);
        CHECK(testing::bruteForceLogicWmc(*c2d, w) == Approx(want).epsilon(1e-12));
        CHECK(testing::bruteForceLogicWmc(*d4, w) == Approx(want).epsilon(1e-12));
    }
}
