// `zbddc run --json`: every answer says where it ran twice, as words ("device", what scripts
// have always read) and as data ("device_report"), and the words are the data's: the kind, the
// notes in parentheses. The kind is what --device asked for where nothing can fall back, the
// route the one asked for, the arithmetic the answer's own "numeric".
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <regex>
#include <string>

using namespace zbddc::testing;

namespace {

const std::string kSeeds = ZBDDC_SOURCE_DIR "/tests/fuzz/seeds/";

struct Report {
    std::string device, kind, name, ordinal, arithmetic, route, notes;
};

// The members of the first result object in `json` (", " or "," between them).
Report reportOf(const std::string &json) {
    static const std::regex members(
        R"re("device": ?"([^"]*)", ?"device_report": ?\{"kind": ?"([^"]*)", ?"name": ?"([^"]*)", ?"ordinal": ?(null|[0-9]+), ?"arithmetic": ?(null|"[^"]*"), ?"route": ?"([^"]*)", ?"notes": ?"([^"]*)"\})re");
    std::smatch m;
    REQUIRE(std::regex_search(json, m, members));
    return {m[1], m[2], m[3], m[4], m[5], m[6], m[7]};
}

// "device" says what the report holds, and nothing else.
void checkLabel(const Report &r) {
    CHECK(r.device == r.kind + (r.notes.empty() ? "" : " (" + r.notes + ")"));
}

} // namespace

TEST_CASE("run --json on a network reports the CPU, the route and the arithmetic as data",
          "[cli][device]") {
    for (const char *route : {"mlf", "jt", "lbp"}) {
        INFO(route);
        const auto r =
            runZbddc("run '" + kSeeds + "tiny.bif' --task pr --device cpu --json --route " + route);
        REQUIRE(r.exitCode == 0);
        const Report rep = reportOf(r.out);
        CHECK(rep.kind == "cpu");
        CHECK(rep.name.empty());
        CHECK(rep.ordinal == "null");
        CHECK(rep.route == route);
        CHECK(r.out.find("\"numeric\":" + rep.arithmetic) != std::string::npos);
        CHECK(rep.arithmetic != "null");
        checkLabel(rep);
    }
    const auto reference = runZbddc("run '" + kSeeds + "tiny.bif' --device reference --json");
    REQUIRE(reference.exitCode == 0);
    CHECK(reportOf(reference.out).kind == "reference");
    checkLabel(reportOf(reference.out));
}

TEST_CASE("run --json on a cost network: bucket elimination's report, no one arithmetic",
          "[cli][device]") {
    const auto r = runZbddc("run '" + kSeeds + "tiny.wcsp' --device cpu --json");
    REQUIRE(r.exitCode == 0);
    const Report rep = reportOf(r.out);
    CHECK(rep.kind == "cpu");
    CHECK(rep.route == "be");
    CHECK(rep.arithmetic == "null");
    CHECK(rep.ordinal == "null");
    checkLabel(rep);
    // The words scripts read stay where they were: `"device": "cpu"`.
    CHECK(r.out.find("\"device\": \"cpu\"") != std::string::npos);
}
