// libLLVM (through the CPU backend's LLVM module), libnvrtc and libmpi (through DPOP's MPI module)
// are loaded on first use, not linked: one case answered on the junction tree maps none, as
// /proc/self/maps of this process shows, while a run that JIT-compiles maps libLLVM, an NVRTC
// compile maps libnvrtc and DPOP's MPI functions map libmpi. Fails if any is linked again (it
// would be mapped from the start). Its own executable, so that nothing else has run in the
// process before the first check.
#include "backends/cuda/nvrtc.h"
#include "pipeline/pipeline.h"
#include "runtime/dpop/solve_dpop.h"
#ifdef ZBDDC_HAVE_MPI
#include "runtime/dpop/mpi_module.h"
#endif

#include "tests/catch.hpp"
#include "tests/support/bn_brute_force.h"

#include <fstream>
#include <random>

using namespace zbddc;
using namespace zbddc::pipeline;

namespace {

bool mapped(const std::string &library) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
        if (line.find(library) != std::string::npos)
            return true;
    return false;
}

// One case through Session on `route`, checked against brute force.
void answerOneCase(const BayesNet &net, const char *route, CircuitOptions::CpuCode code) {
    OpenOptions options;
    options.route = route;
    options.target.device = DeviceKind::Cpu;
    options.circuit.cpuCode = code;
    auto session = Session::open(modelFileOf(net, "random"), options);
    REQUIRE(session);
    REQUIRE((*session)->route() == route);
    std::vector<int> observed(net.variables.size(), -1);
    observed[0] = 1;
    Evidence evidence;
    for (int s : observed)
        evidence.states.push_back(s < 0 ? kNone : static_cast<uint32_t>(s));
    const auto mar = (*session)->answer(Task::Mar, std::vector<Evidence>{evidence});
    REQUIRE(mar.size() == 1);
    REQUIRE(mar[0]);
    const testing::BruteForceAnswers oracle = testing::bruteForceQueries(net, observed);
    for (size_t v = 0; v < net.variables.size(); ++v)
        for (size_t s = 0; s < net.variables[v].states.size(); ++s)
            CHECK(mar[0]->marginals[v][s] == Approx(oracle.marginals[v][s]).margin(1e-9));
}

} // namespace

TEST_CASE("a junction-tree case maps neither libLLVM nor libnvrtc; a JIT and an NVRTC compile "
          "load them",
          "[pipeline][lazy]") {
    std::mt19937 rng(11);
    const BayesNet net = testing::randomBayesNet(rng, 6);

    answerOneCase(net, "jt", CircuitOptions::CpuCode::Auto);
    CHECK_FALSE(mapped("libLLVM"));
    CHECK_FALSE(mapped("libzbddc_llvm"));
    CHECK_FALSE(mapped("libnvrtc"));

    // The check sees a library once it is there: the MLF on LLVM-JIT code loads the module.
    answerOneCase(net, "mlf", CircuitOptions::CpuCode::Jit);
    CHECK(mapped("libzbddc_llvm"));
    CHECK(mapped("libLLVM"));
    CHECK_FALSE(mapped("libnvrtc"));

#ifdef ZBDDC_HAVE_CUDA_BACKEND
    cuda::NvrtcOptions nvrtc;
    nvrtc.useCache = false;
    auto ptx = cuda::compileToPtx("extern \"C\" __global__ void k(float *x) { x[0] = 1; }",
                                  "lazy.cu", nvrtc);
    REQUIRE(ptx);
    CHECK(ptx->ptx.find(".entry k") != std::string::npos);
    CHECK(mapped("libnvrtc"));
#endif
}

TEST_CASE("DPOP's MPI code is linked, and libmpi mapped only once a distributed run loads it",
          "[pipeline][lazy][dpop]") {
    CHECK_FALSE(distributedRunAvailable()); // this process was not started by mpirun
    CHECK_FALSE(solveDpop(CostNetwork{}, DpopOptions{}));
    CHECK_FALSE(mapped("libmpi"));
    CHECK_FALSE(mapped("libzbddc_mpi"));
    abortDistributedRun(3); // nothing loaded: returns
#ifdef ZBDDC_HAVE_MPI
    auto mpi = mpiFunctions();
    REQUIRE(mpi);
    CHECK(mapped("libzbddc_mpi"));
    CHECK(mapped("libmpi"));
    CHECK_FALSE((*mpi)->running());
#endif
}
