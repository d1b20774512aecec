// `zbddc stats MODEL [--schedule-level N] [--passes=...] [--no-fuse] [--time-passes] [--json]
// [--plot FILE.svg]`: the circuit's size and shape, then the schedule the passes build from it
// (level profile by op type, slots, phases, what each pass did; compiler/passes/schedule_stats.h),
// and with --plot the same as a picture (stats_plot.h).
#include "pipeline/load_model.h"
#include "pipeline/schedule_stats.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/flag_table.h"
#include "tools/zbddc/output.h"
#include "pipeline/stats_plot.h"

#include <iostream>
#include <sstream>

namespace zbddc::cli {

int statsCommand(const StatsOptions &o) {
    // The circuit's schedule flags mean nothing for the elimination routes' sizes.
    auto kind = pipeline::modelKindOf(o.model);
    const bool routeShape = !o.route.empty() || (kind && *kind == pipeline::ModelKind::CostNetwork);
    if (routeShape && (!o.plot.empty() || !o.passes.empty() || o.noFuse || o.timePasses))
        return usageError(
            "--plot, --passes, --no-fuse and --time-passes apply to a circuit's "
            "schedule, not to " +
            (o.route.empty() ? "a cost network's bucket elimination" : "--route " + o.route));
    if (routeShape) // a route's shape, not a circuit's
        return statsRouteCommand(o);
    const pipeline::ScheduleRequest request{o.scheduleLevel, o.passes, !o.noFuse};
    auto passes = pipeline::schedulePipeline(request); // a usage error, before the model is read
    if (!passes)
        return usageError(passes.error().message);
    if (!o.plot.empty() && fileExtension(o.plot) != ".svg")
        return usageError("--plot writes SVG only: give a FILE.svg, not '" + o.plot + "'");
    std::vector<Diagnostic> warnings;
    auto circuit = pipeline::readCircuit(o.model, o.modelOptions, warnings);
    printWarnings(warnings);
    if (!circuit)
        return reportError(withFlagHints(circuit.error()));
    auto stats = pipeline::circuitScheduleStats(*circuit, *passes, o.model);
    if (!stats)
        return reportError(stats.error());
    if (o.timePasses)
        printPassTimes(stats->passes, std::cerr);
    const ScheduleStats &sched = stats->schedule;
    const std::string pipelineName = request.name();
    if (!o.plot.empty()) {
        StatsPlotOptions plot;
        plot.caption = "zbddc stats " + o.model + " (" + pipelineName + ")";
        plot.afterLabel = "after " + pipelineName;
        Status written = writeFileAtomically(
            o.plot, [&](std::ostream &out) { return writeStatsSvg(sched, out, plot); });
        if (!written)
            return reportError(written.error());
    }
    const CircuitStats &s = stats->circuit;
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
