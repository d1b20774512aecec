// Every kernel shape the CUDA backend can generate is compiled with NVRTC here, without a GPU, so
// CI catches a kernel that does not compile. Also: error messages quote the generated line, the
// disk cache hits on the second compile, and a missing driver is reported, not fatal.
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/kernel_source.h"
#include "backends/cuda/nvrtc.h"
#include "runtime/cuda_circuit.h"

#include "tests/catch.hpp"

#include <filesystem>
#include <unistd.h>

using namespace zbddc;
using namespace zbddc::cuda;
namespace fs = std::filesystem;

namespace {
std::string freshCacheDir(const std::string &tag) {
    const fs::path d =
        fs::temp_directory_path() / ("zbddc-test-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    return d.string();
}
} // namespace

// The Circuit's own types and merged templates like the passes produce (TemplateStep codes:
// 0 F, 1 X, 2 *, 3 +): typeA "F X * F +", typeB "F X *", a two-term tree, a product chain.
const std::vector<std::vector<uint32_t>> kCatalogue = {{0, 0, 3},
                                                       {0, 0, 2},
                                                       {0, 0, 2, 0, 3},
                                                       {0, 1, 2, 0, 3},
                                                       {0, 1, 2},
                                                       {0, 1, 2, 0, 1, 2, 3, 0, 3},
                                                       {0, 1, 2, 1, 2, 1, 2}};

TEST_CASE("every generated kernel shape compiles with NVRTC for sm_90", "[cuda][nvrtc]") {
    NvrtcOptions nv;
    nv.arch = "sm_90";
    nv.useCache = false;
    int shapes = 0;
    for (Semiring s :
         {Semiring::SumProduct, Semiring::MaxProduct, Semiring::MaxSum, Semiring::MinSum})
        for (bool f64 : {false, true})
            for (bool log : {false, true}) {
                if (log && (s == Semiring::MaxSum || s == Semiring::MinSum))
                    continue;
                for (uint32_t batch : {1u, 7u})
                    for (bool single : {false, true})
                        for (bool interpreted : {false, true}) {
                            if (interpreted && batch == 1)
                                continue; // the templates as data: one batch size covers them
                            const KernelShape k{.semiring = s,
                                                .float64 = f64,
                                                .logSpace = log,
                                                .batch = batch,
                                                .blockThreads = batch == 7 ? 256u : 1024u,
                                                .singleLaunch = single,
                                                .typeCode = kCatalogue,
                                                .interpreted = interpreted};
                            INFO(k.describe());
                            auto ptx = compileToPtx(generateKernelSource(k), "shape.cu", nv);
                            if (!ptx)
                                FAIL(ptx.error().str());
                            auto has = [&](const char *entry) {
                                return ptx->ptx.find(std::string(".entry ") + entry) !=
                                       std::string::npos;
                            };
                            for (const char *entry :
                                 {"zb_scatter_rows", "zb_gather_rows", "zb_broadcast_rows",
                                  "zb_rows_from_cases", "zb_cases_from_rows"})
                                CHECK(has(entry));
                            // One set of pass kernels, not the other.
                            for (const char *entry : {"zb_forward_block", "zb_forward_grid",
                                                      "zb_backward_block", "zb_backward_grid"})
                                CHECK(has(entry) == !single);
                            for (const char *entry : {"zb_forward_single", "zb_backward_single"})
                                CHECK(has(entry) == single);
                            // The batched traceback, in the semirings that have an optimal term.
                            CHECK(has("zb_traceback") == (s != Semiring::SumProduct));
                            ++shapes;
                        }
            }
    CHECK(shapes == 72);
}

TEST_CASE("an interpreted module's source is the same for every type catalogue",
          "[cuda][codegen]") {
    KernelShape a{.batch = 128, .singleLaunch = true, .typeCode = kCatalogue, .interpreted = true};
    KernelShape b = a;
    b.typeCode = {{0, 0, 2}};
    CHECK(generateKernelSource(a) == generateKernelSource(b));
    a.interpreted = b.interpreted = false;
    CHECK(generateKernelSource(a) != generateKernelSource(b));
}

TEST_CASE("interpreted types: each template and each partial derivative as step words",
          "[cuda][codegen]") {
    // typeA "F X * F +" and a product of three "F X * F *".
    const InterpretedTypes t = interpretTypes({{0, 1, 2, 0, 3}, {0, 1, 2, 0, 2}});
    auto load = [](uint32_t kind, uint32_t j) { return kind | j << 2; };
    const uint32_t times = 2, plus = 3;
    auto stepsOf = [&](uint32_t first, uint32_t last) {
        return std::vector<uint32_t>(t.steps.begin() + first, t.steps.begin() + last);
    };
    REQUIRE(t.typeBegin.size() == 3);
    REQUIRE(t.coefBegin.size() == 2 * 64 + 1);
    CHECK(stepsOf(t.typeBegin[0], t.typeBegin[1]) ==
          std::vector<uint32_t>{load(0, 0), load(1, 1), times, load(0, 2), plus});
    auto coef = [&](uint32_t type, uint32_t j) {
        return stepsOf(t.coefBegin[type * 64 + j], t.coefBegin[type * 64 + j + 1]);
    };
    // ∂(f0 x1 + f2)/∂f0 = x1, /∂x1 = f0, /∂f2 = 1 (no steps).
    CHECK(coef(0, 0) == std::vector<uint32_t>{load(1, 1)});
    CHECK(coef(0, 1) == std::vector<uint32_t>{load(0, 0)});
    CHECK(coef(0, 2).empty());
    // ∂((f0 x1) f2)/∂f0 = x1 f2 (the nearer sibling first, as the compiled expression has it).
    CHECK(coef(1, 0) == std::vector<uint32_t>{load(1, 1), load(0, 2), times});
    CHECK(coef(1, 1) == std::vector<uint32_t>{load(0, 0), load(0, 2), times});
    CHECK(coef(1, 2) == std::vector<uint32_t>{load(0, 0), load(1, 1), times});
    CHECK(coef(1, 3).empty()); // past the arity
    CHECK(t.maxStack == 2);
}

TEST_CASE("NVRTC errors name the generated source's line and quote it", "[cuda][nvrtc]") {
    NvrtcOptions nv;
    nv.useCache = false;
    const std::string src = "extern \"C\" __global__ void k(float *p) {\n"
                            "    p[0] = undefined_name + 1;\n"
                            "}\n";
    auto r = compileToPtx(src, "broken.cu", nv);
    REQUIRE(!r.ok());
    CHECK(r.error().file == "broken.cu");
    CHECK(r.error().line == 2);
    CHECK(r.error().message.find("undefined_name + 1") != std::string::npos);
}

TEST_CASE("the second compile of the same source comes from the disk cache", "[cuda][nvrtc]") {
    NvrtcOptions nv;
    nv.cacheDir = freshCacheDir("cache");
    KernelShape shape;
    shape.typeCode = kCatalogue;
    const std::string src = generateKernelSource(shape);
    auto first = compileToPtx(src, "m.cu", nv);
    REQUIRE(first.ok());
    CHECK(!first->fromCache);
    auto second = compileToPtx(src, "m.cu", nv);
    REQUIRE(second.ok());
    CHECK(second->fromCache);
    CHECK(second->ptx == first->ptx);
    // Other options are another key: sm_80 compiles afresh.
    nv.arch = "sm_80";
    auto other = compileToPtx(src, "m.cu", nv);
    REQUIRE(other.ok());
    CHECK(!other->fromCache);
    fs::remove_all(nv.cacheDir);
}

TEST_CASE("compileForArch: CUBIN for an architecture NVRTC knows, cached apart from the PTX; PTX "
          "for one it does not",
          "[cuda][nvrtc]") {
    NvrtcOptions nv;
    nv.cacheDir = freshCacheDir("cubin");
    KernelShape shape;
    shape.typeCode = kCatalogue;
    const std::string src = generateKernelSource(shape);
    const std::string elf = std::string("\x7f") + "ELF";
    REQUIRE(nvrtcSupportsArch("sm_90"));
    CHECK(!nvrtcSupportsArch("compute_90"));
    CHECK(!nvrtcSupportsArch("sm_9999"));
    CHECK(!nvrtcSupportsArch("sm_"));
    auto cubin = compileForArch(src, "m.cu", nv);
    REQUIRE(cubin.ok());
    CHECK(cubin->cubin);
    CHECK(!cubin->fromCache);
    CHECK(cubin->image.rfind(elf, 0) == 0);
    // The same source and options as PTX is another cache entry, never the CUBIN read as PTX.
    auto ptx = compileToPtx(src, "m.cu", nv);
    REQUIRE(ptx.ok());
    CHECK(!ptx->fromCache);
    CHECK(ptx->ptx.find(".target sm_90") != std::string::npos);
    auto again = compileForArch(src, "m.cu", nv);
    REQUIRE(again.ok());
    CHECK(again->fromCache);
    CHECK(again->cubin);
    CHECK(again->image == cubin->image);
    // Another architecture is another key.
    nv.arch = "sm_80";
    auto other = compileForArch(src, "m.cu", nv);
    REQUIRE(other.ok());
    CHECK(!other->fromCache);
    CHECK(other->image != cubin->image);
    // A device newer than NVRTC: PTX for the newest virtual architecture NVRTC has.
    nv.arch = "sm_9999";
    auto newer = compileForArch(src, "m.cu", nv);
    REQUIRE(newer.ok());
    CHECK(!newer->cubin);
    CHECK(newer->image.rfind(elf, 0) != 0);
    CHECK(newer->image.find(".target sm_") != std::string::npos);
    fs::remove_all(nv.cacheDir);
}

TEST_CASE("--emit=cu and --emit=ptx need no GPU; bad options are refused", "[cuda][nvrtc]") {
    Circuit c;
    c.addInputInfo({});
    c.addOutput(c.addTimes(c.addInput(0), c.addInput(0)));
    CudaOptions o;
    o.nvrtc.useCache = false;
    auto cu = emitCircuitCuda(c, o, false);
    REQUIRE(cu.ok());
    CHECK(cu->find("zb_forward_grid") != std::string::npos);
    auto ptx = emitCircuitCuda(c, o, true);
    REQUIRE(ptx.ok());
    CHECK(ptx->find(".target sm_90") != std::string::npos);

    o.semiring = Semiring::MinSum;
    o.logSpace = true;
    auto bad = emitCircuitCuda(c, o, false);
    REQUIRE(!bad.ok());
    CHECK(bad.error().message.find("log space") != std::string::npos);
}

TEST_CASE("without a GPU driver, cudaAvailable says why and compileCuda fails cleanly",
          "[cuda][driver]") {
    Status st = cudaAvailable();
    if (st.ok()) {
        WARN("a GPU is present here; the no-driver path is not exercised");
        return;
    }
    CHECK(!st.error().message.empty());
    Circuit c;
    c.addInputInfo({});
    c.addOutput(c.addInput(0));
    auto m = compileCircuitForCuda(c);
    REQUIRE(!m.ok());
    CHECK(m.error().message == st.error().message);
}

TEST_CASE("ZBDDC_INTERPRETED_TYPES picks how op types reach the kernels", "[cuda][codegen]") {
    auto with = [](const char *value) {
        return gpuSettingsFromVariables([value](const char *name) -> const char * {
                   return std::string_view(name) == "ZBDDC_INTERPRETED_TYPES" ? value : nullptr;
               })
            .opTypes;
    };
    CHECK(with(nullptr) == OpTypeKernels::InterpretedUntilCompiled);
    CHECK(with("0") == OpTypeKernels::Compiled);
    CHECK(with("1") == OpTypeKernels::Interpreted);
    CHECK(with("auto") == OpTypeKernels::InterpretedUntilCompiled);
    CHECK(with("yes") == OpTypeKernels::InterpretedUntilCompiled);
}
