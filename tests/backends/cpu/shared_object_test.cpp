#include "backends/cpu/dfs_order.h"
#include "backends/cpu/shared_object.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "ir/interpret.h"
#include "ir/model_interface.h"
#include "pipeline/load_model.h"
#include "zbdd_model.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/random_circuits.h"
#include "tests/support/so_loader.h"

#include <dlfcn.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

using namespace zbddc;
using zbddc::testing::close;
namespace fs = std::filesystem;

namespace {

constexpr double kPoison = std::numeric_limits<double>::quiet_NaN();

fs::path scratchDir() {
    fs::path dir = fs::path(ZBDDC_BINARY_DIR) / "tests" / "backends" / "cpu" / "scratch";
    fs::create_directories(dir);
    return dir;
}

} // namespace

TEST_CASE("model.so evaluated through dlopen equals the reference evaluator", "[cpu][so]") {
    std::mt19937 rng(5);
    const Circuit c = testing::randomCircuit({.inputs = 5, .ops = 80, .outputs = 2}, rng);
    const struct {
        Semiring semiring;
        Numeric numeric;
        const char *file;
    } modes[] = {{Semiring::SumProduct, Numeric::Float64, "sp.so"},
                 {Semiring::MaxSum, Numeric::Float64, "ms.so"},
                 {Semiring::SumProduct, Numeric::Log, "splog.so"},
                 {Semiring::MaxProduct, Numeric::Log, "mplog.so"}};
    for (const auto &mode : modes) {
        INFO(semiringName(mode.semiring) << " " << numericName(mode.numeric));
        CpuOptions options;
        options.semiring = mode.semiring;
        options.numeric = mode.numeric;
        options.opsPerFunction = 10;
        options.hostCpu = false;
        options.threads = 2;
        options.order = dfsOrder(c).order;
        const fs::path so = scratchDir() / mode.file;
        auto written = writeSharedObject(c, options, so.string());
        REQUIRE(written.ok());
        testing::Loaded model(so);
        REQUIRE(model.numInputs() == c.numInputs());
        REQUIRE(model.numOutputs() == c.numOutputs());
        CHECK(std::string(model.metadata()) ==
              writeModelMetadata(c, mode.semiring, mode.numeric));

        const size_t batch = 4, n = c.numInputs(), m = c.numOutputs();
        const std::vector<double> x = testing::randomInputs(rng, batch * n);
        std::vector<double> out(batch * m, kPoison), adj(batch * n, kPoison);
        REQUIRE(model.eval(x.data(), out.data(), batch) == ZBDD_OK);
        REQUIRE(model.adjoints(x.data(), 1, adj.data(), batch) == ZBDD_OK);
        for (size_t s = 0; s < batch; ++s) {
            auto ref = evaluate(c, std::span(x.data() + s * n, n), mode.semiring, mode.numeric);
            REQUIRE(ref.ok());
            for (size_t o = 0; o < m; ++o)
                CHECK(close(out[s * m + o], ref->values[c.outputs[o]]));
            const std::vector<double> want = inputAdjoints(c, *ref, 1);
            for (size_t i = 0; i < n; ++i)
                CHECK(close(adj[s * n + i], want[i]));
        }
        CHECK(model.adjoints(x.data(), m, adj.data(), batch) == ZBDD_EARG);
    }
}

TEST_CASE("the example C program dlopens a model.so and prints the reference values",
          "[cpu][so][example]") {
    std::mt19937 rng(9);
    const Circuit c = testing::randomCircuit({.inputs = 4, .ops = 50, .outputs = 2}, rng);
    const fs::path so = scratchDir() / "example.so";
    REQUIRE(writeSharedObject(c, CpuOptions{}, so.string()).ok());
    const size_t batch = 3, n = c.numInputs(), m = c.numOutputs();
    const std::vector<double> x = testing::randomInputs(rng, batch * n);
    const fs::path in = scratchDir() / "example.in", out = scratchDir() / "example.out";
    {
        std::ofstream f(in);
        f.precision(17);
        for (size_t s = 0; s < batch; ++s)
            for (size_t i = 0; i < n; ++i)
                f << x[s * n + i] << (i + 1 == n ? '\n' : ' ');
    }
    fs::remove(out);
    const std::string command = std::string(ZBDDC_BINARY_DIR) + "/examples/zbdd_eval_model " +
                                so.string() + " < " + in.string() + " > " + out.string();
    REQUIRE(std::system(command.c_str()) == 0);
    std::ifstream f(out);
    for (size_t s = 0; s < batch; ++s) {
        auto ref = evaluate(c, std::span(x.data() + s * n, n), c.semiring);
        for (size_t o = 0; o < m; ++o) {
            double got = kPoison;
            REQUIRE(static_cast<bool>(f >> got));
            CHECK(close(got, ref->values[c.outputs[o]]));
        }
    }
    double extra;
    CHECK_FALSE(static_cast<bool>(f >> extra));
}

TEST_CASE("a failed link leaves no file behind, and an existing model untouched", "[cpu][so]") {
    std::mt19937 rng(2);
    const Circuit c = testing::randomCircuit({.inputs = 3, .ops = 20, .outputs = 1}, rng);
    const fs::path so = scratchDir() / "atomic.so";
    {
        std::ofstream old(so);
        old << "previous";
    }
    SharedObjectOptions broken;
    broken.compiler = "false"; // a "compiler" that always fails
    auto result = writeSharedObject(c, CpuOptions{}, so.string(), broken);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().message.find("failed to link") != std::string::npos);
    std::ifstream old(so);
    std::string content;
    old >> content;
    CHECK(content == "previous");
    for (const auto &entry : fs::directory_iterator(scratchDir()))
        CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("zbddc MODEL.zdd -o model.so writes a model that equals the reference on the .zdd",
          "[cpu][so][cli]") {
    const std::string zdd = std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd";
    const fs::path so = scratchDir() / "wetgrass.so";
    fs::remove(so);
    const std::string command = std::string(ZBDDC_EXE) + " " + zdd + " -o " + so.string();
    REQUIRE(std::system(command.c_str()) == 0);
    auto model = loadZddModel(zdd);
    REQUIRE(model.ok());
    const Circuit c = lowerZdd(*model);
    testing::Loaded lib(so);
    REQUIRE(lib.numInputs() == c.numInputs());
    CHECK(std::string(lib.metadata()) == writeModelMetadata(c, c.semiring, Numeric::Float64));
    std::mt19937 rng(21);
    const size_t batch = 8, n = c.numInputs(), m = c.numOutputs();
    const std::vector<double> x = testing::randomInputs(rng, batch * n);
    std::vector<double> out(batch * m, kPoison), adj(batch * n, kPoison);
    REQUIRE(lib.eval(x.data(), out.data(), batch) == ZBDD_OK);
    REQUIRE(lib.adjoints(x.data(), 0, adj.data(), batch) == ZBDD_OK);
    for (size_t s = 0; s < batch; ++s) {
        auto ref = evaluate(c, std::span(x.data() + s * n, n), c.semiring);
        for (size_t o = 0; o < m; ++o)
            CHECK(close(out[s * m + o], ref->values[c.outputs[o]]));
        const std::vector<double> want = inputAdjoints(c, *ref, 0);
        for (size_t i = 0; i < n; ++i)
            CHECK(close(adj[s * n + i], want[i]));
    }
}
