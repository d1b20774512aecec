// Networks through the command line: compile a BIF into a .zdd, answer queries on either, and
// check the answers against values computed by hand from asia's CPTs.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <algorithm>
#include <cmath>

using namespace zbddc::testing;

static std::string benchmark(const std::string &name) {
    return std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name;
}

TEST_CASE("a BIF network compiles to a .zdd that answers like the network", "[cli][network]") {
    REQUIRE(exists(benchmark("asia.bif")));
    const std::string zdd = scratchDir() + "/asia.zdd";
    auto compiled = runZbddc(benchmark("asia.bif") + " -o " + zdd);
    REQUIRE(compiled.exitCode == 0);
    for (const std::string &model : {benchmark("asia.bif"), zdd}) {
        // P(tub = yes) = 0.01·0.05 + 0.99·0.01 = 0.0104 (asia's CPTs).
        auto mar = runZbddc("run " + model + " --task mar --json");
        REQUIRE(mar.exitCode == 0);
        CHECK_THAT(mar.out, Catch::Contains("\"tub\":[0.0104"));
        // P(asia = yes, tub = yes) = 0.01·0.05 = 5e-4.
        auto pr = runZbddc("run " + model + " --task pr --evidence asia=yes,tub=yes");
        REQUIRE(pr.exitCode == 0);
        CHECK(std::stod(pr.out.substr(3)) == Approx(std::log10(5e-4)));
    }
}

TEST_CASE("network errors name the file and line", "[cli][network]") {
    const std::string bad = writeScratch("bad.bif",
        "network n {\n}\nvariable a {\n  type discrete [ 2 ] { y, n };\n}\n"
        "probability ( a ) {\n  table 0.5, 0.5, 0.5;\n}\n");
    auto r = runZbddc("run " + bad);
    CHECK(r.exitCode == 1);
    CHECK_THAT(r.err, Catch::StartsWith(bad + ":"));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    const std::string out = scratchDir() + "/bad.zdd";
    CHECK(runZbddc(bad + " -o " + out).exitCode == 1);
    CHECK_FALSE(exists(out));
}
