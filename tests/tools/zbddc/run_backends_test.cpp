// `zbddc run` on the backends: --device cpu (LLVM JIT) against --device reference, model.so
// against .zdd, --emit=cu/ptx (compiled again with NVRTC here), and the schedule in `zbddc stats`.
#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/nvrtc.h"
#endif

#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"
#include "tests/support/uai_answer.h"

#include <filesystem>

using namespace zbddc::testing;

namespace {

const std::string kExample = std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd";

std::string benchmark(const char *name) {
    return std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name + ".bif";
}

} // namespace

TEST_CASE("zbddc run --device cpu [--cpu-loop|--cpu-jit] answers like --device reference",
          "[cli][runtime]") {
    const std::vector<std::pair<std::string, std::string>> models = {
        {kExample, "WetGrass=yes"},
        {benchmark("asia"), "dysp=yes,xray=no"},
        {benchmark("alarm"), "HRBP=HIGH,PRESS=LOW"}};
    for (const auto &[model, evidence] : models) {
        for (const char *task : {"pr", "mar", "mpe"}) {
            INFO(model << " " << task);
            const std::string args =
                "run " + model + " --route mlf --task " + task + " --evidence " + evidence;
            auto want = runZbddc(args + " --device reference");
            REQUIRE(want.exitCode == 0);
            for (const char *cpu :
                 {" --device cpu", " --device cpu --cpu-loop", " --device cpu --cpu-jit"}) {
                INFO(cpu);
                auto got = runZbddc(args + cpu);
                REQUIRE(got.exitCode == 0);
                checkSameAnswer(got.out, want.out);
            }
        }
        // One query: the loop, which builds no code (cpuRunsLoop), unless a flag says otherwise.
        auto json = runZbddc("run " + model + " --route mlf --task pr --device cpu --json");
        CHECK_THAT(json.out, Catch::Contains("\"device\":\"cpu (data-driven loop, float64"));
        json = runZbddc("run " + model + " --route mlf --task pr --device cpu --cpu-jit --json");
        CHECK_THAT(json.out, Catch::Contains("\"device\":\"cpu (LLVM JIT, float64"));
        json = runZbddc("run " + model + " --route mlf --task pr --device cpu -O 1 --json");
        CHECK_THAT(json.out, Catch::Contains("\"device\":\"cpu (LLVM JIT, float64"));
        json = runZbddc("run " + model + " --route mlf --task pr --device cpu --cpu-loop --json");
        CHECK_THAT(json.out, Catch::Contains("\"device\":\"cpu (data-driven loop, float64"));
    }
}

