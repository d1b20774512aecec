// Evaluation speed per benchmark network, every CPU path side by side in one run:
// the reference evaluator, zbddc's JIT at -O0 and -O2, model.so, gcc -O1 on the emitted C
// (--emit=c, the gcc route of Minato et al. 2011 §1 and §4) and the data-driven batched loop. For
// each: build time, single-sample latency (one thread), batched throughput on one thread and on all
// cores, and the largest relative difference from the reference evaluator on the batch (every path
// is checked).
//
//   bench_network_eval [--batch B] [--limit S] [--o2-max-ops N] [--json F] [--md F] NET.bif|.zdd...
//
// Inputs are random values in (0.05, 0.95) for every circuit input (λ and θ alike): the speed of
// straight-line code does not depend on them. Every path is compiled forward only. A host without
// gcc (or without cc, which links model.so) gets "absent" in those rows, not a failure.
#include "backends/cpu/batched_loop.h"
#include "backends/cpu/cpu_model.h"
#include "backends/cpu/emit_c.h"
#include "backends/cpu/shared_object.h"
#include "bench/child_process.h"
#include "pipeline/load_model.h"
#include "backends/cpu/dfs_order.h"
#include "zbdd_model.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

using namespace zbddc;
using namespace zbddc::bench;
namespace fs = std::filesystem;

namespace {

// Evaluates `batch` samples; `threads` 0 = all cores.
using EvalFn = std::function<bool(const double *x, double *out, size_t batch, unsigned threads)>;

struct PathResult {
    std::string network, path;
    size_t nodes = 0, ops = 0;
    std::string build;     // seconds, or why there is no figure
    double buildSeconds = -1;
    double latencyUs = -1; // one sample, one thread
    double perSecond1 = -1, perSecondAll = -1; // samples per second on a batch
    double maxRelErr = -1;
};

// Mean seconds per call of fn, repeated for at least `minSeconds` after one warm-up call.
double secondsPerCall(const std::function<void()> &fn, double minSeconds = 0.3) {
    fn();
    size_t reps = 0;
    const auto t0 = Clock::now();
    do {
        fn();
        ++reps;
    } while (since(t0) < minSeconds);
    return since(t0) / double(reps);
}

double loadAverage() {
    double one = -1;
    if (FILE *f = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(f, "%lf", &one) != 1)
            one = -1;
        std::fclose(f);
    }
    return one;
}

std::string fixed(double v, const char *format) {
    if (v < 0)
        return "–";
    char t[48];
    std::snprintf(t, sizeof t, format, v);
    return t;
}

struct Setup {
    size_t batch = 1024;
    double limit = 120;
    size_t o2MaxOps = 30000; // LLVM -O2 is superlinear (docs/compile-study.md): skip larger ones
    fs::path work;
};

class NetworkRun {
  public:
    NetworkRun(const Setup &setup, const std::string &name, const Circuit &c)
        : setup_(setup), name_(name), c_(c), order_(dfsOrder(c)) {
        std::mt19937 rng(7);
        std::uniform_real_distribution<double> u(0.05, 0.95);
        x_.resize(setup.batch * c.numInputs());
        for (double &v : x_)
            v = u(rng);
        const size_t n = c.numInputs();
        for (size_t s = 0; s < kChecked; ++s) {
            auto e = evaluate(c, std::span(x_.data() + s * n, n), c.semiring);
            for (NodeId o : c.outputs)
                want_.push_back(e ? e->values[o] : std::nan(""));
        }
        options_.backward = false;
        options_.order = order_.order;
    }

    std::vector<PathResult> runAll() {
        referencePath();
        jitPath(0);
        if (order_.ops <= setup_.o2MaxOps)
            jitPath(2);
        else
            skipped("zbddc JIT -O2", "skipped (> " + std::to_string(setup_.o2MaxOps) + " ops)");
        soPath();
        gccPath();
        loopPath();
        return std::move(results_);
    }

  private:
    static constexpr size_t kChecked = 64; // samples compared with the reference evaluator

    PathResult base(const std::string &path) const {
        PathResult r;
        r.network = name_;
        r.path = path;
        r.nodes = c_.numNodes();
        r.ops = order_.ops;
        return r;
    }
    void skipped(const std::string &path, const std::string &why) {
        PathResult r = base(path);
        r.build = why;
        results_.push_back(r);
        std::fprintf(stderr, "%s: %s: %s\n", name_.c_str(), path.c_str(), why.c_str());
    }

