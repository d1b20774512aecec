// `zbddc run X.wcsp --devices LIST`: the flag is parsed before anything runs (a malformed list is a
// usage error naming it), bucket elimination answers as on the CPU whether the devices ran (a GPU
// is here) or not (the note says the CPU ran), and the flag is a usage error where bucket
// elimination does not run. The multi-device path itself: multi_device_test.cpp (stand-in
// devices) and multi_gpu_test.cpp (a real GPU as logical devices).
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <filesystem>

using zbddc::testing::runZbddc;

TEST_CASE("run --devices: answers as the CPU, malformed lists are usage errors", "[cli][devices]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/example.wcsp";
    if (!std::filesystem::exists(path)) {
        WARN("skipped: " << path << " is absent");
        return;
    }
    const auto cpu = runZbddc("run '" + path + "' --task mpe --device cpu");
    REQUIRE(cpu.exitCode == 0);
    const auto devices = runZbddc("run '" + path + "' --task mpe --devices 0,0 --json");
    REQUIRE(devices.exitCode == 0);
    const auto cost = [](const std::string &json) { return json.substr(json.find("\"cost\"")); };
    const auto cpuJson = runZbddc("run '" + path + "' --task mpe --device cpu --json");
    CHECK(cost(devices.out).substr(0, 20) == cost(cpuJson.out).substr(0, 20));
    const bool ranDevices = devices.out.find("2 devices 0,0") != std::string::npos;
    const bool ranCpu = devices.out.find("\"device\": \"cpu\"") != std::string::npos;
    CHECK((ranDevices || ranCpu));

    for (const char *bad : {"x", "0", "1,,2", "-1"}) {
        const auto r = runZbddc("run '" + path + "' --devices " + bad);
        CHECK(r.exitCode == 2);
        CHECK(r.err.find(std::string("--devices ") + bad + ":") != std::string::npos);
    }
    const auto mlf = runZbddc("run '" + std::string(ZBDDC_SOURCE_DIR) +
                              "/examples/wetgrass.zdd' --devices 2");
    CHECK(mlf.exitCode == 2);
}
