// Where the GPU starts to beat the CPU on one bucket (for the host/device split; Fioretto et al.
// 2015 Fig. 2, Bistaffa et al. 2016 §3.2: small tables stay on the CPU). One EliminateBucket op —
// an input over k output variables and the eliminated one, a binary input, domains 4 — for k =
// 2..11 (64 to 16.7M entries of work): the CPU executor on every hardware thread against the GPU
// device of the split executor, once with the inputs' upload and the output's download (what an op
// costs whose tables live on the host) and once launch + wait only (tables already on the device).
// Prints both crossovers: the least work from which the GPU wins at every larger size.
// `--split-threshold` takes the first.
//   build/bench/be_split_crossover [--json F] [--md F]      (scripts/gpu_run.sh runs it)
#include "backends/cuda/driver.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "backends/tensor/devices/host_device_split.h"
#include "bench/harness.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

using namespace zbddc;

namespace {

TensorProgram oneBucket(uint32_t k, std::mt19937 &rng) {
    TensorProgram p;
    p.semiring = Semiring::MinSum;
    p.domainSizes.assign(k + 1, 4);
    auto input = [&](std::vector<uint32_t> scope) {
        Table t;
        t.scope = std::move(scope);
        t.domains.assign(t.scope.size(), 4);
        t.input = true;
        t.values.resize(t.entries());
        for (double &v : t.values)
            v = static_cast<double>(rng() % 101);
        p.tables.push_back(std::move(t));
    };
    std::vector<uint32_t> big;
    for (uint32_t v = 0; v <= k; ++v)
        big.push_back(v); // the eliminated variable k last: fastest, as buildBucketProgram lays out
    input(big);
    input({0, k});
    Table out;
    for (uint32_t v = 0; v < k; ++v)
        out.scope.push_back(v);
    out.domains.assign(k, 4);
    p.tables.push_back(out);
    p.ops.push_back({TensorOpKind::EliminateBucket, {0, 1}, 2, {k}, {}});
    computeLevels(p);
    return p;
}

// The least work from which `faster` holds at this and every larger size; 0 when never.
uint64_t crossover(const std::vector<uint64_t> &work, const std::vector<bool> &faster) {
    uint64_t at = 0;
    for (size_t i = work.size(); i-- > 0;) {
        if (!faster[i])
            break;
        at = work[i];
    }
    return at;
}

void splitCrossover(bench::Context &ctx) {
    if (Status st = cuda::cudaAvailable(); !st) {
        std::fprintf(stderr, "skipped: %s\n", st.error().message.c_str());
        ctx.record("skipped (no GPU)", 1);
        return;
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::mt19937 rng(7);
    std::vector<uint64_t> work;
    std::vector<bool> withTransfer, kernelOnly;
    std::printf("%12s %12s %14s %14s %8s\n", "work", "cpu_ms", "gpu_ms(+xfer)", "gpu_ms(kernel)",
                "agree");
    for (uint32_t k = 2; k <= 11; ++k) {
        const TensorProgram p = oneBucket(k, rng);
        const uint32_t op = 0, out = p.ops[0].output;
        std::vector<const double *> data{p.tables[0].values.data(), p.tables[1].values.data(),
                                         nullptr};
        std::vector<std::vector<double>> computed(p.tables.size());
        const std::vector<uint32_t> ops{op};
        auto device = cuda::openGpuTensorDevice(p);
        if (!device) {
            std::fprintf(stderr, "GPU device: %s\n", device.error().str().c_str());
            ctx.record("failed", 1);
            return;
        }
        cuda::GpuTensorDevice &gpu = **device;
        const DeviceTask task = wholeOpTask(p, op);
        std::vector<double> fromGpu(p.tables[out].entries());
        bool ok = true;
        auto check = [&](const Status &s) {
            if (!s) {
                std::fprintf(stderr, "%s\n", s.error().str().c_str());
                ok = false;
            }
        };
        const double cpuS =
            ctx.timeMedian([&] { check(runTensorOpsCpu(p, ops, data, computed, threads)); }, 7);
        for (uint32_t t = 0; t < p.tables.size(); ++t)
            check(gpu.reserve(t, {0, p.tables[t].entries()}));
        const double totalS = ctx.timeMedian(
            [&] {
                check(gpu.upload(0, 0, p.tables[0].values));
                check(gpu.upload(1, 0, p.tables[1].values));
                check(gpu.launch(std::span(&task, 1)));
                check(gpu.wait());
                check(gpu.download(out, 0, fromGpu));
            },
            7);
        const double kernelS = ctx.timeMedian(
            [&] {
                check(gpu.launch(std::span(&task, 1)));
                check(gpu.wait());
            },
            7);
        const bool agree = ok && fromGpu == computed[out];
        const uint64_t w = opWorkEntries(p, op);
        work.push_back(w);
        withTransfer.push_back(totalS < cpuS);
        kernelOnly.push_back(kernelS < cpuS);
        std::printf("%12llu %12.4f %14.4f %14.4f %8s\n", static_cast<unsigned long long>(w),
                    cpuS * 1e3, totalS * 1e3, kernelS * 1e3, agree ? "yes" : "NO");
        const std::string at = " @" + std::to_string(w);
        ctx.record("cpu_ms" + at, cpuS * 1e3, "ms");
        ctx.record("gpu_ms_with_transfer" + at, totalS * 1e3, "ms");
        ctx.record("gpu_ms_kernel" + at, kernelS * 1e3, "ms");
        ctx.record("agree" + at, agree ? 1 : 0);
    }
    const uint64_t xfer = crossover(work, withTransfer), kernel = crossover(work, kernelOnly);
    std::printf("cpu threads: %u\ncrossover (with transfers): %llu entries\ncrossover (kernel "
                "only): %llu entries\n(0: the GPU never wins at every larger size)\n",
                threads, static_cast<unsigned long long>(xfer),
                static_cast<unsigned long long>(kernel));
    ctx.record("cpu_threads", threads);
    ctx.record("crossover_entries_with_transfer", static_cast<double>(xfer), "entries");
    ctx.record("crossover_entries_kernel_only", static_cast<double>(kernel), "entries");
}

ZBDDC_BENCHMARK("be_split_crossover", splitCrossover);

} // namespace
