// NVRTC's share of a junction tree's first GPU run, measured without a GPU: the program the GPU
// route compiles (every variable observed, the case index fastest, wide reductions split, as
// JunctionTreeModel and CudaPreparedProgram build it) for a batch of B cases, its distinct kernels
// (specialised and generic), the modules they make, and the NVRTC seconds to compile them on
// --threads threads as TensorModules does (one module per thread): wall seconds, and CPU seconds
// summed over the modules (the figure that does not depend on what else runs on the machine). The
// driver's load (and its JIT of PTX) is not here: it needs a GPU.
//   jt_kernels [--cases B] [--threads N] [--image cubin|ptx|compute] [--generic-max-work W]
//              [--kernels-per-module K] NET.bif...
// --image: cubin (what the GPU route compiles for an sm_90 device), ptx (PTX for sm_90, as it
// compiled before: NVRTC assembles SASS either way), compute (PTX for compute_90: NVRTC's front end
// and optimiser without the assembler, the split of the time between them). --kernels-per-module:
// the fewest kernels a module gets (tensor_module_sources.h; 64 before generic kernels). "max s" is
// the costliest module's CPU seconds: the wall time where every module has a core of its own.
#include "backends/cuda/nvrtc.h"
#include "backends/tensor/cuda/split_reductions.h"
#include "backends/tensor/cuda/tensor_module_sources.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/moral_graph.h"
#include "compiler/junction_tree/order_search.h"
#include "support/timer.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

using namespace zbddc;

namespace {

struct Args {
    uint32_t cases = 700;
    unsigned threads = 2;
    std::string image = "cubin";
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

int run(const Args &a) {
    std::printf("%-12s %6s %8s %8s %8s %8s %8s %8s %8s\n", "network", "ops", "kernels", "special",
                "generic", "modules", "wall s", "cpu s", "max s");
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
        cuda::NvrtcOptions nvrtc;
        nvrtc.arch = a.image == "compute" ? "compute_90" : "sm_90";
        nvrtc.useCache = false;
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<std::future<std::pair<bool, double>>> compiled;
        for (const std::string &source : sources.modules)
            compiled.push_back(std::async(std::launch::async, [&] {
                const double t = threadCpuSeconds();
                const bool ok = a.image == "cubin"
                                    ? cuda::compileForArch(source, "jt.cu", nvrtc).ok()
                                    : cuda::compileToPtx(source, "jt.cu", nvrtc).ok();
                return std::make_pair(ok, threadCpuSeconds() - t);
            }));
        double sum = 0, most = 0;
        bool ok = true;
        for (auto &f : compiled) {
            const auto [good, s] = f.get();
            ok = ok && good;
            sum += s;
            most = std::max(most, s);
        }
        const double wall = msSince(t0) / 1000;
        if (!ok) {
            std::fprintf(stderr, "jt_kernels: %s: NVRTC failed\n", path.c_str());
            return 1;
        }
        std::printf("%-12s %6zu %8zu %8zu %8zu %8zu %8.2f %8.2f %8.2f\n",
                    std::filesystem::path(path).stem().c_str(), program->ops.size(),
                    sources.kernels, sources.kernels - sources.genericKernels,
                    sources.genericKernels, sources.modules.size(), wall, sum, most);
        std::fflush(stdout);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        const bool more = i + 1 < argc;
        if (s == "--cases" && more)
            a.cases = static_cast<uint32_t>(std::stoul(argv[++i]));
        else if (s == "--threads" && more)
            a.threads = static_cast<unsigned>(std::stoul(argv[++i]));
        else if (s == "--generic-max-work" && more)
            a.genericMaxWork = std::stoull(argv[++i]);
        else if (s == "--kernels-per-module" && more)
            a.kernelsPerModule = std::stoul(argv[++i]);
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
                             "[--kernels-per-module K] NET.bif...\n");
        return 2;
    }
    return run(a);
}