    // Times `eval` and checks it against the reference values.
    void measure(const std::string &path, double buildSeconds, const EvalFn &eval, bool latency = true,
                 bool allThreads = true) {
        PathResult r = base(path);
        r.buildSeconds = buildSeconds;
        r.build = buildSeconds < 0 ? "–" : fixed(buildSeconds, buildSeconds < 10 ? "%.3g s" : "%.0f s");
        const size_t n = c_.numInputs(), m = c_.numOutputs(), batch = setup_.batch;
        std::vector<double> out(batch * m, std::nan(""));
        if (!eval(x_.data(), out.data(), batch, 1)) {
            r.build += " (evaluation failed)";
            results_.push_back(r);
            return;
        }
        r.maxRelErr = 0;
        for (size_t k = 0; k < want_.size(); ++k) {
            const double err = std::abs(out[k] - want_[k]) / std::max(1e-300, std::abs(want_[k]));
            r.maxRelErr = std::max(r.maxRelErr, std::isnan(err) ? INFINITY : err);
        }
        if (latency)
            r.latencyUs = 1e6 * secondsPerCall([&] { eval(x_.data(), out.data(), 1, 1); });
        r.perSecond1 = batch / secondsPerCall([&] { eval(x_.data(), out.data(), batch, 1); });
        if (allThreads)
            r.perSecondAll = batch / secondsPerCall([&] { eval(x_.data(), out.data(), batch, 0); });
        (void)n;
        std::fprintf(stderr, "%s: %s: build %s, latency %.3g us, %.3g/s, %.3g/s all, err %.2g\n",
                     name_.c_str(), path.c_str(), r.build.c_str(), r.latencyUs, r.perSecond1,
                     r.perSecondAll, r.maxRelErr);
        results_.push_back(r);
    }

    void referencePath() {
        const size_t n = c_.numInputs(), m = c_.numOutputs();
        measure("reference evaluator", -1, [&](const double *x, double *out, size_t batch, unsigned) {
            for (size_t s = 0; s < batch; ++s) {
                auto e = evaluate(c_, std::span(x + s * n, n), c_.semiring);
                if (!e)
                    return false;
                for (size_t o = 0; o < m; ++o)
                    out[s * m + o] = e->values[c_.outputs[o]];
            }
            return true;
        }, true, false);
    }

    void jitPath(int level) {
        CpuOptions o = options_;
        o.optLevel = level;
        const auto t0 = Clock::now();
        auto jit = compileCpu(c_, o);
        const double seconds = since(t0);
        const std::string path = "zbddc JIT -O" + std::to_string(level);
        if (!jit)
            return skipped(path, "failed: " + jit.error().str());
        measure(path, seconds, [&](const double *x, double *out, size_t batch, unsigned threads) {
            jit->setEvalThreads(threads);
            return jit->evaluate(std::span(x, batch * c_.numInputs()),
                                 std::span(out, batch * c_.numOutputs()), batch)
                .ok();
        });
    }

    // A model.so (or gcc's) through its C ABI, as any C program uses it.
    void dlopenPath(const std::string &path, const fs::path &so, double buildSeconds) {
        void *lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return skipped(path, std::string("dlopen failed: ") + dlerror());
        auto eval = reinterpret_cast<int (*)(const double *, double *, size_t)>(dlsym(lib, "zbdd_eval"));
        auto setThreads = reinterpret_cast<void (*)(unsigned)>(dlsym(lib, "zbdd_set_threads"));
        measure(path, buildSeconds, [&](const double *x, double *out, size_t batch, unsigned threads) {
            setThreads(threads);
            return eval(x, out, batch) == ZBDD_OK;
        });
        dlclose(lib);
    }

    void soPath() {
        if (!onPath("cc"))
            return skipped("zbddc model.so -O0", "cc absent (it links model.so)");
        CpuOptions o = options_;
        o.hostCpu = false; // a portable .so, as `zbddc -o model.so` writes
        const fs::path so = setup_.work / (name_ + ".so");
        const auto t0 = Clock::now();
        auto written = writeSharedObject(c_, o, so.string());
        const double seconds = since(t0);
        if (!written)
            return skipped("zbddc model.so -O0", "failed: " + written.error().str());
        dlopenPath("zbddc model.so -O0", so, seconds);
    }

    // --emit=c, gcc -O1 -c with a time limit, linked with the C runtime like model.so.
    void gccPath() {
        const std::string path = "gcc -O1 on --emit=c";
        if (!onPath("gcc"))
            return skipped(path, "gcc absent");
        if (!onPath("cc"))
            return skipped(path, "cc absent (it links the .so)");
        const fs::path source = setup_.work / (name_ + ".c"), object = setup_.work / (name_ + ".o"),
                       so = setup_.work / (name_ + "-gcc.so");
        const auto t0 = Clock::now();
        {
            std::ofstream f(source);
            if (!emitC(c_, options_, f).ok())
                return skipped(path, "emit failed");
        }
        const ChildRun compiled =
            runChild({"gcc", "-O1", "-fPIC", "-c", source.string(), "-o", object.string()}, setup_.limit);
        if (!compiled.ok)
            return skipped(path, compiled.timedOut ? "> " + fixed(setup_.limit, "%.0f") + " s (time limit)"
                                                   : std::string("gcc failed"));
        if (!linkModel({object.string()}, so.string()).ok())
            return skipped(path, "link failed");
        dlopenPath(path, so, since(t0));
    }

