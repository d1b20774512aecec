// The compile-time study (Minato et al. 2011 Table 1; docs/compile-study.md): build time of zbddc's
// CPU paths against gcc/clang on the emitted C (one statement per node, the Takahashi–Minato style
// Minato et al. 2011 fed to gcc), nvcc on the CUDA backend's emitted kernel source and NVRTC on the
// same kernels, for the benchmark networks and random ZBDD-shaped circuits of growing size; plus
// each CPU build's evaluation time per op.
//
//   cpu_compile [--sizes 1000,10000,...] [--networks A.bif,B.bif] [--limit SECONDS]
//               [--compilers "gcc -O0,...|none"] [--nvcc PATH|none] [--o2-max NODES]
//               [--ops-per-function N]
//               [--json FILE] [--markdown FILE]
//
// External compilers run in child processes with a time limit (reported as such) and their peak
// memory is read from wait4's rusage. zbddc's figures are in process; its peak memory is the
// process's maximum RSS so far (cases run in increasing ZBDD size).
#include "backends/cpu/batched_loop.h"
#include "backends/cpu/cpu_model.h"
#include "backends/cpu/dfs_order.h"
#include "backends/cpu/emit_c.h"
#include "backends/cpu/shared_object.h"
#include "bench/child_process.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "pipeline/load_model.h"
#include "zbdd_model.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/cuda_model.h"
#include "runtime/cuda_circuit.h"
#include "support/gpu_settings.h"
#endif

#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
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

std::string fmtSeconds(double s) {
    char t[32];
    std::snprintf(t, sizeof t, s < 10 ? "%.3g s" : "%.0f s", s);
    return t;
}

std::string fmtNs(double v) {
    char t[32];
    std::snprintf(t, sizeof t, "%.2f", v);
    return v < 0 ? std::string("–") : std::string(t);
}

std::vector<std::string> splitList(const std::string &text) {
    std::vector<std::string> items;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty() && item != "none")
            items.push_back(item);
    return items;
}

// One row of the study: a benchmark network or a synthetic ZBDD.
struct Case {
    std::string label;
    size_t zddNodes = 0;
    Circuit circuit;
};

struct Study {
    double limit = 300;
    size_t o2Max = 100000; // -O2 costs ~20 us/op and grows faster: larger cases would dominate
    size_t opsPerFunction = CpuOptions{}.opsPerFunction;
    std::vector<std::string> compilers{"gcc -O0", "gcc -O1", "clang -O0", "clang -O1"};
    std::string nvcc; // empty: no nvcc column
    fs::path work;
    std::map<std::string, bool> gaveUp; // a compiler that timed out is not run on larger cases
    std::ostringstream table, json;
    size_t rows = 0;

    void header() {
        table << "| circuit | ZBDD nodes | ops | stored | zbddc JIT -O0 | zbddc .so -O0 | zbddc "
                 "JIT -O2 |";
        for (const auto &cc : compilers)
            table << " " << cc << " |";
        size_t extra = 0;
        if (!nvcc.empty())
            table << " nvcc (kernels) |", ++extra;
#ifdef ZBDDC_HAVE_CUDA_BACKEND
        table << " NVRTC (kernels) |", ++extra;
#endif
        table << " eval ns/op: JIT -O0 | JIT -O2 | gcc -O1 | data-driven loop: build | "
                 "ns/op/sample (batch 64) |\n|";
        for (size_t k = 0; k < 7 + compilers.size() + extra + 5; ++k)
            table << "---|";
        table << "\n";
        json << "{\"machine_threads\": " << std::thread::hardware_concurrency()
             << ", \"limit_s\": " << limit << ", \"rows\": [";
    }

