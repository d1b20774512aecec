// Tables beyond device memory (Bistaffa et al. 2017 §V-B): bucket elimination on the GPU in
// core and out of core.
//
// Default (a registered GPU benchmark, ~1 minute): band networks (tests/support/wide_networks.h, every
// message domain^width entries) solved on the GPU in core and under forced budgets of 1, 1/4,
// 1/16 and 1/64 of all their tables; per run the time, the host's time in the copy steps and
// its share of the run, the bytes moved, the steps — and whether every
// computed table equals the CPU executor's (exit 1 otherwise).
//
// --beyond-device (by hand, not run by default): one star network (tests/support/wide_networks.h) whose
// largest table is larger than the GPU's whole memory (cuMemGetInfo's total), solved (the VALUE
// phase included) with the default budget (a fraction of the free device memory), or with
// --budget-gib G where the host cannot hold a table larger than the GPU. The host must hold every
// table: the sizes are printed first, and the run is refused when /proc/meminfo's MemAvailable is
// short. Checked against the star's closed-form optimum and the recovered assignment's
// recomputed cost.
//   wcsp_out_of_core --beyond-device [--leaves 11,2x30] [--centre 4] [--budget-gib G] [--dry-run]
// --leaves lists the leaves' domains, largest first; "2x30" means thirty leaves of domain 2.
#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "bench/harness.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"
#include "support/gpu_settings.h"
#include "support/memory.h"
#include "support/timer.h"
#include "tests/support/wide_networks.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>

using namespace zbddc;
using namespace zbddc::bench;

namespace {

bool gFailed = false;

double gib(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024 * 1024); }

struct Sizes {
    uint64_t largest = 0, total = 0;
};
Sizes tableSizes(const TensorProgram &p) {
    Sizes s;
    for (const Table &t : p.tables) {
        s.largest = std::max(s.largest, 8 * t.entries());
        s.total += 8 * t.entries();
    }
    return s;
}

// One GPU run: wall time of the solve (the in-core path's upload + kernels + download, the
// out-of-core path's whole pipelined run), with the copies timed by events.
struct GpuRun {
    cuda::GpuExecStats st;
    double wallMs = 0;
    bool agree = false;
};
GpuRun runGpu(const TensorProgram &p, const std::vector<std::vector<double>> &oracle,
              uint64_t budget) {
    cuda::GpuExecOptions o;
    o.memoryBudgetBytes = budget;
    GpuRun r;
    const auto t0 = std::chrono::steady_clock::now();
    auto gpu = cuda::runTensorProgramCuda(p, o, &r.st);
    r.wallMs = msSince(t0) - r.st.compileMs;
    if (!gpu) {
        std::printf("  GPU failed: %s\n", gpu.error().str().c_str());
        return r;
    }
    r.agree = *gpu == oracle;
    return r;
}

