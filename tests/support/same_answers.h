// Two batches of task answers case by case: the same cases answered (the same errors for the
// rest), and values, log10s, marginals within `rel` (testing::close); assignments equal where
// `sameAssignments` (one backend's two paths: ties broken alike), device notes where
// `sameDevice`. The asynchronous tasks' tests compare them with runTasks' and the reference's.
#pragma once

#include "runtime/tasks.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"

#include <vector>

namespace zbddc::testing {

struct Sameness {
    double rel = 0; // 0: bit for bit
    bool sameAssignments = true;
    bool sameDevice = true;
};

inline void checkSameAnswers(const std::vector<Result<TaskResult>> &want,
                             const std::vector<Result<TaskResult>> &got, Sameness same = {}) {
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        INFO("case " << i
                     << (want[i] ? "" : " (expected the error: " + want[i].error().message + ")"));
        REQUIRE(got[i].ok() == want[i].ok());
        if (!want[i]) {
            CHECK(got[i].error().message == want[i].error().message);
            continue;
        }
        const TaskResult &w = *want[i], &g = *got[i];
        CHECK(g.task == w.task);
        CHECK(g.numeric == w.numeric);
        CHECK(close(g.value, w.value, same.rel));
        CHECK(close(g.log10, w.log10, same.rel));
        REQUIRE(g.marginals.size() == w.marginals.size());
        for (size_t v = 0; v < w.marginals.size(); ++v) {
            INFO("variable " << v);
            REQUIRE(g.marginals[v].size() == w.marginals[v].size());
            for (size_t s = 0; s < w.marginals[v].size(); ++s)
                CHECK(close(g.marginals[v][s], w.marginals[v][s], same.rel));
        }
        if (same.sameAssignments)
            CHECK(g.assignment == w.assignment);
        if (same.sameDevice)
            CHECK(g.device.label() == w.device.label());
    }
}

} // namespace zbddc::testing
