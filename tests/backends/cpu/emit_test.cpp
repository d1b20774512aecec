#include "backends/cpu/dfs_order.h"
#include "backends/cpu/emit_c.h"
#include "backends/cpu/object_compile.h"
#include "backends/cpu/shared_object.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/random_circuits.h"
#include "tests/support/so_loader.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace zbddc;
using zbddc::testing::close;
namespace fs = std::filesystem;

TEST_CASE("--emit=c compiled by the system compiler equals the reference, forward and backward",
          "[cpu][emit]") {
    std::mt19937 rng(13);
    const Circuit c = testing::randomCircuit({.inputs = 5, .ops = 70, .outputs = 2}, rng);
    const fs::path dir = fs::path(ZBDDC_BINARY_DIR) / "tests" / "backends" / "cpu" / "scratch";
    fs::create_directories(dir);
    const struct {
        Semiring semiring;
        Numeric numeric;
    } modes[] = {{Semiring::SumProduct, Numeric::Float64}, {Semiring::MaxProduct, Numeric::Float64},
                 {Semiring::MaxSum, Numeric::Float64},     {Semiring::MinSum, Numeric::Float64},
                 {Semiring::SumProduct, Numeric::Log},     {Semiring::MaxProduct, Numeric::Log}};
    int index = 0;
    for (const auto &mode : modes) {
        INFO(semiringName(mode.semiring) << " " << numericName(mode.numeric));
        CpuOptions options;
        options.semiring = mode.semiring;
        options.numeric = mode.numeric;
        options.order = dfsOrder(c).order;
        const fs::path source = dir / ("emitted" + std::to_string(index) + ".c");
        const fs::path so = dir / ("emitted" + std::to_string(index++) + ".so");
        {
            std::ofstream out(source);
            REQUIRE(emitC(c, options, out).ok());
        }
        SharedObjectOptions link;
        link.flags = {"-O0"};
        auto linked = linkModel({source.string()}, so.string(), link);
        INFO((linked.ok() ? "" : linked.error().message));
        REQUIRE(linked.ok());
        testing::Loaded model(so);
        const size_t batch = 3, n = c.numInputs(), m = c.numOutputs();
        const std::vector<double> x = testing::randomInputs(rng, batch * n);
        const double poison = std::numeric_limits<double>::quiet_NaN();
        std::vector<double> out(batch * m, poison), adj(batch * n, poison);
        REQUIRE(model.eval(x.data(), out.data(), batch) == ZBDD_OK);
        REQUIRE(model.adjoints(x.data(), 0, adj.data(), batch) == ZBDD_OK);
        for (size_t s = 0; s < batch; ++s) {
            auto ref = evaluate(c, std::span(x.data() + s * n, n), mode.semiring, mode.numeric);
            REQUIRE(ref.ok());
            for (size_t o = 0; o < m; ++o)
                CHECK(close(out[s * m + o], ref->values[c.outputs[o]]));
            const std::vector<double> want = inputAdjoints(c, *ref, 0);
            for (size_t i = 0; i < n; ++i)
                CHECK(close(adj[s * n + i], want[i]));
        }
    }
}

TEST_CASE("--emit=ll is one module that LLVM's assembler accepts", "[cpu][emit]") {
    std::mt19937 rng(17);
    const Circuit c = testing::randomCircuit({.inputs = 4, .ops = 40, .outputs = 1}, rng);
    CpuOptions options;
    options.opsPerFunction = 9;
    auto ir = emitLlvmIr(c, options, "meta");
    REQUIRE(ir.ok());
    CHECK(ir->find("define void @zbdd_gen_forward(") != std::string::npos);
    CHECK(ir->find("define void @zbdd_fwd_1(") != std::string::npos);
    const char *assembler = "/usr/lib/llvm-19/bin/llvm-as";
    if (!fs::exists(assembler)) {
        WARN("llvm-as not found; the textual check above is all that ran");
        return;
    }
    const fs::path file =
        fs::path(ZBDDC_BINARY_DIR) / "tests" / "backends" / "cpu" / "scratch" / "emitted.ll";
    fs::create_directories(file.parent_path());
    {
        std::ofstream out(file);
        out << *ir;
    }
    const std::string command = std::string(assembler) + " " + file.string() + " -o /dev/null";
    CHECK(std::system(command.c_str()) == 0);
}