void bandFamily(Context &ctx, uint32_t width) {
    const GeneratedNetwork g = bandNetwork(width + 6, width, 4, width);
    auto p = buildBucketProgram(g.network, g.order);
    if (!p) {
        std::printf("%s: %s\n", g.network.name.c_str(), p.error().str().c_str());
        gFailed = true;
        return;
    }
    const Sizes size = tableSizes(*p);
    auto t0 = std::chrono::steady_clock::now();
    auto cpu = runTensorProgramCpu(*p, {});
    const double cpuMs = msSince(t0);
    if (!cpu) {
        gFailed = true;
        return;
    }
    std::printf("\n%s: largest table %.1f MiB, all tables %.1f MiB, CPU (all threads) %.1f ms\n",
                g.network.name.c_str(), size.largest / 1048576.0, size.total / 1048576.0, cpuMs);
    ctx.record("largest table", size.largest / 1048576.0, "MiB");
    ctx.record("all tables", size.total / 1048576.0, "MiB");
    ctx.record("cpu all threads", cpuMs, "ms");
    (void)runGpu(*p, *cpu, 0); // warm-up: fills the NVRTC cache and the device pool
    std::printf("  %-10s %9s %7s %9s %9s %7s %9s %9s %8s %9s %s\n", "budget", "MiB", "x largest",
                "ms", "host ms", "steps", "up ms", "down ms", "copy %", "GB moved", "agree");
    for (const uint64_t divisor : {0, 1, 4, 16, 64}) {
        // 0: no forced budget (the default, from free device memory: in core here).
        const uint64_t budget = divisor ? size.total / divisor : 0;
        const GpuRun r = runGpu(*p, *cpu, budget);
        const double copyMs = r.st.uploadMs + r.st.downloadMs;
        const double sharePct = r.wallMs > 0 ? 100.0 * copyMs / r.wallMs : 0;
        const std::string label = divisor ? "1/" + std::to_string(divisor) : "default";
        std::printf("  %-10s %9.1f %7.2f %9.1f %9.1f %7llu %9.1f %9.1f %8.1f %9.3f %s\n",
                    label.c_str(), r.st.budgetBytes / 1048576.0,
                    static_cast<double>(size.largest) / static_cast<double>(r.st.budgetBytes),
                    r.wallMs, r.st.hostPrepMs, static_cast<unsigned long long>(r.st.chunks),
                    r.st.uploadMs, r.st.downloadMs, sharePct,
                    (r.st.uploadBytes + r.st.downloadBytes) / 1e9,
                    r.agree ? "yes" : "NO (differs from the CPU)");
        gFailed |= !r.agree;
        const std::string k = "budget " + label + ": ";
        ctx.record(k + "gpu ms", r.wallMs, "ms");
        ctx.record(k + "out of core", r.st.outOfCore, "bool");
        ctx.record(k + "host preparation", r.st.hostPrepMs, "ms");
        ctx.record(k + "steps", static_cast<double>(r.st.chunks), "count");
        ctx.record(k + "upload steps", r.st.uploadMs, "ms");
        ctx.record(k + "download steps", r.st.downloadMs, "ms");
        ctx.record(k + "copy share", sharePct, "%");
        ctx.record(k + "agrees with cpu", r.agree, "bool");
    }
}

ZBDDC_BENCHMARK("out_of_core band w10", [](Context &c) { bandFamily(c, 10); });
ZBDDC_BENCHMARK("out_of_core band w11", [](Context &c) { bandFamily(c, 11); });
ZBDDC_BENCHMARK("out_of_core band w12", [](Context &c) { bandFamily(c, 12); });

// "11,2x30" -> {11, 2, 2, ... (30 twos)}.
bool parseLeaves(const std::string &spec, std::vector<uint32_t> &leaves) {
    std::stringstream in(spec);
    std::string item;
    while (std::getline(in, item, ',')) {
        unsigned d = 0, n = 1;
        if (std::sscanf(item.c_str(), "%ux%u", &d, &n) < 1 || d < 1 || n < 1)
            return false;
        leaves.insert(leaves.end(), n, d);
    }
    return !leaves.empty();
}

