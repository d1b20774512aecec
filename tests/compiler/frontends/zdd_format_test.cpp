#include "compiler/frontends/zdd/zdd_format.h"

#include "tests/catch.hpp"
#include "tests/support/zdd_testing.h"

using namespace zbddc;

static const char *kSmall = R"(zdd 1
variable A 2 a0 a1
inputs 3
0 indicator A a0
1 indicator A a1
2 parameter 0.25 theta
nodes 3
2 2 0 1
3 1 0 2
4 0 3 2
roots 1
4 pr
)";

TEST_CASE("a .zdd file parses into its nodes, inputs and roots", "[zdd]") {
    auto m = parseZdd(kSmall, "small.zdd");
    REQUIRE(m.ok());
    CHECK(m->variables.size() == 1);
    CHECK(m->vars[2].kind == InputKind::Parameter);
    CHECK(m->vars[2].value == 0.25);
    CHECK(m->nodes.size() == 3);
    CHECK(m->node(4).lo == 3);
    // {{0,2}, {1,2}}: x0·x2 + x1·x2.
    CHECK(testing::familyOf(*m, m->roots[0]) == testing::Family{{0, 2}, {1, 2}});
}

TEST_CASE("writing and reading a .zdd is an exact round trip", "[zdd]") {
    auto m = parseZdd(kSmall, "small.zdd");
    REQUIRE(m.ok());
    const std::string text = writeZddToString(*m);
    CHECK(text == kSmall);
    std::mt19937 rng(1);
    for (int trial = 0; trial < 50; ++trial) {
        ZddModel r = testing::randomZdd(rng, 1 + trial % 9, 1 + trial % 23);
        r.vars[0] = {InputKind::Parameter, kNone, kNone, 1.0 / 3.0 + trial, "p"};
        auto back = parseZdd(writeZddToString(r), "random.zdd");
        REQUIRE(back.ok());
        CHECK(*back == r);
        CHECK(writeZddToString(*back) == writeZddToString(r));
    }
}

TEST_CASE("names with blanks, '#' or '%' survive a .zdd round trip", "[zdd]") {
    // XMLBIF and Hugin allow such names; written raw, a blank splits the token and '#' starts a
    // comment, so zbddc could not read its own output.
    auto m = parseZdd(kSmall, "small.zdd");
    REQUIRE(m.ok());
    m->variables[0].name = "Rain # today";
    m->variables[0].states = {"a 0", "100%"};
    m->vars[2].name = "theta #2";
    m->rootNames[0] = "";
    const std::string text = writeZddToString(*m);
    CHECK(text.find("variable Rain%20%23%20today 2 a%200 100%25\n") != std::string::npos);
    auto back = parseZdd(text, "names.zdd");
    REQUIRE(back.ok());
    CHECK(*back == *m);
    std::string bad = kSmall;
    bad.replace(bad.find("theta"), 5, "th%4");
    CHECK(parseZdd(bad, "bad.zdd").error().str() ==
          "bad.zdd:6: bad percent-encoding in label 'th%4'");
}

namespace {
struct BadCase {
    const char *text;
    size_t line;
    const char *message;
};
} // namespace

