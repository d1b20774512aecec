// One case's answer read from a lowered junction tree's tables once they are computed: log P(e)
// from the root's scaled normaliser and the collect scales, MAR's posteriors from the marginal
// tables, MPE's assignment traced back over the collect ops. Shared by the batched route (case b
// of a run) and the per-case route (a program of its own per case, b = 0).
#pragma once

#include "compiler/junction_tree/junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "runtime/evidence.h"
#include "runtime/tasks.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace zbddc {

// A case observing a variable in two states (kContradicted).
bool evidenceContradicted(const Evidence &ev);
// Its answer, without running anything: P(e) = 0 for PR, an error for MAR and MPE.
Result<TaskResult> contradictedEvidenceAnswer(Task task);

// log P(e) (or log max_x P(x, e)) of case b: the root's scaled value with the scales undone;
// -inf where the evidence is impossible.
double junctionTreeLogNormaliser(const JunctionTreeProgram &jt,
                                 const std::vector<std::vector<double>> &computed, uint32_t b);

// `decoded`: case b's MPE assignment where the executor traced it back, else null and
// recoverAssignment runs here; `decodedTied`: whether the executor's walk met a tie (the
// answer's mpeTied), unset where it cannot tell. A case with P(e) = 0 fails for MAR and MPE.
Result<TaskResult> junctionTreeAnswer(Task task, const JunctionTree &tree,
                                      const JunctionTreeProgram &jt,
                                      const std::vector<std::vector<double>> &computed, uint32_t b,
                                      const Evidence &ev, const uint32_t *decoded = nullptr,
                                      std::optional<bool> decodedTied = std::nullopt);

} // namespace zbddc
