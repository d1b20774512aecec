// The compile-time study (seed 003 Table 1, issue 7): build time of zbddc's CPU paths against
// gcc/clang on the emitted C (one statement per node, the Takahashi–Minato style the seed fed to
// gcc), for random ZBDD-shaped circuits of growing size; plus each build's evaluation time per op.
//
//   cpu_compile [--sizes 1000,10000,...] [--limit SECONDS] [--compilers "gcc -O0,...|none"]
//               [--json FILE] [--markdown FILE]
//
// External compilers run in child processes with a time limit (reported as such) and their peak
// memory is read from wait4's rusage. zbddc's figures are in process; its peak memory is the
// process's maximum RSS so far (sizes run in increasing order).
#include "backends/cpu/batched_loop.h"
#include "backends/cpu/cpu_model.h"
#include "backends/cpu/emit_c.h"
#include "backends/cpu/shared_object.h"
#include "bench/child_process.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "compiler/passes/dfs_order.h"
#include "zbdd_model.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <algorithm>
#include <random>
#include <sstream>
#include <thread>

using namespace zbddc;
namespace fs = std::filesystem;
using namespace zbddc::bench;

namespace {

// A random ZBDD of `n` nodes over `vars` variables: hi children mostly recent (long chains, as in
// compiled MLFs), lo children sometimes the empty terminal (typeB ops), some sharing.
Circuit syntheticZbdd(size_t n, size_t vars, uint32_t seed) {
    std::mt19937 rng(seed);
    ZddModel m;
    for (size_t v = 0; v < vars; ++v)
        m.vars.push_back({InputKind::Free, kNone, kNone, 0.0, "x" + std::to_string(v)});
    std::uniform_real_distribution<double> u(0, 1);
    for (size_t i = 0; i < n; ++i) {
        const uint32_t id = ZddModel::idOf(i);
        auto earlier = [&] {
            if (id == 2)
                return uint32_t(kZddBase);
            const uint32_t lo = u(rng) < 0.8 && id > 10 ? id - 8 : 2;
            return std::uniform_int_distribution<uint32_t>(lo, id - 1)(rng);
        };
        const uint32_t hi = earlier();
        const uint32_t lo = u(rng) < 0.3 ? kZddEmpty : earlier();
        m.nodes.push_back({std::uniform_int_distribution<uint32_t>(0, vars - 1)(rng), lo, hi});
    }
    m.roots.push_back(ZddModel::idOf(n - 1));
    m.rootNames.push_back("f");
    return lowerZdd(m);
}

// Evaluation time per op of a forward function, one sample at a time on one thread.
template <class Eval> double nsPerOp(Eval eval, size_t ops) {
    eval(); // warm caches and pages
    size_t reps = 0;
    const auto t0 = Clock::now();
    do {
        eval();
        ++reps;
    } while (since(t0) < 0.3);
    return since(t0) * 1e9 / double(reps) / double(ops);
}

struct Row {
    size_t nodes = 0, ops = 0, stored = 0;
    std::vector<std::pair<std::string, std::string>> cells; // column -> text
    std::ostringstream json;
};

std::string fmtSeconds(double s) {
    char t[32];
    std::snprintf(t, sizeof t, s < 10 ? "%.3g s" : "%.0f s", s);
    return t;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<size_t> sizes{1000, 10000, 100000, 1000000};
    double limit = 300;
    std::string jsonPath = "cpu_compile.json", markdownPath;
    std::vector<std::string> compilers{"gcc -O0", "gcc -O1", "clang -O0", "clang -O1"};
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--sizes") {
            sizes.clear();
            std::stringstream ss(value);
            for (std::string item; std::getline(ss, item, ',');)
                sizes.push_back(std::stoull(item));
        } else if (flag == "--limit") {
            limit = std::stod(value);
        } else if (flag == "--json") {
            jsonPath = value;
        } else if (flag == "--compilers") { // e.g. "gcc -O0,clang -O1", or "none"
            compilers.clear();
            std::stringstream ss(value);
            for (std::string item; std::getline(ss, item, ',');)
                if (item != "none")
                    compilers.push_back(item);
        } else if (flag == "--markdown") {
            markdownPath = value;
        } else {
            std::fprintf(stderr, "usage: %s [--sizes N,N,...] [--limit S] [--compilers LIST|none] [--json F] [--markdown F]\n", argv[0]);
            return 2;
        }
    }
    const fs::path work = fs::temp_directory_path() / ("zbddc-study-" + std::to_string(getpid()));
    fs::create_directories(work);
    std::map<std::string, bool> gaveUp; // a compiler that timed out is not run on larger sizes
    std::ostringstream table, json;
    table << "| ZBDD nodes | ops | stored | zbddc JIT -O0 | zbddc .so -O0 | zbddc JIT -O2 |";
    for (const auto &cc : compilers)
        table << " " << cc << " |";
    table << " eval ns/op: JIT -O0 | JIT -O2 | gcc -O1 | data-driven loop: build | ns/op/sample (batch 64) |\n|";
    for (size_t k = 0; k < 7 + compilers.size() + 4; ++k)
        table << "---|";
    table << "\n";
    json << "{\"machine_threads\": " << std::thread::hardware_concurrency() << ", \"limit_s\": " << limit
         << ", \"rows\": [";

    for (size_t si = 0; si < sizes.size(); ++si) {
        const size_t n = sizes[si];
        const Circuit c = syntheticZbdd(n, std::max<size_t>(50, n / 50), 1234 + uint32_t(n));
        const DfsOrder order = dfsOrder(c);
        CpuOptions options;
        options.backward = false;
        options.order = order.order;
        std::fprintf(stderr, "n = %zu: %zu ops, %zu stored\n", n, order.ops, order.stored);
        std::vector<double> x(c.numInputs());
        std::mt19937 rng(1);
        for (double &v : x)
            v = std::uniform_real_distribution<double>(0.05, 0.6)(rng);
        json << (si ? "," : "") << "\n  {\"nodes\": " << n << ", \"ops\": " << order.ops
             << ", \"stored\": " << order.stored;
        table << "| " << n << " | " << order.ops << " | " << order.stored << " |";

        // zbddc JIT, fast path.
        auto t0 = Clock::now();
        auto jit = compileCpu(c, options);
        const double jitSeconds = since(t0);
        if (!jit) {
            std::fprintf(stderr, "%s\n", jit.error().str().c_str());
            return 1;
        }
        std::vector<double> out(1);
        const double jitNs = nsPerOp([&] { (void)jit->evaluate(x, out, 1); }, order.ops);
        json << ", \"jit_O0_s\": " << jitSeconds << ", \"jit_O0_ir_s\": " << jit->compileTimes().ir
             << ", \"jit_O0_codegen_s\": " << jit->compileTimes().codegen
             << ", \"jit_O0_eval_ns_per_op\": " << jitNs << ", \"zbddc_peak_MiB\": " << selfPeakMiB();
        table << " " << fmtSeconds(jitSeconds) << " |";

        // The data-driven batched loop: build time, and ns per op per sample on a batch of 64 on
        // one thread.
        CpuOptions loopOptions = options;
        loopOptions.threads = 1;
        t0 = Clock::now();
        auto loop = BatchedLoop::build(c, loopOptions);
        const double loopSeconds = since(t0);
        const size_t lanesBatch = 64;
        std::vector<double> xs(lanesBatch * x.size()), outs(lanesBatch);
        for (size_t s = 0; s < lanesBatch; ++s)
            std::copy(x.begin(), x.end(), xs.begin() + s * x.size());
        const double loopNs =
            nsPerOp([&] { (void)loop->evaluate(xs, outs, lanesBatch); }, order.ops) / lanesBatch;
        json << ", \"loop_build_s\": " << loopSeconds << ", \"loop_slots\": " << loop->numSlots()
             << ", \"loop_eval_ns_per_op_sample\": " << loopNs;

        // zbddc .so, fast path, portable CPU.
        CpuOptions soOptions = options;
        soOptions.hostCpu = false;
        t0 = Clock::now();
        auto so = writeSharedObject(c, soOptions, (work / "model.so").string());
        const double soSeconds = since(t0);
        json << ", \"so_O0_s\": " << soSeconds << ", \"so_link_s\": " << (so ? so->link : -1);
        table << " " << (so ? fmtSeconds(soSeconds) : "failed") << " |";

        // zbddc JIT -O2 on the same bounded functions.
        double o2Ns = -1;
        if (n <= 100000) { // -O2 costs ~20 us/op: larger sizes would dominate the study
            CpuOptions o2 = options;
            o2.optLevel = 2;
            t0 = Clock::now();
            auto jit2 = compileCpu(c, o2);
            const double s = since(t0);
            o2Ns = nsPerOp([&] { (void)jit2->evaluate(x, out, 1); }, order.ops);
            json << ", \"jit_O2_s\": " << s << ", \"jit_O2_eval_ns_per_op\": " << o2Ns;
            table << " " << fmtSeconds(s) << " |";
        } else {
            table << " – |";
        }

        // The emitted C through gcc and clang.
        const fs::path source = work / "model.c";
        {
            std::ofstream f(source);
            (void)emitC(c, options, f);
        }
        double gccO1Ns = -1;
        for (const std::string &cc : compilers) {
            const std::string exe = cc.substr(0, cc.find(' ')), level = cc.substr(cc.find(' ') + 1);
            if (gaveUp[cc]) {
                table << " skipped |";
                continue;
            }
            const fs::path object = work / "model.o";
            fs::remove(object);
            const ChildRun r = runChild({exe, level, "-fPIC", "-c", source.string(), "-o", object.string()}, limit);
            std::string key = cc;
            std::replace(key.begin(), key.end(), ' ', '_');
            json << ", \"" << key << "_s\": " << (r.ok ? r.seconds : -1) << ", \"" << key
                 << "_peak_MiB\": " << r.peakMiB << ", \"" << key << "_timed_out\": " << (r.timedOut ? "true" : "false");
            if (!r.ok) {
                gaveUp[cc] = r.timedOut;
                table << (r.timedOut ? " > " + fmtSeconds(limit) + " (limit)" : std::string(" failed")) << " |";
                continue;
            }
            char cell[64];
            std::snprintf(cell, sizeof cell, " %s, %.0f MiB |", fmtSeconds(r.seconds).c_str(), r.peakMiB);
            table << cell;
            if (cc == "gcc -O1") {
                SharedObjectOptions link;
                auto linked = linkModel({object.string()}, (work / "gcc.so").string(), link);
                if (linked) {
                    void *lib = dlopen((work / "gcc.so").c_str(), RTLD_NOW | RTLD_LOCAL);
                    auto eval = reinterpret_cast<int (*)(const double *, double *, size_t)>(dlsym(lib, "zbdd_eval"));
                    auto setThreads = reinterpret_cast<void (*)(unsigned)>(dlsym(lib, "zbdd_set_threads"));
                    setThreads(1);
                    gccO1Ns = nsPerOp([&] { eval(x.data(), out.data(), 1); }, order.ops);
                    dlclose(lib);
                    json << ", \"gcc_O1_eval_ns_per_op\": " << gccO1Ns;
                }
            }
        }
        auto ns = [](double v) {
            char t[32];
            std::snprintf(t, sizeof t, "%.2f", v);
            return v < 0 ? std::string("–") : std::string(t);
        };
        table << " " << ns(jitNs) << " | " << ns(o2Ns) << " | " << ns(gccO1Ns) << " | "
              << fmtSeconds(loopSeconds) << " | " << ns(loopNs) << " |\n";
        json << "}";
        std::fprintf(stderr, "%s", table.str().c_str());
    }
    json << "\n]}\n";
    std::ofstream(jsonPath) << json.str();
    std::printf("%s", table.str().c_str());
    if (!markdownPath.empty())
        std::ofstream(markdownPath) << table.str();
    fs::remove_all(work);
    return 0;
}
