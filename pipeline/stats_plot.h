// Pictures of a schedule for `zbddc stats --plot FILE.svg`: one dependency-free SVG with three
// panels drawn from ScheduleStats — ops per level stacked by type before any pass (the circuit's
// ASAP levels, typeA/typeB/plus: Minato et al. 2011 Figure 1), the same after the pipeline (the
// merged types: its Figure 4), and the parents histogram (its Figure 2).
#pragma once

#include "compiler/passes/schedule_stats.h"

#include <cstddef>
#include <iosfwd>
#include <string>

namespace zbddc {

struct StatsPlotOptions {
    std::string caption;          // first line of the picture, e.g. the model and the command
    std::string afterLabel = "after the passes"; // names the pipeline in the second panel
    size_t maxBars = 300;         // more levels than this are summed into bins of equal width
};

// Writes the SVG document; returns false where the stream failed.
bool writeStatsSvg(const ScheduleStats &stats, std::ostream &out, const StatsPlotOptions &options);

} // namespace zbddc
