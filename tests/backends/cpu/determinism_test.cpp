// Determinism of the CPU backends: one circuit and one batch of weightings give bit-identical
// counts and gradients from run to run, whatever the batch is cut into and however many threads
// compile and evaluate it, on the reference evaluator, the LLVM JIT, the data-driven loop and a
// model.so. Each case's arithmetic is a fixed sequence of ops; threads and tiles split cases (and
// the JIT's functions), never a sum. Bit-identical across backends is not claimed (a JIT's -O
// level may contract or reorder), only within each.
#include "backends/cpu/batched_loop.h"
#include "backends/cpu/cpu_model.h"
#include "backends/cpu/dfs_order.h"
#include "backends/cpu/shared_object.h"
#include "compiler/frontends/circuits/circuit_load.h"
#include "compiler/frontends/circuits/literal_weights.h"
#include "ir/interpret.h"

#include "tests/catch.hpp"
#include "tests/support/logic_circuit_oracles.h"
#include "tests/support/so_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>

using namespace zbddc;

namespace {

// A pass over `count` vectors of x: outputs (count × outputs) then adjoints of output 0 (count ×
// inputs), one vector after another.
using Pass = std::function<std::vector<double>(std::span<const double> x, size_t count)>;

bool sameBits(const std::vector<double> &a, const std::vector<double> &b) {
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (std::bit_cast<uint64_t>(a[i]) != std::bit_cast<uint64_t>(b[i]))
            return false;
    return true;
}

// The batch cut into pieces of `piece` vectors, each run on its own, the results joined.
std::vector<double> inPieces(const Pass &pass, const std::vector<double> &x, size_t numInputs,
                             size_t piece) {
    const size_t count = x.size() / numInputs;
    std::vector<double> outputs, adjoints;
    for (size_t first = 0; first < count; first += piece) {
        const size_t n = std::min(piece, count - first);
        const std::vector<double> r =
            pass(std::span(x).subspan(first * numInputs, n * numInputs), n);
        if (r.size() != n * (1 + numInputs))
            return {}; // a failed pass: no result to compare
        const size_t split = r.size() - n * numInputs;
        outputs.insert(outputs.end(), r.begin(), r.begin() + split);
        adjoints.insert(adjoints.end(), r.begin() + split, r.end());
    }
    outputs.insert(outputs.end(), adjoints.begin(), adjoints.end());
    return outputs;
}

std::vector<double> joined(std::vector<double> outputs, const std::vector<double> &adjoints) {
    outputs.insert(outputs.end(), adjoints.begin(), adjoints.end());
    return outputs;
}

// The pass of an in-process backend (CpuModel, BatchedLoop): evaluate, then the adjoints of
// output 0.
template <class Backend> Pass passOf(std::shared_ptr<Backend> backend, size_t numInputs) {
    return [backend, numInputs](std::span<const double> x, size_t count) {
        std::vector<double> out(count), adj(count * numInputs);
        if (!backend->evaluate(x, out, count) || !backend->adjoints(x, 0, adj, count))
            return std::vector<double>{}; // fails the comparison
        return joined(out, adj);
    };
}

struct Fixture {
    Circuit circuit;
    std::vector<double> x;                // kCases weightings, whole input vectors
    static constexpr size_t kCases = 600; // 5e5 op evaluations: a model.so starts a second thread
};

Fixture fixture() {
    const std::string base = testing::kCircuitFiles + "cnf_d";
    auto c = loadLogicCircuit(base + ".nnf", base + ".weights");
    REQUIRE(c.ok());
    const uint32_t n = literalVariableCount(*c);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(0.01, 3.0);
    std::vector<LiteralWeights> cases(Fixture::kCases);
    for (LiteralWeights &w : cases)
        for (uint32_t v = 0; v < n; ++v) {
            w.positive.push_back(u(rng));
            w.negative.push_back(u(rng));
        }
    const std::vector<double> x = literalWeightBatch(*c, cases).dense();
    return {std::move(*c), x};
}

// The pass on every cut of the batch and on every thread count `threads` lists (the whole batch
// twice): all the same bits as the first whole-batch run on one thread.
// Returns the first run's outputs (one per case).
std::vector<double> checkDeterministic(const char *what,
                                       const std::function<Pass(unsigned threads)> &make,
                                       const Fixture &f, std::initializer_list<unsigned> threads) {
    const size_t numInputs = f.circuit.numInputs();
    const std::vector<double> first = inPieces(make(1), f.x, numInputs, Fixture::kCases);
    INFO(what);
    REQUIRE(first.size() == Fixture::kCases * (1 + numInputs));
    for (unsigned t : threads) {
        const Pass pass = make(t);
        for (size_t piece : {Fixture::kCases, Fixture::kCases, size_t{1}, size_t{7}, size_t{100}}) {
            INFO(what << ": " << t << " threads, pieces of " << piece);
            CHECK(sameBits(inPieces(pass, f.x, numInputs, piece), first));
        }
    }
    return {first.begin(), first.begin() + Fixture::kCases};
}

// Every backend's counts are the reference evaluator's but for rounding.
void checkNear(const char *what, const std::vector<double> &got, const std::vector<double> &want) {
    INFO(what);
    REQUIRE(got.size() == want.size());
    double worst = 0;
    for (size_t k = 0; k < got.size(); ++k)
        worst = std::max(worst, std::abs(got[k] - want[k]) / std::max(1.0, std::abs(want[k])));
    CHECK(worst < 1e-12);
}

} // namespace