    // A child-process compiler's cell; records its JSON fields under `key`.
    std::string childCell(const std::string &name, const std::string &key,
                          const std::vector<std::string> &argv) {
        if (gaveUp[name])
            return "skipped";
        const ChildRun r = runChild(argv, limit);
        json << ", \"" << key << "_s\": " << (r.ok ? r.seconds : -1) << ", \"" << key
             << "_peak_MiB\": " << r.peakMiB << ", \"" << key
             << "_timed_out\": " << (r.timedOut ? "true" : "false");
        if (r.missing)
            return "absent";
        if (!r.ok) {
            gaveUp[name] = r.timedOut;
            return r.timedOut ? "> " + fmtSeconds(limit) + " (limit)" : std::string("failed");
        }
        char cell[64];
        std::snprintf(cell, sizeof cell, "%s, %.0f MiB", fmtSeconds(r.seconds).c_str(), r.peakMiB);
        return cell;
    }

    bool run(const Case &k) {
        const Circuit &c = k.circuit;
        const DfsOrder order = dfsOrder(c);
        CpuOptions options;
        options.backward = false;
        options.order = order.order;
        options.opsPerFunction = opsPerFunction;
        std::fprintf(stderr, "%s (%zu ZBDD nodes): %zu ops, %zu stored\n", k.label.c_str(),
                     k.zddNodes, order.ops, order.stored);
        std::vector<double> x(c.numInputs());
        std::mt19937 rng(1);
        for (double &v : x)
            v = std::uniform_real_distribution<double>(0.05, 0.6)(rng);
        json << (rows++ ? "," : "") << "\n  {\"circuit\": \"" << k.label
             << "\", \"nodes\": " << k.zddNodes << ", \"ops\": " << order.ops
             << ", \"stored\": " << order.stored;
        table << "| " << k.label << " | " << k.zddNodes << " | " << order.ops << " | "
              << order.stored << " |";

        // zbddc JIT, fast path.
        auto t0 = Clock::now();
        auto jit = compileCpu(c, options);
        const double jitSeconds = since(t0);
        if (!jit) {
            std::fprintf(stderr, "%s\n", jit.error().str().c_str());
            return false;
        }
        std::vector<double> out(c.numOutputs());
        const double jitNs = nsPerOp([&] { (void)jit->evaluate(x, out, 1); }, order.ops);
        json << ", \"jit_O0_s\": " << jitSeconds << ", \"jit_O0_ir_s\": " << jit->compileTimes().ir
             << ", \"jit_O0_codegen_s\": " << jit->compileTimes().codegen
             << ", \"jit_O0_eval_ns_per_op\": " << jitNs
             << ", \"zbddc_peak_MiB\": " << selfPeakMiB();
        table << " " << fmtSeconds(jitSeconds) << " |";
        jit = error("released"); // its code is not needed any more: keep the peak memory down

        // The data-driven batched loop: build time, and ns per op per sample on a batch of 64 on
        // one thread.
        CpuOptions loopOptions = options;
        loopOptions.threads = 1;
        t0 = Clock::now();
        auto loop = BatchedLoop::build(c, loopOptions);
        const double loopSeconds = since(t0);
        const size_t lanesBatch = 64;
        std::vector<double> xs(lanesBatch * x.size()), outs(lanesBatch * c.numOutputs());
        for (size_t s = 0; s < lanesBatch; ++s)
            std::copy(x.begin(), x.end(), xs.begin() + s * x.size());
        const double loopNs =
            nsPerOp([&] { (void)loop->evaluate(xs, outs, lanesBatch); }, order.ops) / lanesBatch;
        json << ", \"loop_build_s\": " << loopSeconds << ", \"loop_slots\": " << loop->numSlots()
             << ", \"loop_eval_ns_per_op_sample\": " << loopNs;
        loop = error("released");

        // zbddc .so, fast path, portable CPU.
        CpuOptions soOptions = options;
        soOptions.hostCpu = false;
        t0 = Clock::now();
        auto so = onPath("cc") ? writeSharedObject(c, soOptions, (work / "model.so").string())
                               : Result<SharedObjectReport>(error("cc absent"));
        const double soSeconds = since(t0);
        json << ", \"so_O0_s\": " << (so ? soSeconds : -1)
             << ", \"so_link_s\": " << (so ? so->link : -1);
        table << " "
              << (so             ? fmtSeconds(soSeconds)
                  : onPath("cc") ? "failed"
                                 : "cc absent")
              << " |";

        // zbddc JIT -O2 on the same bounded functions.
        double o2Ns = -1;
        if (k.zddNodes <= o2Max) {
            CpuOptions o2 = options;
            o2.optLevel = 2;
            t0 = Clock::now();
            auto jit2 = compileCpu(c, o2);
            const double s = since(t0);
            o2Ns = nsPerOp([&] { (void)jit2->evaluate(x, out, 1); }, order.ops);
            json << ", \"jit_O2_s\": " << s << ", \"jit_O2_eval_ns_per_op\": " << o2Ns;
            table << " " << fmtSeconds(s) << " |";
        } else {
            table << " not run |";
        }

        // The emitted C through gcc and clang.
        const fs::path source = work / "model.c";
        if (!compilers.empty()) { // 10^7 nodes of C is ~0.5 GB: only written when compiled
            std::ofstream f(source);
            (void)emitC(c, options, f);
        }
        double gccO1Ns = -1;
        for (const std::string &cc : compilers) {
            const std::string exe = cc.substr(0, cc.find(' ')), level = cc.substr(cc.find(' ') + 1);
            const fs::path object = work / "model.o";
            fs::remove(object);
            std::string key = cc;
            std::replace(key.begin(), key.end(), ' ', '_');
            const std::string cell = childCell(
                cc, key, {exe, level, "-fPIC", "-c", source.string(), "-o", object.string()});
            table << " " << cell << " |";
            if (cc == "gcc -O1" && fs::exists(object) && cell.find("MiB") != std::string::npos) {
                auto linked = linkModel({object.string()}, (work / "gcc.so").string());
                if (linked) {
                    void *lib = dlopen((work / "gcc.so").c_str(), RTLD_NOW | RTLD_LOCAL);
                    auto eval = reinterpret_cast<int (*)(const double *, double *, size_t)>(
                        dlsym(lib, "zbdd_eval"));
                    auto setThreads =
                        reinterpret_cast<void (*)(unsigned)>(dlsym(lib, "zbdd_set_threads"));
                    setThreads(1);
                    gccO1Ns = nsPerOp([&] { eval(x.data(), out.data(), 1); }, order.ops);
                    dlclose(lib);
                    json << ", \"gcc_O1_eval_ns_per_op\": " << gccO1Ns;
                }
            }
        }
        fs::remove(source);
        gpuColumns(c);
        table << " " << fmtNs(jitNs) << " | " << fmtNs(o2Ns) << " | " << fmtNs(gccO1Ns) << " | "
              << fmtSeconds(loopSeconds) << " | " << fmtNs(loopNs) << " |\n";
        json << "}";
        std::fprintf(stderr, "%s", table.str().c_str());
        return true;
    }

