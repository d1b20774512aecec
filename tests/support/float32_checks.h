// The check shared by the CPU (reference emulation) and GPU tests of float32 and log32 answers:
// every answer given in float32 is within its stated bound of the float64 reference.
#pragma once

#include "runtime/float32_bound.h"
#include "runtime/tasks.h"

#include "tests/catch.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace zbddc::testing {

struct Observed {
    size_t bounded = 0, elsewhere = 0;
    double worstValue = 0, worstMarginal = 0; // observed relative errors
    double largestBound = 0;
};

// Every case of `cases` in `mode` beside float64: an answer with a bound is within it; one without
// was answered in float64 or log and says so.
inline Observed checkWithinBound(Model &m, Task task, const std::vector<Evidence> &cases,
                          NumericChoice mode) {
    const auto got = runTasks(m, task, cases, {mode, {}});
    const auto want = runTasks(m, task, cases, {NumericChoice::Auto, {}});
    REQUIRE(got.size() == cases.size());
    Observed seen;
    for (size_t k = 0; k < cases.size(); ++k) {
        INFO("case " << k);
        REQUIRE(got[k].ok() == want[k].ok());
        if (!want[k])
            continue;
        if (!got[k]->errorBound) {
            CHECK_THAT(got[k]->device.label(), Catch::Contains("answered in"));
            CHECK(got[k]->log10 == Approx(want[k]->log10).epsilon(1e-12));
            ++seen.elsewhere;
            continue;
        }
        ++seen.bounded;
        const ErrorBound &b = *got[k]->errorBound;
        CHECK(b.value <= kFloat32MaxError);
        const double pe = want[k]->value;
        if (pe > 0) { // beyond double's range the log's bound is checked instead
            const double rel = std::fabs(got[k]->value - pe) / pe;
            CHECK(rel <= b.value);
            seen.worstValue = std::max(seen.worstValue, rel);
        }
        const double logErr = std::fabs(got[k]->log10 - want[k]->log10) * std::log(10.0);
        CHECK(logErr <= b.logAbsolute * (1 + 1e-9) + 1e-12);
        seen.largestBound = std::max(seen.largestBound, b.value);
        if (task != Task::Mar)
            continue;
        CHECK(b.marginals <= kFloat32MaxError);
        for (size_t v = 0; v < want[k]->marginals.size(); ++v)
            for (size_t s = 0; s < want[k]->marginals[v].size(); ++s) {
                const double p = want[k]->marginals[v][s], q = got[k]->marginals[v][s];
                // The float64 side (ratios, sums of a few indicators) adds about 1e-15.
                CHECK(std::fabs(q - p) <= b.marginals * p + 1e-14);
                if (p > 0)
                    seen.worstMarginal = std::max(seen.worstMarginal, std::fabs(q - p) / p);
            }
        seen.largestBound = std::max(seen.largestBound, b.marginals);
    }
    return seen;
}

} // namespace zbddc::testing
