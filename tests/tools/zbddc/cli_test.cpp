#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <cmath>

using namespace zbddc::testing;

static const std::string kExample = std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd";

TEST_CASE("zbddc --version and --help", "[cli]") {
    auto v = runZbddc("--version");
    CHECK(v.exitCode == 0);
    CHECK_THAT(v.out, Catch::StartsWith("zbddc "));
    auto h = runZbddc("--help");
    CHECK(h.exitCode == 0);
    CHECK_THAT(h.out, Catch::Contains("run"));
    CHECK_THAT(h.out, Catch::Contains("stats"));
}

// Hand-computed: P(W=yes) = 0.2·0.9 + 0.8·0.1 = 0.26; P(R=yes | W=yes) = 0.18/0.26.
TEST_CASE("zbddc run answers PR, MAR and MPE on the bundled example", "[cli]") {
    auto pr = runZbddc("run " + kExample + " --task pr --evidence WetGrass=yes");
    REQUIRE(pr.exitCode == 0);
    CHECK(pr.out.rfind("PR\n", 0) == 0);
    CHECK(std::stod(pr.out.substr(3)) == Approx(std::log10(0.26)));

    auto mar = runZbddc("run " + kExample + " --task mar --evidence WetGrass=yes --json");
    REQUIRE(mar.exitCode == 0);
    CHECK_THAT(mar.out, Catch::Contains("\"task\":\"mar\""));
    CHECK_THAT(mar.out, Catch::Contains("\"value\":0.26"));
    CHECK_THAT(mar.out, Catch::Contains("\"Rain\":[0.69230769230769"));
    CHECK_THAT(mar.out, Catch::Contains("\"device\":\"cpu"));

    auto mpe = runZbddc("run " + kExample + " --task mpe");
    REQUIRE(mpe.exitCode == 0);
    CHECK(mpe.out == "MPE\n2 1 1\n"); // Rain=no, WetGrass=no: 0.8·0.9 = 0.72 is the largest
}

TEST_CASE("zbddc run takes UAI evidence files, batches included", "[cli]") {
    const std::string evid = writeScratch("batch.evid", "2\n1 1 0\n1 1 1\n");
    auto r = runZbddc("run " + kExample + " --task pr --json --evidence " + evid);
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(r.out, Catch::StartsWith("[{"));
    CHECK_THAT(r.out, Catch::Contains("\"value\":0.26"));
    CHECK_THAT(r.out, Catch::Contains("\"value\":0.74"));
}

TEST_CASE("zbddc stats agrees with the example's hand count", "[cli]") {
    // 10 ZBDD nodes: 3 with a non-empty lo child (typeA), 7 typeB; longest path 6.
    auto s = runZbddc("stats " + kExample + " --json");
    REQUIRE(s.exitCode == 0);
    CHECK_THAT(s.out, Catch::Contains("\"ops\":10"));
    CHECK_THAT(s.out, Catch::Contains("\"typeA\":3"));
    CHECK_THAT(s.out, Catch::Contains("\"typeB\":7"));
    CHECK_THAT(s.out, Catch::Contains("\"levels\":6"));
    CHECK_THAT(s.out, Catch::Contains("\"inputs\":8"));
}

TEST_CASE("zbddc INPUT -o OUTPUT writes a .zdd that reads back the same", "[cli]") {
    const std::string out = scratchDir() + "/copy.zdd", again = scratchDir() + "/again.zdd";
    REQUIRE(runZbddc(kExample + " -o " + out).exitCode == 0);
    REQUIRE(runZbddc(out + " -o " + again).exitCode == 0);
    CHECK(slurp(out) == slurp(again));
    const std::string dump = scratchDir() + "/dump.txt";
    REQUIRE(runZbddc(kExample + " -o " + dump).exitCode == 0);
    CHECK_THAT(slurp(dump), Catch::Contains("x0 indicator Rain=yes"));
}

TEST_CASE("usage errors exit with 2", "[cli]") {
    CHECK(runZbddc("").exitCode == 2);
    CHECK(runZbddc(kExample).exitCode == 2);
    CHECK(runZbddc("run " + kExample + " --task nonsense").exitCode == 2);
    CHECK(runZbddc("--no-such-flag").exitCode == 2);
    const std::string out = scratchDir() + "/model.unknown";
    CHECK(runZbddc(kExample + " -o " + out).exitCode == 2);
    CHECK_FALSE(exists(out));
}

TEST_CASE("bad evidence is one clear line and exit 1", "[cli]") {
    auto r = runZbddc("run " + kExample + " --evidence Fog=yes");
    CHECK(r.exitCode == 1);
    CHECK(r.err == "zbddc: evidence: unknown variable 'Fog'\n");
}