    void loopPath() {
        CpuOptions one = options_, all = options_;
        one.threads = 1;
        all.threads = 0;
        const auto t0 = Clock::now();
        auto loop1 = BatchedLoop::build(c_, one);
        const double seconds = since(t0);
        auto loopAll = BatchedLoop::build(c_, all);
        if (!loop1 || !loopAll)
            return skipped("data-driven loop", "build failed");
        measure("data-driven loop", seconds, [&](const double *x, double *out, size_t batch, unsigned threads) {
            const BatchedLoop &l = threads == 1 ? *loop1 : *loopAll;
            return l.evaluate(std::span(x, batch * c_.numInputs()), std::span(out, batch * c_.numOutputs()), batch)
                .ok();
        });
    }

    const Setup &setup_;
    std::string name_;
    const Circuit &c_;
    DfsOrder order_;
    CpuOptions options_;
    std::vector<double> x_, want_;
    std::vector<PathResult> results_;
};

std::string markdown(const std::vector<PathResult> &rows, unsigned cores) {
    std::ostringstream t;
    t << "| network | circuit nodes | ops | path | build | latency (1 sample) | samples/s, 1 thread | samples/s, "
      << cores << " threads | max rel. diff. vs reference |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const PathResult &r : rows)
        t << "| " << r.network << " | " << r.nodes << " | " << r.ops << " | " << r.path << " | " << r.build << " | "
          << fixed(r.latencyUs, "%.3g µs") << " | " << fixed(r.perSecond1, "%.3g") << " | "
          << fixed(r.perSecondAll, "%.3g") << " | " << fixed(r.maxRelErr, "%.1e") << " |\n";
    return t.str();
}

std::string json(const std::vector<PathResult> &rows, const std::string &header) {
    std::ostringstream j;
    j << "{" << header << ", \"rows\": [";
    for (size_t i = 0; i < rows.size(); ++i) {
        const PathResult &r = rows[i];
        j << (i ? "," : "") << "\n  {\"network\": \"" << r.network << "\", \"path\": \"" << r.path
          << "\", \"nodes\": " << r.nodes << ", \"ops\": " << r.ops << ", \"build\": \"" << r.build
          << "\", \"build_s\": " << r.buildSeconds << ", \"latency_us\": " << r.latencyUs
          << ", \"per_s_1_thread\": " << r.perSecond1 << ", \"per_s_all_threads\": " << r.perSecondAll
          << ", \"max_rel_diff\": " << r.maxRelErr << "}";
    }
    j << "\n]}\n";
    return j.str();
}

} // namespace

int main(int argc, char **argv) {
    Setup setup;
    std::string jsonPath, mdPath;
    std::vector<std::string> inputs;
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        const bool hasValue = i + 1 < argc;
        if (flag == "--batch" && hasValue)
            setup.batch = std::stoull(argv[++i]);
        else if (flag == "--limit" && hasValue)
            setup.limit = std::stod(argv[++i]);
        else if (flag == "--o2-max-ops" && hasValue)
            setup.o2MaxOps = std::stoull(argv[++i]);
        else if (flag == "--json" && hasValue)
            jsonPath = argv[++i];
        else if (flag == "--md" && hasValue)
            mdPath = argv[++i];
        else if (flag.starts_with("--")) {
            std::fprintf(stderr, "usage: %s [--batch B] [--limit S] [--o2-max-ops N] [--json F] [--md F] "
                                 "NET.bif|NET.zdd...\n", argv[0]);
            return 2;
        } else
            inputs.push_back(flag);
    }
    setup.batch = std::max<size_t>(setup.batch, 64);
    setup.work = fs::temp_directory_path() / ("zbddc-network-eval-" + std::to_string(getpid()));
    fs::create_directories(setup.work);
    const unsigned cores = std::thread::hardware_concurrency();
    const double loadBefore = loadAverage();
    std::vector<PathResult> rows;
    for (const std::string &input : inputs) {
        const auto t0 = Clock::now();
        auto circuit = loadCircuit(input);
        if (!circuit) {
            std::fprintf(stderr, "%s\n", circuit.error().str().c_str());
            continue;
        }
        std::fprintf(stderr, "%s: loaded in %.2f s, %zu nodes\n", input.c_str(), since(t0), circuit->numNodes());
        NetworkRun run(setup, fs::path(input).stem().string(), *circuit);
        for (PathResult &r : run.runAll())
            rows.push_back(std::move(r));
    }
    fs::remove_all(setup.work);
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::ostringstream header;
    header << "\"date\": \"" << date << "\", \"cores\": " << cores << ", \"batch\": " << setup.batch
           << ", \"gcc\": " << (onPath("gcc") ? "true" : "false") << ", \"cc\": " << (onPath("cc") ? "true" : "false")
           << ", \"load_before\": " << loadBefore << ", \"load_after\": " << loadAverage();
    const std::string table = markdown(rows, cores);
    std::printf("%s\n%s", header.str().c_str(), table.c_str());
    if (!jsonPath.empty())
        std::ofstream(jsonPath) << json(rows, header.str());
    if (!mdPath.empty())
        std::ofstream(mdPath) << "<!-- " << header.str() << " -->\n" << table;
    return rows.empty() ? 1 : 0;
}