// Every malformed input ends with file:line and a message naming the fault.
TEST_CASE("malformed .zdd text gets one clear diagnostic with its line", "[zdd]") {
    const std::string head = "zdd 1\nvariable A 2 a0 a1\ninputs 2\n0 indicator A a0\n1 parameter 0.5\n";
    const BadCase cases[] = {
        {"", 1, "empty file"},
        {"zdd", 1, "unexpected end of file"},
        {"ZDD 1\n", 1, "not a .zdd file"},
        {"zdd 2\n", 1, "unsupported .zdd version 2"},
        {"zdd 1 extra\n", 1, "unexpected 'extra'"},
        {"zdd 1\nvariable A 2 a0 a0\n", 2, "duplicate state"},
        {"zdd 1\nvariable A 2 a0\n", 2, "fewer than 2 states"},
        {"zdd 1\nvariable A 2 a0 a1\nvariable A 1 x\n", 3, "duplicate variable 'A'"},
        {"zdd 1\ninputs 2\n0 free\n", 3, "expected 2 inputs lines, found 1"},
        {"zdd 1\ninputs 1\n1 free\n", 3, "out of order"},
        {"zdd 1\ninputs 1\n0 indicator B b\n", 3, "unknown variable 'B'"},
        {"zdd 1\nvariable A 1 a\ninputs 1\n0 indicator A z\n", 4, "unknown state 'z'"},
        {"zdd 1\ninputs 1\n0 parameter -0.5\n", 3, "finite non-negative"},
        {"zdd 1\ninputs 1\n0 parameter inf\n", 3, "finite non-negative"},
        {"zdd 1\ninputs 1\n0 parameter nan\n", 3, "expected parameter value, found 'nan'"},
        {"zdd 1\ninputs 1\n0 parameter 0.5x\n", 3, "expected parameter value"},
        {"zdd 1\ninputs 1\n0 weird\n", 3, "unknown input kind"},
        {"zdd 1\ninputs 99999999999\n", 2, "out of range"},
        {"zdd 1\ninputs -1\n", 2, "expected inputs count"},
    };
    for (const BadCase &c : cases) {
        INFO(c.text);
        auto m = parseZdd(c.text, "bad.zdd");
        REQUIRE_FALSE(m.ok());
        CHECK(m.error().file == "bad.zdd");
        CHECK(m.error().line == c.line);
        CHECK_THAT(m.error().message, Catch::Contains(c.message));
    }
    const BadCase nodeCases[] = {
        {"nodes 1\n", 6, "expected 1 nodes lines, found 0"},
        {"nodes 1\n2 0 0\n", 7, "unexpected end of file"},
        {"nodes 1\n1 0 0 1\n", 7, "reserved for a terminal"},
        {"nodes 2\n2 1 0 1\n2 0 0 1\n", 8, "duplicate node id 2"},
        {"nodes 1\n2 5 0 1\n", 7, "variable 5 is out of range"},
        {"nodes 1\n2 0 0 9\n", 7, "not a node defined above"},
        {"nodes 1\n2 0 2 1\n", 7, "not a node defined above"},
        {"nodes 1\n2 0 1 0\n", 7, "not zero-suppressed"},
        {"nodes 2\n2 0 0 1\n3 1 2 1\n", 8, "not below variable 1"},
        {"nodes 1\n2 0 0 1\nroots 1\n7\n", 9, "root 7 is not a node"},
        {"nodes 1\n2 0 0 1\nroots 2\n2\n", 9, "expected 2 roots lines"},
        {"nodes 1\n2 0 0 1\nroots 1\n2\nextra\n", 10, "after the roots"},
        {"nodes 1\n2 1 0 1\n", 7, ""},
    };
    for (const BadCase &c : nodeCases) {
        const std::string text = head + c.text;
        INFO(text);
        auto m = parseZdd(text, "bad.zdd");
        if (std::string(c.message).empty()) { // a valid prefix missing its roots
            REQUIRE_FALSE(m.ok());
            CHECK_THAT(m.error().message, Catch::Contains("expected 'roots'"));
            continue;
        }
        REQUIRE_FALSE(m.ok());
        CHECK(m.error().line == c.line);
        CHECK_THAT(m.error().message, Catch::Contains(c.message));
    }
}

TEST_CASE("binary garbage and missing files are refused", "[zdd]") {
    const std::string garbage("zdd 1\n\x01\x02\xff\xfe", 10);
    auto m = parseZdd(garbage, "garbage.zdd");
    REQUIRE_FALSE(m.ok());
    CHECK(m.error().line == 2);
    auto missing = readZddFile("/nonexistent/model.zdd");
    REQUIRE_FALSE(missing.ok());
    CHECK_THAT(missing.error().str(), Catch::Contains("/nonexistent/model.zdd: cannot read file"));
}
