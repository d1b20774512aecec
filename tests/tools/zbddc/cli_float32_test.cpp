// `zbddc run NET --numeric float32|log32` as a user runs it: on the reference device (the exact
// float32 emulation) the JSON carries each answer's error_bound and the UAI text is followed by
// the bound on stderr; the CPU answers in float64 and says why; MPE refuses; the answers agree
// with float64 within the stated bound.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <cmath>
#include <regex>

using namespace zbddc::testing;

namespace {

const char *kNetwork = R"(network n { }
variable A { type discrete [ 2 ] { a0, a1 }; }
variable B { type discrete [ 2 ] { b0, b1 }; }
probability ( A ) { table 0.3, 0.7; }
probability ( B | A ) { (a0) 0.9, 0.1; (a1) 0.2, 0.8; }
)";

double field(const std::string &json, const std::string &key) {
    std::smatch m;
    const std::regex re("\"" + key + "\":([-0-9.e+]+)");
    REQUIRE(std::regex_search(json, m, re));
    return std::stod(m[1]);
}

} // namespace

TEST_CASE("run --numeric float32|log32: error_bound in the JSON, the bound on stderr",
          "[cli][float32]") {
    const std::string net = writeScratch("f32.bif", kNetwork);
    const std::string base = "run '" + net + "' --route mlf --task pr --evidence B=b1 ";
    const auto want = runZbddc(base + "--device reference --json");
    REQUIRE(want.exitCode == 0);
    for (const char *mode : {"float32", "log32"}) {
        INFO(mode);
        const auto json = runZbddc(base + "--device reference --json --numeric " + mode);
        REQUIRE(json.exitCode == 0);
        CHECK(json.out.find(std::string("\"numeric\":\"") + mode + "\"") != std::string::npos);
        const double bound = field(json.out, "relative");
        CHECK(bound > 0);
        CHECK(bound < 1e-5);
        CHECK(std::fabs(field(json.out, "value") - field(want.out, "value")) <=
              bound * field(want.out, "value"));
        const auto text = runZbddc(base + "--device reference --numeric " + mode);
        REQUIRE(text.exitCode == 0);
        CHECK(text.out.rfind("PR\n", 0) == 0);
        CHECK(text.err.find(std::string("note: ") + mode + " error bound: P(e) relative") !=
              std::string::npos);
    }
    const auto cpu = runZbddc(base + "--device cpu --json --numeric float32");
    REQUIRE(cpu.exitCode == 0);
    CHECK(cpu.out.find("float32 runs on the GPU only, answered in float64") != std::string::npos);
    CHECK(cpu.out.find("error_bound") == std::string::npos);
    CHECK(cpu.out.find("\"numeric_note\":\"float32 runs on the GPU only") != std::string::npos);
    const auto cpuText = runZbddc(base + "--device cpu --numeric float32");
    REQUIRE(cpuText.exitCode == 0);
    CHECK(cpuText.err.find("note: float32 runs on the GPU only, answered in float64") !=
          std::string::npos);
    const auto mpe = runZbddc("run '" + net + "' --route mlf --task mpe --numeric log32");
    CHECK(mpe.exitCode == 2); // a usage error, refused before the model is read
    CHECK(mpe.err.find("answers pr and mar") != std::string::npos);
}