TEST_CASE("a circuit and its weightings give the same bits on every run, cut and thread count",
          "[cpu][determinism]") {
    const Fixture f = fixture();
    const Circuit &c = f.circuit;
    const size_t numInputs = c.numInputs();
    for (Numeric numeric : {Numeric::Float64, Numeric::Log}) {
        INFO(numericName(numeric));
        // The reference evaluator, one vector at a time: the oracle the others are near.
        auto reference = [&](unsigned) -> Pass {
            return [&](std::span<const double> x, size_t count) {
                std::vector<double> outputs, adjoints;
                for (size_t k = 0; k < count; ++k) {
                    auto e = evaluate(c, x.subspan(k * numInputs, numInputs), Semiring::SumProduct,
                                      numeric);
                    if (!e)
                        return std::vector<double>{}; // fails the comparison
                    outputs.push_back(e->values[c.outputs[0]]);
                    const std::vector<double> a = inputAdjoints(c, *e, 0);
                    adjoints.insert(adjoints.end(), a.begin(), a.end());
                }
                return joined(outputs, adjoints);
            };
        };
        const std::vector<double> want = checkDeterministic("reference", reference, f, {1});

        CpuOptions options;
        options.numeric = numeric;
        options.opsPerFunction = 40; // many functions, values crossing them through slots
        options.order = dfsOrder(c).order;
        // The JIT, compiled on `t` threads (its functions partitioned for them) and run on `t`.
        auto jit = [&](unsigned t) -> Pass {
            CpuOptions o = options;
            o.threads = t;
            auto model = compileCpu(c, o);
            REQUIRE(model.ok());
            auto shared = std::make_shared<CpuModel>(std::move(*model));
            shared->setEvalThreads(t);
            return passOf(shared, numInputs);
        };
        checkNear("LLVM JIT", checkDeterministic("LLVM JIT", jit, f, {1, 2, 5}), want);

        auto loop = [&](unsigned t) -> Pass {
            auto built = BatchedLoop::build(c, options, true);
            REQUIRE(built.ok());
            auto shared = std::make_shared<BatchedLoop>(std::move(*built));
            shared->setThreads(t);
            return passOf(shared, numInputs);
        };
        checkNear("data-driven loop", checkDeterministic("data-driven loop", loop, f, {1, 2, 5}),
                  want);

        // A model.so through its C ABI, with zbdd_set_threads.
        const std::filesystem::path dir =
            std::filesystem::path(ZBDDC_BINARY_DIR) / "tests" / "backends" / "cpu" / "scratch";
        std::filesystem::create_directories(dir);
        const std::filesystem::path so =
            dir / (std::string("determinism_") + numericName(numeric) + ".so");
        REQUIRE(writeSharedObject(c, options, so.string()).ok());
        auto loaded = std::make_shared<testing::Loaded>(so);
        auto setThreads =
            reinterpret_cast<void (*)(unsigned)>(dlsym(loaded->lib, "zbdd_set_threads"));
        REQUIRE(setThreads != nullptr);
        auto library = [&](unsigned t) -> Pass {
            return [loaded, setThreads, t, numInputs](std::span<const double> x, size_t count) {
                setThreads(t);
                std::vector<double> out(count), adj(count * numInputs);
                if (loaded->eval(x.data(), out.data(), count) != ZBDD_OK ||
                    loaded->adjoints(x.data(), 0, adj.data(), count) != ZBDD_OK)
                    return std::vector<double>{}; // fails the comparison
                return joined(out, adj);
            };
        };
        checkNear("model.so", checkDeterministic("model.so", library, f, {1, 2, 5}), want);
    }
}
