// A junction-tree model alternating tasks keeps one prepared program per task: checked through
// JunctionTreeRunInfo::reusedProgram on the batched route (the reference interpreter's, the GPU's).
#pragma once

#include "runtime/junction_tree/junction_tree_model.h"

#include "tests/catch.hpp"

#include <vector>

namespace zbddc::testing {

// PR, MAR, MPE, then PR, MAR, MPE again on `cases`: the first round prepares each task's program,
// the second finds each kept and answers exactly as the first did.
inline void checkTasksReusePrograms(JunctionTreeModel &model, std::span<const Evidence> cases) {
    const Task tasks[] = {Task::Pr, Task::Mar, Task::Mpe};
    std::vector<std::vector<Result<TaskResult>>> first;
    for (int round = 0; round < 2; ++round)
        for (size_t t = 0; t < 3; ++t) {
            INFO("round " << round << ", " << taskName(tasks[t]));
            JunctionTreeRunInfo info;
            auto results = model.run(tasks[t], cases, &info);
            REQUIRE(results.size() == cases.size());
            CHECK(info.reusedProgram == (round == 1));
            if (round == 0) {
                first.push_back(std::move(results));
                continue;
            }
            for (size_t i = 0; i < cases.size(); ++i) {
                REQUIRE(results[i].ok() == first[t][i].ok());
                if (!results[i])
                    continue;
                CHECK(results[i]->log10 == first[t][i]->log10);
                CHECK(results[i]->marginals == first[t][i]->marginals);
                CHECK(results[i]->assignment == first[t][i]->assignment);
            }
        }
}

} // namespace zbddc::testing
