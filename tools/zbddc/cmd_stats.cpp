// `zbddc stats MODEL [--schedule-level N] [--passes=...] [--no-fuse] [--time-passes] [--json]
// [--plot FILE.svg]`: the circuit's size and shape, then the schedule the passes build from it
// (level profile by op type, slots, phases, what each pass did; compiler/passes/schedule_stats.h),
// and with --plot the same as a picture (stats_plot.h).
#include "tools/zbddc/commands.h"
#include "tools/zbddc/stats_plot.h"
#include "tools/zbddc/output.h"
#include "pipeline/load_model.h"
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/schedule_stats.h"
#include "ir/circuit_stats.h"

#include <iostream>
#include <sstream>

namespace zbddc::cli {

int statsCommand(const StatsOptions &o) {
    // The circuit's schedule flags mean nothing for the elimination routes' sizes.
    const bool circuitRoute = o.route.empty() && !isCostNetworkFile(o.model);
    if (!circuitRoute && (!o.plot.empty() || !o.passes.empty() || o.noFuse || o.timePasses)) {
        std::cerr << "zbddc: --plot, --passes, --no-fuse and --time-passes apply to a circuit's "
                     "schedule, not to "
                  << (o.route.empty() ? "a cost network's bucket elimination" : "--route " + o.route)
                  << "\n";
        return 2;
    }
    if (!o.route.empty() || isCostNetworkFile(o.model)) // a route's shape, not a circuit's
        return statsRouteCommand(o);
    PipelineOptions pipeline = withGpuPasses({});
    pipeline.level = o.scheduleLevel;
    pipeline.fuse = !o.noFuse;
    if (!o.passes.empty())
        pipeline.passes = splitPassList(o.passes);
    // A bad pass list is a usage error, found before the model is read.
    if (auto list = passList(pipeline); !list) {
        std::cerr << "zbddc: " << list.error().message << " (known passes:";
        for (const std::string &p : knownPasses(pipeline))
            std::cerr << " " << p;
        std::cerr << ")\n";
        return 2;
    }
    if (!o.plot.empty() && fileExtension(o.plot) != ".svg") {
        std::cerr << "zbddc: --plot writes SVG only: give a FILE.svg, not '" << o.plot << "'\n";
        return 2;
    }
    auto circuit = o.modelOptions.loadCircuit(o.model);
    if (!circuit)
        return reportError(circuit.error());
    std::vector<PassStats> passStats;
    auto schedule = buildSchedule(*circuit, pipeline, &passStats);
    if (!schedule)
        return reportError(errorAt(o.model, 0, schedule.error().message));
    if (o.timePasses)
        printPassTimes(passStats, std::cerr);
    const ScheduleStats sched = computeStats(*circuit, *schedule, passStats);

    const std::string pipelineName =
        (o.passes.empty() ? "level " + std::to_string(o.scheduleLevel) : "--passes=" + o.passes) +
        (o.noFuse ? ", --no-fuse" : "");
    if (!o.plot.empty()) {
        StatsPlotOptions plot;
        plot.caption = "zbddc stats " + o.model + " (" + pipelineName + ")";
        plot.afterLabel = "after " + pipelineName;
        Status written = writeFileAtomically(
            o.plot, [&](std::ostream &out) { return writeStatsSvg(sched, out, plot); });
        if (!written)
            return reportError(written.error());
    }

    const CircuitStats s = circuitStats(*circuit);
    const std::pair<const char *, uint64_t> rows[] = {
        {"nodes", s.nodes},   {"ops", s.ops},         {"typeA", s.typeA},
        {"typeB", s.typeB},   {"plus", s.plus},       {"inputs", s.inputs},
        {"outputs", s.outputs}, {"levels", s.levels},
    };
    if (o.json) {
        std::cout << "{\"model\":" << jsonString(o.model);
        for (auto [name, value] : rows)
            std::cout << ",\"" << name << "\":" << value;
        std::ostringstream js;
        writeStatsJson(sched, js);
        std::string scheduleJson = js.str();
        while (!scheduleJson.empty() && (scheduleJson.back() == '\n' || scheduleJson.back() == ' '))
            scheduleJson.pop_back();
        std::cout << ",\"schedule\":" << scheduleJson << "}\n";
    } else {
        for (auto [name, value] : rows)
            std::cout << name << ": " << value << "\n";
        std::cout << "\nschedule (" << pipelineName << "):\n";
        writeStatsText(sched, std::cout);
    }
    return 0;
}

} // namespace zbddc::cli
