#include "pipeline/schedule_stats.h"

#include "backends/cuda/schedule/gpu_passes.h"

namespace zbddc::pipeline {

std::string ScheduleRequest::name() const {
    return (passes.empty() ? "level " + std::to_string(level) : "--passes=" + passes) +
           (fuse ? "" : ", --no-fuse");
}

Result<PipelineOptions> schedulePipeline(const ScheduleRequest &request) {
    PipelineOptions options = withGpuPasses({});
    options.level = request.level;
    options.fuse = request.fuse;
    if (!request.passes.empty())
        options.passes = splitPassList(request.passes);
    if (auto list = passList(options); !list) {
        std::string known;
        for (const std::string &p : knownPasses(options))
            known += " " + p;
        return error(list.error().message + " (known passes:" + known + ")");
    }
    return options;
}

Result<CircuitScheduleStats> circuitScheduleStats(const Circuit &circuit,
                                                  const PipelineOptions &passes,
                                                  const std::string &path) {
    CircuitScheduleStats out;
    auto schedule = buildSchedule(circuit, passes, &out.passes);
    if (!schedule)
        return errorAt(path, 0, schedule.error().message);
    out.schedule = computeStats(circuit, *schedule, out.passes);
    out.circuit = circuitStats(circuit);
    return out;
}

} // namespace zbddc::pipeline