TEST_CASE("zbddc run model.so answers like the .zdd it was compiled from", "[cli][runtime]") {
    const std::string asia = scratchDir() + "/asia.zdd";
    REQUIRE(runZbddc(benchmark("asia") + " -o " + asia).exitCode == 0);
    const std::vector<std::string> models = {kExample, asia};
    for (size_t k = 0; k < models.size(); ++k) {
        const std::string &zdd = models[k];
        const std::string so = scratchDir() + "/m" + std::to_string(k) + ".so";
        const std::string mpeSo = scratchDir() + "/m" + std::to_string(k) + "-mpe.so";
        const std::string logSo = scratchDir() + "/m" + std::to_string(k) + "-log.so";
        REQUIRE(runZbddc(zdd + " -o " + so).exitCode == 0);
        REQUIRE(runZbddc(zdd + " -o " + mpeSo + " --semiring max-product").exitCode == 0);
        REQUIRE(runZbddc(zdd + " -o " + logSo + " --numeric log").exitCode == 0);
        const std::string evid = writeScratch("one.evid", "1\n1 0\n");
        for (const char *task : {"pr", "mar"}) {
            for (const std::string &evidence : {std::string(), " --evidence " + evid}) {
                INFO(zdd << " " << task << evidence);
                auto want = runZbddc("run " + zdd + " --device reference --task " + task + evidence);
                REQUIRE(want.exitCode == 0);
                for (const std::string &lib : {so, logSo}) {
                    auto got = runZbddc("run " + lib + " --task " + task + evidence);
                    REQUIRE(got.exitCode == 0);
                    checkSameAnswer(got.out, want.out);
                }
            }
        }
        auto want = runZbddc("run " + zdd + " --device reference --task mpe --evidence " + evid);
        auto got = runZbddc("run " + mpeSo + " --task mpe --evidence " + evid + " --json");
        REQUIRE(got.exitCode == 0);
        CHECK_THAT(got.out, Catch::Contains("\"device\":\"cpu (model.so, float64; MPE decoded"));
        checkSameAnswer(runZbddc("run " + mpeSo + " --task mpe --evidence " + evid).out, want.out);
        // A batch (UAI 2010 layout) is decoded together, as on the reference evaluator.
        const std::string batch = writeScratch("batch.evid", "4\n0\n1 1 0\n1 0 1\n2 0 0 1 1\n");
        auto many = runZbddc("run " + mpeSo + " --task mpe --evidence " + batch + " --json");
        REQUIRE(many.exitCode == 0);
        CHECK_THAT(many.out, Catch::Contains("MPE decoded from max-product adjoints, "));
        CHECK_THAT(many.out, Catch::Contains(" passes over 4 cases") ||
                                 Catch::Contains(" pass over 4 cases"));
        const std::string mpeLogSo = scratchDir() + "/m" + std::to_string(k) + "-mpe-log.so";
        REQUIRE(runZbddc(zdd + " -o " + mpeLogSo + " --semiring max-product --numeric log")
                    .exitCode == 0);
        const auto reference =
            runZbddc("run " + zdd + " --device reference --task mpe --evidence " + batch);
        for (const std::string &lib : {mpeSo, mpeLogSo})
            checkSameAnswer(runZbddc("run " + lib + " --task mpe --evidence " + batch).out,
                            reference.out);
        auto refused = runZbddc("run " + so + " --task mpe");
        CHECK(refused.exitCode == 1);
        CHECK_THAT(refused.err, Catch::Contains("--semiring max-product"));
        CHECK(runZbddc("run " + mpeSo + " --task pr").exitCode == 1);
    }
    const std::string notSo = writeScratch("junk.so", "not a library");
    auto junk = runZbddc("run " + notSo + " --task pr");
    CHECK(junk.exitCode == 1);
    CHECK(junk.err == notSo + ": not a shared object (no ELF header)\n");
}

TEST_CASE("zbddc --emit=cu and --emit=ptx write the CUDA backend's kernels", "[cli][cuda]") {
    const std::string cu = scratchDir() + "/model.cu", ptx = scratchDir() + "/model.ptx";
    auto c = runZbddc(kExample + " --emit=cu -o " + cu);
#ifdef ZBDDC_HAVE_CUDA_BACKEND
    REQUIRE(c.exitCode == 0);
    const std::string source = slurp(cu);
    CHECK_THAT(source, Catch::Contains("zb_forward_block"));
    zbddc::cuda::NvrtcOptions nv;
    nv.useCache = false;
    auto compiled = zbddc::cuda::compileToPtx(source, "model.cu", nv);
    if (!compiled)
        FAIL(compiled.error().str());
    REQUIRE(runZbddc(kExample + " --emit=ptx -o " + ptx + " --numeric log").exitCode == 0);
    CHECK_THAT(slurp(ptx), Catch::Contains(".entry zb_forward_grid"));
#else
    CHECK(c.exitCode == 2);
    CHECK_THAT(c.err, Catch::Contains("CUDA backend"));
    WARN("skipped NVRTC compilation: this build has no CUDA backend");
#endif
}

TEST_CASE("zbddc stats shows the schedule the passes build", "[cli][passes]") {
    for (const char *opts : {"--schedule-level 0", "--schedule-level 3", "--no-fuse", "--passes=levelize,group,partition,assign-slots-noreuse"}) {
        INFO(opts);
        auto s = runZbddc("stats " + kExample + " --json " + opts);
        REQUIRE(s.exitCode == 0);
        CHECK_THAT(s.out, Catch::Contains("\"ops\":10"));
        CHECK_THAT(s.out, Catch::Contains("\"typeA\":3"));
        CHECK_THAT(s.out, Catch::Contains("\"schedule\":{"));
    }
    auto text = runZbddc("stats " + kExample + " --time-passes");
    REQUIRE(text.exitCode == 0);
    CHECK_THAT(text.out, Catch::Contains("levels: 6"));
    CHECK_THAT(text.out, Catch::Contains("schedule (level 2)"));
    CHECK_THAT(text.err, Catch::Contains("levelize"));
    auto bad = runZbddc("stats " + kExample + " --passes=levelize,no-such-pass");
    CHECK(bad.exitCode == 2);
    CHECK_THAT(bad.err, Catch::Contains("no-such-pass"));
    CHECK(runZbddc("stats " + kExample + " --passes=partition,levelize").exitCode == 2);
}
