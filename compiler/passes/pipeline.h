// The scheduling pipeline: Circuit -> Schedule through a list of named passes chosen by the schedule level
// (0..3; `zbddc stats --schedule-level`)
// (or --passes=), each verified in debug builds, each timed (--time-passes).
#pragma once

#include "compiler/passes/passes.h"
#include "ir/circuit.h"
#include "ir/result.h"

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

// The pass names for the options, in the order they run (target passes in brackets: with the
// GPU's, backends/cuda/schedule/gpu_passes.h):
//   0  levelize group [partition] assign-slots-noreuse     (valid, no fusion, no reuse)
//   1  merge-seed levelize group [split-phases partition] assign-slots
//   2  merge-seed levelize justify unify-types group [split-phases partition preload] assign-slots
//   3  merge-trees levelize justify unify-types group [split-phases partition preload] assign-slots
// --no-fuse drops merge-seed and merge-trees.
Result<std::vector<std::string>> passList(const PipelineOptions &options);

// "--passes=a,b,c": the comma-separated names (validated later by passList).
std::vector<std::string> splitPassList(std::string_view commaSeparated);

// Names of every known pass (the target's included), in canonical order.
std::vector<std::string> knownPasses(const PipelineOptions &options);

// Lowers the circuit and runs the pass list. With `stats`, one PassStats per pass (lowering
// first). Fails on an unknown pass, passes out of canonical order, or a schedule the verifier
// rejects (a bug, reported rather than hidden).
Result<Schedule> buildSchedule(const Circuit &circuit, const PipelineOptions &options,
                               std::vector<PassStats> *stats = nullptr);

// --time-passes: one line per pass with wall time and resident memory, then the total.
void printPassTimes(const std::vector<PassStats> &stats, std::ostream &out);

} // namespace zbddc
