// NVRTC's share of a junction tree's first GPU run, measured without a GPU: the program the GPU
// route compiles (every variable observed, the case index fastest, wide reductions split, as
// JunctionTreeModel and CudaPreparedProgram build it) for a batch of B cases, its distinct kernels
// (specialised and generic), the modules they make, and the NVRTC seconds to compile them on
// --threads threads as TensorModules does (one module per thread): wall seconds, and CPU seconds
// summed over the modules (the figure that does not depend on what else runs on the machine).
// With --load (a GPU), each module is also loaded by the driver on its thread, as TensorModules
// does, for the architecture of GPU 0: "load s" sums the loads' wall seconds (the driver's JIT of
// a PTX; a CUBIN has none), and "wall s" then covers both.
//   jt_kernels [--cases B] [--threads N] [--image cubin|ptx|compute] [--generic-max-work W]
//              [--kernels-per-module K] [--load] NET.bif...
// --image: cubin (what the GPU route compiles for an sm_90 device), ptx (PTX for sm_90, as it
// compiled before: NVRTC assembles SASS either way), compute (PTX for compute_90: NVRTC's front end
// and optimiser without the assembler, the split of the time between them). --kernels-per-module:
// the fewest kernels a module gets (tensor_module_sources.h; 64 before generic kernels). "max s" is
// the costliest module's CPU seconds: the wall time where every module has a core of its own.
#include "backends/cuda/driver.h"
#include "backends/cuda/nvrtc.h"
#include "backends/tensor/cuda/plan/split_reductions.h"
#include "backends/tensor/cuda/codegen/tensor_module_sources.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "support/gpu_settings.h"
#include "support/timer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <vector>

using namespace zbddc;

namespace {

struct Args {
    uint32_t cases = 700;
    unsigned threads = 2;
    std::string image = "cubin";
    bool load = false; // load each module on GPU 0 too, timed
    uint64_t genericMaxWork = cuda::TensorKernelOptions{}.genericMaxWork;
    size_t kernelsPerModule = cuda::kKernelsPerModule;
    std::vector<std::string> networks;
};

// CPU seconds of the calling thread (NVRTC compiles on it): what a module costs whatever else
// shares the machine's cores, where wall time depends on it.
double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The program the GPU's MAR run of `cases` cases compiles.
Result<TensorProgram> gpuProgram(const std::string &path, uint32_t cases) {
    auto net = readNetworkFile(path);
    if (!net)
        return net.error();
    auto tree = buildJunctionTree(*net, searchOrder(moralGraph(*net)).order);
    if (!tree)
        return tree.error();
    JunctionTreeLowering lowering;
    lowering.marginals = true;
    lowering.batch = cases;
    lowering.batchFastest = true;
    for (uint32_t v = 0; v < net->variables.size(); ++v)
        lowering.observed.push_back(v);
    auto lowered = lowerJunctionTree(*net, *tree, lowering);
    if (!lowered)
        return lowered.error();
    return cuda::splitWideReductions(lowered->program);
}

struct ModuleTimes {
    std::string error; // empty where it compiled (and loaded)
    double cpu = 0;    // NVRTC's CPU seconds
    double loadS = 0;  // the driver's load (its JIT of a PTX), wall seconds
};

// Module `source` compiled as --image asks, and loaded on `device` where there is one.
ModuleTimes compileModule(const Args &a, const std::string &source, cuda::Device *device) {
    cuda::NvrtcOptions nvrtc;
    nvrtc.arch = device ? device->info().arch() : "sm_90";
    if (a.image == "compute")
        nvrtc.arch = "compute_" + nvrtc.arch.substr(3);
    nvrtc.useCache = false;
    ModuleTimes t;
    const double c0 = threadCpuSeconds();
    std::string image;
    if (a.image == "cubin") {
        auto compiled = cuda::compileForArch(source, "jt.cu", nvrtc);
        t.error = compiled ? "" : compiled.error().str();
        image = compiled ? std::move(compiled->image) : "";
    } else {
        auto compiled = cuda::compileToPtx(source, "jt.cu", nvrtc);
        t.error = compiled ? "" : compiled.error().str();
        image = compiled ? std::move(compiled->ptx) : "";
    }
    t.cpu = threadCpuSeconds() - c0;
    if (!device || !t.error.empty())
        return t;
    const auto l0 = std::chrono::steady_clock::now();
    auto module = device->loadModule(image);
    t.loadS = msSince(l0) / 1000;
    if (!module)
        t.error = module.error().str();
    return t;
}

int run(const Args &a) {
    cuda::Device *device = nullptr;
    if (a.load) {
        auto opened = cuda::openDevice(0);
        if (!opened) {
            std::fprintf(stderr, "jt_kernels: --load: %s\n", opened.error().str().c_str());
            return 1;
        }
        device = *opened;
    }
    std::printf("%-12s %6s %8s %8s %8s %8s %8s %8s %8s %8s\n", "network", "ops", "kernels",
                "special", "generic", "modules", "wall s", "cpu s", "max s", "load s");
    for (const std::string &path : a.networks) {
        auto program = gpuProgram(path, a.cases);
        if (!program) {
            std::fprintf(stderr, "jt_kernels: %s\n", program.error().str().c_str());
            return 1;
        }
        cuda::TensorKernelOptions kernels;
        kernels.genericMaxWork = a.genericMaxWork;
        const cuda::TensorModuleSources sources =
            cuda::tensorModuleSources(*program, kernels, a.threads, a.kernelsPerModule);
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::future<ModuleTimes>> compiled;
        for (const std::string &source : sources.modules)
            compiled.push_back(
                std::async(std::launch::async, [&] { return compileModule(a, source, device); }));
        double sum = 0, most = 0, load = 0;
        std::string failed;
        for (auto &f : compiled) {
            const ModuleTimes t = f.get();
            if (failed.empty())
                failed = t.error;
            sum += t.cpu;
            most = std::max(most, t.cpu);
            load += t.loadS;
        }
        const double wall = msSince(t0) / 1000;
        if (!failed.empty()) {
            std::fprintf(stderr, "jt_kernels: %s: %s\n", path.c_str(), failed.c_str());
            return 1;
        }
        std::printf("%-12s %6zu %8zu %8zu %8zu %8zu %8.2f %8.2f %8.2f %8.2f\n",
                    std::filesystem::path(path).stem().c_str(), program->ops.size(),
                    sources.kernels, sources.kernels - sources.genericKernels,
                    sources.genericKernels, sources.modules.size(), wall, sum, most, load);
        std::fflush(stdout);
    }
    return 0;
}

} // namespace