    // The CUDA backend's kernels (backends/cuda, --emit=cu): the circuit reaches them as flat
    // arrays, so their source depends only on the op-type catalogue, not on the circuit's size.
    // nvcc -ptx on that source in a child; NVRTC in process, cache off. The source's own cost
    // (schedule, device plan and text) is part of the NVRTC figure and given apart in the JSON.
    void gpuColumns([[maybe_unused]] const Circuit &c) {
#ifdef ZBDDC_HAVE_CUDA_BACKEND
        cuda::CudaOptions o;
        o.backward = false;
        o.nvrtc.useCache = false;
        auto t0 = Clock::now();
        auto source = emitCircuitCuda(c, o, false);
        const double sourceSeconds = since(t0);
        if (!source) {
            table << (nvcc.empty() ? "" : " failed |") << " failed |";
            return;
        }
        json << ", \"cuda_source_s\": " << sourceSeconds
             << ", \"cuda_source_bytes\": " << source->size();
        if (!nvcc.empty()) {
            const fs::path cu = work / "model.cu";
            std::ofstream(cu) << *source;
            table << " "
                  << childCell("nvcc", "nvcc",
                               {nvcc, "-ptx", "-arch=" + o.nvrtc.arch, cu.string(), "-o",
                                (work / "model.ptx").string()})
                  << " |";
        }
        t0 = Clock::now();
        auto ptx = cuda::compileToPtx(*source, "model.cu", o.nvrtc);
        const double nvrtcSeconds = since(t0);
        json << ", \"nvrtc_s\": " << (ptx ? nvrtcSeconds : -1);
        table << " " << (ptx ? fmtSeconds(sourceSeconds + nvrtcSeconds) : std::string("failed"))
              << " |";
#else
        if (!nvcc.empty())
            table << " no CUDA backend |";
#endif
    }
};

