// The target-independent scheduling passes, each in the file of its name; pipeline.cpp runs them
// in canonical order, with the target's passes (ir/pass.h) between groupByType and slot assignment.
#pragma once

#include "ir/pass.h"

namespace zbddc {

void mergeSeedTypes(Schedule &, const PipelineOptions &, PassStats &); // Minato et al. 2011 §5
void mergeTrees(Schedule &, const PipelineOptions &, PassStats &);     // deeper single-parent trees
void levelize(Schedule &, const PipelineOptions &, PassStats &);       // ASAP levels
void justifyLevels(Schedule &, const PipelineOptions &, PassStats &);  // ALAP slack, even sizes
void unifyTypes(Schedule &, const PipelineOptions &, PassStats &);     // dummy 0/1 operands
void groupByType(Schedule &, const PipelineOptions &, PassStats &);    // types together, by x
void assignSlots(Schedule &, const PipelineOptions &, PassStats &);     // contiguous, reused slots
void assignSlotsNoReuse(Schedule &, const PipelineOptions &, PassStats &);

} // namespace zbddc