// A whole decimal number below 2^32, or nullopt.
std::optional<uint64_t> count(const char *text) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-')
        return std::nullopt;
    return v;
}

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        const bool more = i + 1 < argc;
        std::optional<uint64_t> n;
        if ((s == "--cases" || s == "--threads" || s == "--generic-max-work" ||
             s == "--kernels-per-module") &&
            !(more && (n = count(argv[i + 1])) &&
              (s == "--generic-max-work" || *n < (1ull << 32)))) {
            std::fprintf(stderr, "jt_kernels: %s needs a whole number\n", s.c_str());
            return 2;
        }
        if (s == "--cases")
            a.cases = static_cast<uint32_t>(*n), ++i;
        else if (s == "--threads")
            a.threads = static_cast<unsigned>(*n), ++i;
        else if (s == "--generic-max-work")
            a.genericMaxWork = *n, ++i;
        else if (s == "--kernels-per-module")
            a.kernelsPerModule = *n, ++i;
        else if (s == "--load")
            a.load = true;
        else if (s == "--image" && more)
            a.image = argv[++i];
        else if (!s.empty() && s[0] == '-') {
            std::fprintf(stderr, "jt_kernels: unknown option %s\n", s.c_str());
            return 2;
        } else
            a.networks.push_back(s);
    }
    if (a.networks.empty() || a.cases == 0 || a.threads == 0 ||
        (a.image != "cubin" && a.image != "ptx" && a.image != "compute")) {
        std::fprintf(stderr, "usage: jt_kernels [--cases B] [--threads N] "
                             "[--image cubin|ptx|compute] [--generic-max-work W] "
                             "[--kernels-per-module K] [--load] NET.bif...\n");
        return 2;
    }
    return run(a);
}