int beyondDevice(int argc, char **argv) {
    std::string leafSpec = "11,2x30"; // 11 * 2^30 entries: 94.5 GB, beyond an 80 GB H100
    uint32_t centre = 4;
    double budgetGib = 0;
    bool dryRun = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--leaves") && i + 1 < argc)
            leafSpec = argv[++i];
        else if (!std::strcmp(argv[i], "--centre") && i + 1 < argc)
            centre = static_cast<uint32_t>(std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--budget-gib") && i + 1 < argc)
            budgetGib = std::atof(argv[++i]);
        else if (!std::strcmp(argv[i], "--dry-run"))
            dryRun = true;
        else if (std::strcmp(argv[i], "--beyond-device")) {
            std::fprintf(stderr, "usage: %s --beyond-device [--leaves 11,2x30] [--centre 4] "
                                 "[--budget-gib G] [--dry-run]\n", argv[0]);
            return 2;
        }
    }
    std::vector<uint32_t> leaves;
    if (!parseLeaves(leafSpec, leaves) || centre < 1) {
        std::fprintf(stderr, "bad --leaves or --centre\n");
        return 2;
    }
    const GeneratedNetwork g = starNetwork(leaves, centre, 7);
    auto p = buildBucketProgram(g.network, g.order);
    if (!p) {
        std::fprintf(stderr, "%s\n", p.error().str().c_str());
        return 1;
    }
    const Sizes size = tableSizes(*p);
    const uint64_t available = availableMemoryBytes();
    std::printf("%s (centre domain %u): largest table %.2f GiB (%llu bytes), all tables %.2f GiB "
                "(the host holds them all), host MemAvailable %.2f GiB\n",
                g.network.name.c_str(), centre, gib(size.largest),
                static_cast<unsigned long long>(size.largest), gib(size.total), gib(available));
    auto device = cuda::openDevice();
    if (!device) {
        std::printf("no GPU: %s\n", device.error().message.c_str());
        return dryRun ? 0 : 1;
    }
    auto memory = (*device)->memoryInfo();
    if (!memory)
        return 1;
    std::printf("device %s: cuMemGetInfo total %.2f GiB (%llu bytes), free %.2f GiB; largest "
                "table / device total = %.2f\n",
                (*device)->info().name.c_str(), gib(memory->totalBytes),
                static_cast<unsigned long long>(memory->totalBytes), gib(memory->freeBytes),
                static_cast<double>(size.largest) / static_cast<double>(memory->totalBytes));
    if (dryRun)
        return 0;
    if (size.total + (uint64_t{4} << 30) > available) {
        std::printf("refused: the host needs %.2f GiB for the tables (+4 GiB slack), %.2f GiB is "
                    "available; choose smaller --leaves\n",
                    gib(size.total), gib(available));
        return 1;
    }
    cuda::GpuExecOptions o;
    o.memoryBudgetBytes = static_cast<uint64_t>(budgetGib * (uint64_t{1} << 30));
    cuda::GpuExecStats st;
    std::vector<uint32_t> assignment(g.network.numVariables(), 0);
    const auto t0 = std::chrono::steady_clock::now();
    auto gpu = cuda::solveTensorProgramCuda(*p, assignment, o, &st);
    const double ms = msSince(t0);
    if (!gpu) {
        std::printf("GPU failed: %s\n", gpu.error().str().c_str());
        return 1;
    }
    const Cost cost = *gpu;
    const Cost oracle = starOptimum(g.network);
    const Cost recomputed = assignmentCost(g.network, assignment);
    std::printf("solved out of core: %s; budget %.2f GiB, %llu steps, "
                "%.1f s total (%.1f s out-of-core run, of which %.1f s host preparation; "
                "%.1f s compile; %.1f s VALUE phase on the host); host in copy steps: up "
                "%.1f s, down %.1f s; moved %.1f GB up, %.1f GB down; staging pinned %.2f GiB\n",
                st.outOfCore ? "yes" : "NO", gib(st.budgetBytes),
                static_cast<unsigned long long>(st.chunks), ms / 1000,
                st.kernelMs / 1000, st.hostPrepMs / 1000, st.compileMs / 1000, st.valueMs / 1000,
                st.uploadMs / 1000,
                st.downloadMs / 1000, st.uploadBytes / 1e9, st.downloadBytes / 1e9,
                gib(st.pinnedBytes));
    const bool ok = st.outOfCore && cost == oracle && recomputed == cost;
    std::printf("optimum %.0f, closed-form oracle %.0f, recovered assignment costs %.0f: %s\n",
                cost, oracle, recomputed, ok ? "AGREE" : "MISMATCH");
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    for (int i = 1; i < argc; ++i)
        if (!std::strcmp(argv[i], "--beyond-device"))
            return beyondDevice(argc, argv);
    if (Status s = cuda::cudaAvailable(); !s) {
        std::printf("no GPU: %s\n", s.error().message.c_str());
        return 1;
    }
    const int rc = runBenchmarks(argc, argv);
    return rc ? rc : gFailed ? 1 : 0;
}
