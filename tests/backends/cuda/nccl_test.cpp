// NCCL loaded at run time without a GPU: where the library is on the loader's path (the CUDA 13
// toolkit ships one) it loads and names its version, and a communicator asked for without a GPU
// fails with NCCL's own reason instead of crashing; where ZBDDC_NCCL names a missing file, every
// entry point says why NCCL is absent. The transfers themselves: multi_gpu_test.cpp on a GPU.
#include "backends/cuda/driver.h"
#include "backends/cuda/nccl.h"
#include "support/gpu_settings.h"

#include "tests/catch.hpp"

#include <cstdlib>
#include <regex>
#include <sys/wait.h>
#include <unistd.h>

using namespace zbddc::cuda;

TEST_CASE("NCCL: loads and names its version, or says why not", "[cuda][nccl]") {
    if (zbddc::Status s = ncclAvailable(); !s) {
        CHECK(s.error().message.find("ZBDDC_NCCL") != std::string::npos);
        CHECK(ncclVersion().empty());
        return;
    }
    CHECK(std::regex_match(ncclVersion(), std::regex("2\\.[0-9]+\\.[0-9]+")));
    if (!cudaAvailable()) {
        const int ordinal = 0;
        auto comms = NcclComms::open(std::span<const int>(&ordinal, 1));
        REQUIRE_FALSE(comms.ok());
        CHECK(comms.error().message.rfind("ncclCommInitAll failed: ", 0) == 0);
    }
}

// Run by the next test in a process of its own (NCCL is loaded once per process).
TEST_CASE("NCCL: in a process whose ZBDDC_NCCL names a missing library", "[.nccl-missing]") {
    const char *path = std::getenv("ZBDDC_NCCL");
    REQUIRE(path);
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // this process's edge
    const zbddc::Status s = ncclAvailable();
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().message.find(std::string("cannot load ") + path) != std::string::npos);
    const int ordinal = 0;
    auto comms = NcclComms::open(std::span<const int>(&ordinal, 1));
    REQUIRE_FALSE(comms.ok());
    CHECK(comms.error().message == s.error().message);
    CHECK(ncclVersion().empty());
}

TEST_CASE("NCCL: ZBDDC_NCCL naming a missing library is a reason, not a crash", "[cuda][nccl]") {
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        setenv("ZBDDC_NCCL", "/nonexistent/libnccl.so.2", 1);
        execl("/proc/self/exe", "test_cuda_codegen", "[.nccl-missing]",
              static_cast<char *>(nullptr));
        _exit(127);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
