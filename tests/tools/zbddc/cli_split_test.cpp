// `zbddc run X.wcsp --device split [--split-threshold N]`: on a machine without a GPU it runs on
// the CPU and says so (a missing GPU is not an error), with the CPU path's answer; the flag is a
// usage error where bucket elimination does not run. The split itself is tested in
// host_device_split_test.cpp (stand-in device) and split_gpu_test.cpp (a real GPU).
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <filesystem>

using zbddc::testing::runZbddc;

TEST_CASE("run --device split answers as --device cpu", "[cli][split]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/example.wcsp";
    REQUIRE(std::filesystem::exists(path));
    const auto cpu = runZbddc("run '" + path + "' --task mpe --device cpu");
    const auto split =
        runZbddc("run '" + path + "' --task mpe --device split --split-threshold 64");
    REQUIRE(cpu.exitCode == 0);
    REQUIRE(split.exitCode == 0);
    CHECK(split.err.substr(split.err.find("cost ")) == cpu.err.substr(cpu.err.find("cost ")));
    // Either the split ran (a GPU is here) or the CPU did and the note says so.
    const auto json =
        runZbddc("run '" + path + "' --task mpe --device split --split-threshold 64 --json");
    REQUIRE(json.exitCode == 0);
    const bool ranSplit =
        json.out.find("\"device\": \"split (threshold 64 entries") != std::string::npos;
    const bool saidCpu = json.out.find("\"device\": \"cpu\"") != std::string::npos &&
                         json.err.find("ran on the CPU") != std::string::npos;
    CHECK((ranSplit || saidCpu));
    const auto mlf = runZbddc("run '" + std::string(ZBDDC_SOURCE_DIR) +
                              "/examples/wetgrass.zdd' --device split");
    CHECK(mlf.exitCode == 2);
}
