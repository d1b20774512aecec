// `--devices` parsed and resolved against a machine's GPUs (errors name what exists, a list may
// repeat a GPU for logical devices), and batches of cases split evenly over devices.
#include "runtime/device_list.h"

#include "tests/catch.hpp"

#include <algorithm>
#include <cstdint>

using namespace zbddc;

TEST_CASE("--devices: all, a count, a list with repeats; errors name the GPUs there are",
          "[runtime][devices]") {
    const std::vector<std::string> two = {"NVIDIA H200 (sm_90)", "NVIDIA H200 (sm_90)"};
    const std::vector<std::string> one = {"NVIDIA H100 80GB HBM3 (sm_90)"};
    auto resolve = [](std::string_view text, std::span<const std::string> gpus) {
        auto r = parseDeviceRequest(text);
        REQUIRE(r.ok());
        return resolveDevices(*r, gpus);
    };
    CHECK(*resolve("all", two) == std::vector<int>{0, 1});
    CHECK(*resolve("2", two) == std::vector<int>{0, 1});
    CHECK(*resolve("1", one) == std::vector<int>{0});
    CHECK(*resolve("1,0", two) == std::vector<int>{1, 0});
    CHECK(*resolve("0,0,0", one) == std::vector<int>{0, 0, 0});
    CHECK(distinctGpus(std::vector<int>{0, 0, 1}) == 2);

    auto three = resolve("3", one);
    REQUIRE_FALSE(three.ok());
    CHECK(three.error().message ==
          "--devices 3: 3 GPUs asked for, this machine has 1 GPU: 0 NVIDIA H100 80GB HBM3 (sm_90) "
          "(a list such as 0,0 runs several logical devices on one GPU)");
    auto missing = resolve("0,2", two);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message == "--devices 0,2: no GPU 2; this machine has 2 GPUs: "
                                     "0 NVIDIA H200 (sm_90), 1 NVIDIA H200 (sm_90)");
    auto none = resolve("all", {});
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().message == "--devices all: this machine has no usable GPU");

    // Batched evaluation: cases split evenly, in order, sizes differing by one at most.
    for (size_t cases : {0, 1, 2, 7, 1000, 1001})
        for (size_t devices : {1, 2, 3, 4}) {
            const std::vector<CaseRange> r = splitCasesEvenly(cases, devices);
            REQUIRE(r.size() == devices);
            size_t next = 0, least = SIZE_MAX, most = 0;
            for (const CaseRange &c : r) {
                CHECK(c.first == next);
                next += c.count;
                least = std::min(least, c.count);
                most = std::max(most, c.count);
            }
            CHECK(next == cases);
            CHECK(most - least <= 1);
        }

    for (const char *bad : {"", "0", "x", "1,", ",1", "1,,2", "-1", "2x", "99999"}) {
        INFO(bad);
        auto r = parseDeviceRequest(bad);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message.rfind("--devices ", 0) == 0);
    }
}
