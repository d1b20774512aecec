// `zbddc run X.wcsp --devices LIST`: the flag is parsed before anything runs (a malformed list is a
// usage error naming it), bucket elimination answers as on the CPU whether the devices ran (a GPU
// is here) or not (the note says the CPU ran); circuits (MLF) and the junction-tree route answer
// as the CPU does, their cases split over the devices where a GPU is. The multi-device path itself:
// multi_device_test.cpp (stand-in devices) and multi_gpu_test.cpp (a real GPU as logical devices).
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

using zbddc::testing::runZbddc;

namespace {
// The same answer printed, numbers equal to 1e-9 relative (a GPU's sums may round otherwise).
void checkSameAnswer(const std::string &a, const std::string &b) {
    std::istringstream x(a), y(b);
    std::string s, t;
    size_t words = 0;
    while (x >> s) {
        REQUIRE(y >> t);
        ++words;
        char *endS = nullptr, *endT = nullptr;
        const double u = std::strtod(s.c_str(), &endS), v = std::strtod(t.c_str(), &endT);
        if (*endS == 0 && *endT == 0 && endS != s.c_str())
            CHECK(u == Approx(v).epsilon(1e-9));
        else
            CHECK(s == t);
    }
    CHECK_FALSE(y >> t);
    CHECK(words > 0);
}
} // namespace

TEST_CASE("run --devices: answers as the CPU, malformed lists are usage errors", "[cli][devices]") {
    const std::string path = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp/example.wcsp";
    REQUIRE(std::filesystem::exists(path));
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
}

TEST_CASE("run --devices on circuits and networks answers as the CPU does", "[cli][devices]") {
    const std::string zdd = "'" + std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd'";
    const auto cpu = runZbddc("run " + zdd + " --task pr --device cpu");
    const auto spread = runZbddc("run " + zdd + " --task pr --devices 0,0");
    REQUIRE(cpu.exitCode == 0);
    REQUIRE(spread.exitCode == 0);
    checkSameAnswer(spread.out, cpu.out);
    const auto bad = runZbddc("run " + zdd + " --devices 1,x");
    CHECK(bad.exitCode == 2);
    const std::string bif = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/asia.bif";
    if (!std::filesystem::exists(bif))
        return;
    const auto jtCpu = runZbddc("run '" + bif + "' --route jt --task pr --device cpu");
    const auto jt = runZbddc("run '" + bif + "' --route jt --task pr --devices 0,0");
    REQUIRE(jt.exitCode == 0);
    checkSameAnswer(jt.out, jtCpu.out);
}