// A random ZBDD's label: its size in powers of ten where it is one.
std::string syntheticLabel(size_t n) {
    size_t p = 0, m = n;
    while (m >= 10 && m % 10 == 0)
        m /= 10, ++p;
    return m == 1 ? "synthetic 10^" + std::to_string(p) : "synthetic " + std::to_string(n);
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    std::vector<size_t> sizes{1000, 10000, 100000, 1000000};
    std::vector<std::string> networks;
    Study study;
    std::string jsonPath = "cpu_compile.json", markdownPath;
    study.nvcc = fs::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i], value = argv[i + 1];
        if (flag == "--sizes") {
            sizes.clear();
            for (const std::string &item : splitList(value))
                sizes.push_back(std::stoull(item));
        } else if (flag == "--networks") {
            networks = splitList(value);
        } else if (flag == "--limit") {
            study.limit = std::stod(value);
        } else if (flag == "--ops-per-function") {
            study.opsPerFunction = std::stoull(value);
        } else if (flag == "--o2-max") {
            study.o2Max = std::stoull(value);
        } else if (flag == "--json") {
            jsonPath = value;
        } else if (flag == "--compilers") { // e.g. "gcc -O0,clang -O1", or "none"
            study.compilers = splitList(value);
        } else if (flag == "--nvcc") {
            study.nvcc = value == "none" ? "" : value;
        } else if (flag == "--markdown") {
            markdownPath = value;
        } else {
            std::fprintf(stderr,
                         "usage: %s [--sizes N,N,...|none] [--networks A.bif,...] [--limit S] "
                         "[--compilers LIST|none] [--nvcc PATH|none] [--o2-max NODES] "
                         "[--ops-per-function N] [--json F] "
                         "[--markdown F]\n",
                         argv[0]);
            return 2;
        }
    }
    // Cases in increasing size, so that a compiler that hit the limit is not tried on larger ones.
    std::vector<std::pair<size_t, std::function<Case()>>> cases;
    for (const std::string &path : networks) {
        auto zdd = loadZddModel(path);
        if (!zdd) {
            std::fprintf(stderr, "%s\n", zdd.error().str().c_str());
            return 1;
        }
        const size_t nodes = zdd->nodes.size();
        cases.push_back(
            {nodes, [path, zdd = std::make_shared<ZddModel>(std::move(*zdd))] {
                 return Case{fs::path(path).stem().string(), zdd->nodes.size(), lowerZdd(*zdd)};
             }});
    }
    for (size_t n : sizes)
        cases.push_back(
            {n, [n] {
                 return Case{syntheticLabel(n), n,
                             syntheticZbdd(n, std::max<size_t>(50, n / 50), 1234 + uint32_t(n))};
             }});
    std::stable_sort(cases.begin(), cases.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });

    study.work = fs::temp_directory_path() / ("zbddc-study-" + std::to_string(getpid()));
    fs::create_directories(study.work);
    study.header();
    for (const auto &[nodes, make] : cases)
        if (!study.run(make()))
            return 1;
    study.json << "\n]}\n";
    std::ofstream(jsonPath) << study.json.str();
    std::printf("%s", study.table.str().c_str());
    if (!markdownPath.empty())
        std::ofstream(markdownPath) << study.table.str();
    fs::remove_all(study.work);
    return 0;
}
