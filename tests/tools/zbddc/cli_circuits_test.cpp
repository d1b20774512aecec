// d-DNNF and SDD files through the command line: `zbddc run X --weights W --task pr` against
// PySDD's count, `zbddc X -o x.so` answering the same through its C ABI, the CUDA kernels
// generated and compiled by NVRTC, and malformed files named by file:line.
#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"
#include "tests/support/run_zbddc.h"

#include <regex>

using namespace zbddc::testing;

namespace {

double jsonValue(const std::string &json) {
    std::smatch m;
    REQUIRE(std::regex_search(json, m, std::regex("\"value\":([-+0-9.eE]+)")));
    return std::stod(m[1]);
}

} // namespace

TEST_CASE("zbddc run counts a weighted .sdd, .nnf and d4 .nnf as PySDD does, and a .so agrees",
          "[cli][circuits]") {
    const std::string base = kCircuitFiles + "cnf_d";
    const double want = readExpected(base + ".expected").wmc;
    for (const char *spelling : {".sdd", ".nnf", ".d4.nnf"}) {
        INFO(spelling);
        for (const char *device : {"cpu", "reference"}) {
            auto r = runZbddc("run " + base + spelling + " --weights " + base +
                              ".weights --task pr --json --device " + device);
            REQUIRE(r.exitCode == 0);
            CHECK(relativeError(jsonValue(r.out), want) < 1e-12);
        }
    }
    const std::string so = scratchDir() + "/cnf_d.so";
    auto compiled = runZbddc(base + ".sdd --weights " + base + ".weights -o " + so);
    REQUIRE(compiled.exitCode == 0);
    auto r = runZbddc("run " + so + " --task pr --json");
    REQUIRE(r.exitCode == 0);
    CHECK(relativeError(jsonValue(r.out), want) < 1e-12);
    // MAR through the .so: each literal's marginal, as the in-process circuit gives it.
    auto soMar = runZbddc("run " + so + " --task mar");
    auto jitMar =
        runZbddc("run " + base + ".sdd --weights " + base + ".weights --task mar --device cpu");
    REQUIRE(soMar.exitCode == 0);
    CHECK(soMar.out == jitMar.out);
}

TEST_CASE("--weights is for circuits only; malformed circuits and weights name file:line",
          "[cli][circuits]") {
    auto bif = runZbddc("run " ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd --weights x.txt");
    CHECK(bif.exitCode == 2); // a usage error, as the flag table says (flag_table.cpp)
    CHECK_THAT(bif.err, Catch::Contains("--weights does not apply to a zdd"));
    const std::string bad = writeScratch("bad.nnf", "nnf 2 1 1\nL 1\nA 1 5\n");
    auto r = runZbddc("run " + bad + " --task pr");
    CHECK(r.exitCode == 1);
    CHECK(r.err ==
          bad + ":3: child 5 is not a node above (children come first; the root is last)\n");
    const std::string shared =
        writeScratch("shared.nnf", "nnf 4 4 2\nL 1\nL 2\nO 0 2 0 1\nA 2 0 2\n");
    auto d = runZbddc("run " + shared + " --task pr");
    CHECK(d.exitCode == 1);
    CHECK(d.err ==
          shared +
              ":5: an AND whose children share a variable (not decomposable, so not a d-DNNF)\n");
    const std::string weights = writeScratch("bad.weights", "w 1 0.5\nw -1 -2\n");
    auto w = runZbddc("run " + kCircuitFiles + "cnf_a.nnf --weights " + weights);
    CHECK(w.exitCode == 1);
    CHECK_THAT(w.err, Catch::Contains(weights + ":2: weight must be a finite non-negative number"));
    const std::string out = scratchDir() + "/never.so";
    CHECK(runZbddc(bad + " -o " + out).exitCode == 1);
    CHECK(!std::ifstream(out).good()); // nothing half-written
}

TEST_CASE("a circuit's CUDA kernels are generated and compile with NVRTC",
          "[cli][circuits][cuda]") {
    const std::string ptx = scratchDir() + "/cnf_f.ptx";
    auto r = runZbddc(kCircuitFiles + "cnf_f.sdd --emit=ptx -o " + ptx);
#ifdef ZBDDC_HAVE_CUDA_BACKEND
    REQUIRE(r.exitCode == 0);
    CHECK_THAT(slurp(ptx), Catch::Contains(".entry zb_forward_grid"));
    CHECK_THAT(slurp(ptx), Catch::Contains(".entry zb_backward_grid"));
#else
    CHECK(r.exitCode == 2);
    WARN("skipped NVRTC compilation: this build has no CUDA backend");
#endif
}
