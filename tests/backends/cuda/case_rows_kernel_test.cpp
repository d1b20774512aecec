// The device-resident pass's two kernels (backends/cuda/case_rows_kernel.inc) compiled as host
// C++ (tests/support/cuda_host_shim.h), at 5 lanes over a grid too small for one item per thread:
// vector-major values go into the rows of their slots (the lanes past the batch repeating its
// first vector, the log taken in log space) and nothing else is written; the rows come back
// into vector-major values, the batch's lanes alone, the values put in (their logs in log space).
#include "tests/catch.hpp"
#include "tests/support/cuda_host_shim.h"

#include <cmath>
#include <limits>
#include <vector>

namespace rows_emu {
using namespace zbddc::testing::cuda_host;
typedef unsigned long long u64;
typedef double T;
template <class V> V __ldg(const V *p) {
    return *p;
}
inline thread_local bool logInputs = false;
#define ZB_B 5u
#define ZB_LOG_INPUTS logInputs
#define ZB_CASE_ROWS_KERNEL(...) __VA_ARGS__
#include "backends/cuda/case_rows_kernel.inc"
#undef ZB_CASE_ROWS_KERNEL
} // namespace rows_emu

using zbddc::testing::cuda_host::launch;

namespace {

constexpr unsigned kLanes = ZB_B;
const double kUnset = std::numeric_limits<double>::quiet_NaN();

} // namespace

TEST_CASE("a batch's vector-major values go into their slots' rows and come back", "[cuda]") {
    // 3 vectors (of 5 lanes) of 4 values, into slots 7, 2, 5 and 0 of 8.
    const unsigned width = 4, count = 3, slots = 8;
    const std::vector<unsigned> slotOf = {7, 2, 5, 0};
    std::vector<double> cases(count * width);
    for (size_t i = 0; i < cases.size(); ++i)
        cases[i] = 0.25 + 0.5 * static_cast<double>(i);
    for (bool logs : {false, true}) {
        INFO((logs ? "log space" : "linear"));
        rows_emu::logInputs = logs;
        std::vector<double> rows(slots * kLanes, kUnset);
        // 2 blocks of 3 threads for 20 items: each thread strides over several.
        launch(2, 3, [&] {
            rows_emu::zb_rows_from_cases(rows.data(), cases.data(), slotOf.data(), width, count);
        });
        for (unsigned s = 0; s < slots; ++s)
            for (unsigned lane = 0; lane < kLanes; ++lane) {
                INFO("slot " << s << ", lane " << lane);
                const double got = rows[s * kLanes + lane];
                unsigned r = 0;
                while (r < width && slotOf[r] != s)
                    ++r;
                if (r == width) { // no value of the batch goes there
                    CHECK(std::isnan(got));
                    continue;
                }
                const double v = cases[(lane < count ? lane : 0) * width + r];
                CHECK(got == (logs ? std::log(v) : v));
            }
        // Back, into a longer buffer: only count × width values are written.
        std::vector<double> back(count * width + 3, kUnset);
        launch(1, 4, [&] {
            rows_emu::zb_cases_from_rows(back.data(), rows.data(), slotOf.data(), width, count);
        });
        for (size_t i = 0; i < cases.size(); ++i)
            CHECK(back[i] == (logs ? std::log(cases[i]) : cases[i]));
        for (size_t i = cases.size(); i < back.size(); ++i)
            CHECK(std::isnan(back[i]));
    }
}
