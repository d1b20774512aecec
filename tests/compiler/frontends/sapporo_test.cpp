#include "compiler/frontends/zdd/zdd_format.h"

#include "tests/catch.hpp"
#include "tests/support/zdd_testing.h"

using namespace zbddc;

// Two levels (variables a = level 2, b = level 1). Node 4 = {{b}}, node 6 = {{a}} ∪ {{b}}... see
// each check; an odd id is the complement edge, which toggles ∅'s membership.
TEST_CASE("SAPPOROBDD export text reads into the same families", "[zdd][sapporo]") {
    const char *text = "_i 2\n_o 3\n_n 2\n4 1 F T\n6 2 4 T\n6\n5\n7\n";
    auto m = parseSapporoZdd(text, "x.sapporo");
    REQUIRE(m.ok());
    // Level 2 is the top variable: variable 0; level 1 is variable 1.
    const uint32_t a = 0, b = 1;
    CHECK(testing::familyOf(*m, m->roots[0]) == testing::Family{{a}, {b}});
    CHECK(testing::familyOf(*m, m->roots[1]) == testing::Family{{}, {b}});
    CHECK(testing::familyOf(*m, m->roots[2]) == testing::Family{{}, {a}, {b}});
    CHECK(m->vars[0].name == "level2");
}

TEST_CASE("readZddFile recognises SAPPOROBDD text by its header", "[zdd][sapporo]") {
    auto bad = parseSapporoZdd("_i 1\n_o 1\n_n 1\n3 1 F T\n2\n", "x.zdd");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message, Catch::Contains("odd"));
    auto dangling = parseSapporoZdd("_i 1\n_o 1\n_n 1\n2 1 F 8\n2\n", "x.zdd");
    REQUIRE_FALSE(dangling.ok());
    CHECK(dangling.error().line == 4);
    auto level = parseSapporoZdd("_i 1\n_o 1\n_n 1\n2 3 F T\n2\n", "x.zdd");
    REQUIRE_FALSE(level.ok());
    CHECK_THAT(level.error().message, Catch::Contains("outside 1..1"));
}
