// `stats` of a circuit: its size and shape, and the schedule the passes build from it with the
// GPU's passes among them (compiler/passes/schedule_stats.h), the pass list named by a level or
// given whole. Data; the command line prints it as lines, JSON or a picture.
#pragma once

#include "compiler/passes/pipeline.h"
#include "compiler/passes/schedule_stats.h"
#include "ir/circuit_stats.h"

#include <string>
#include <vector>

namespace zbddc::pipeline {

struct ScheduleRequest {
    int level = 2;            // --schedule-level 0..3
    std::string passes;       // "a,b,c" in place of the level's list; "" the level's
    bool fuse = true;         // false: the op-merging passes left out
    std::string name() const; // "level 2", "--passes=a,b" (", --no-fuse")
};

// The passes the request runs; an unknown name is an error listing the known ones.
Result<PipelineOptions> schedulePipeline(const ScheduleRequest &request);

struct CircuitScheduleStats {
    CircuitStats circuit;
    ScheduleStats schedule;
    std::vector<PassStats> passes; // each pass's time and memory
};
// `path` names a failed schedule's error.
Result<CircuitScheduleStats> circuitScheduleStats(const Circuit &circuit,
                                                  const PipelineOptions &passes,
                                                  const std::string &path);

} // namespace zbddc::pipeline
