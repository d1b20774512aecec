// The batched junction tree by evidence pattern: the cases of a run grouped by the set of
// variables they observe; each group's tree triangulated without those variables and lowered with
// its CPTs sliced by the evidence before any product (caseJunctionTree and lowerJunctionTree's
// caseStates, as the CPU's per-case route does, barren CPTs left out of sum-product messages);
// then every case's copy of its group's program, its own slice values patched in, joined into
// one TensorProgram, so that a tensor executor runs the whole run in one launch sequence (the
// CUDA executor fuses a level's small ops of one kernel family into one launch).
//
// The full-table batched tree (lower_junction_tree.h with indicator tables) walks every clique's
// whole table for every case; this plan walks per case what its evidence leaves, at the price of
// a tree and a lowering per pattern and a program per run. chooseBatchedPlan weighs the two.
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/evidence_tree.h"
#include "compiler/junction_tree/junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "runtime/evidence.h"
#include "runtime/tasks.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

// Which batched program a run uses, and why (for the results' device note).
struct BatchedPlanChoice {
    bool patterns = false;
    double fullEntriesPerCase = 0;    // tensorProgramWork of the full-table tree, per case
    double patternEntriesPerCase = 0; // of the pilot cases' pattern programs, per case
    double lowerUsPerPattern = 0;     // host time of a pattern's tree, lowering and copy (pilot;
                                      // 0: none lowered)
    double fullUs = 0, patternUs = 0; // estimated time per case of each plan
    size_t distinctPatterns = 0;      // among the cases
    std::string note() const;
};

// What an entry walked and an op run cost on the executor, and the host's threads that lower the
// patterns. The GPU's entry cost is the H100's full-table tree of 2026-12-05 (985 us per case
// over 7.0e7 entries per case on barley, 128 us over 1.2e7 on water: 11-14 ps an entry); its op
// cost (one block of a fused launch) is a first estimate, not yet measured. The CPU's: this
// project's 2-core VM (2026-12-05), the full-table tree's 10 ns an entry on water, and the
// pattern programs' time beyond their entries on pigs per op (bench/jt_plan_entries).
struct PlanCosts {
    double nsPerEntry = 0.012;
    double nsPerOp = 50;
    unsigned hostThreads = 1;
    size_t pilotCases = 4; // cases whose pattern programs are lowered to count their entries
};
inline constexpr PlanCosts kGpuPlanCosts{0.012, 50, 1, 4};
inline constexpr PlanCosts kCpuPlanCosts{10, 3000, 1, 4};

// The plan of the smaller estimated time per case: the full-table tree's entries, against the
// pattern programs' entries and ops (counted on the first pilotCases cases, lowered on the host
// threads and timed) plus each distinct pattern's lowering spread over the cases and the host
// threads. No pilot where one op per clique alone costs more than the full tables.
BatchedPlanChoice chooseBatchedPlan(const FactorModel &model, const JunctionTree &tree,
                                    const std::vector<std::vector<uint32_t>> &families,
                                    const std::vector<uint8_t> &rowsSumToOne, Task task,
                                    std::span<const Evidence> cases, CaseTree caseTree,
                                    const PlanCosts &costs);

struct EvidencePatternRun {
    TensorProgram program; // every case of the run; its tables' ids are the groups' remapped
    struct Group {
        std::optional<JunctionTree> own; // the pattern's tree, or none: the network's
        JunctionTreeProgram lowered;     // its first case's program: what the answers read
        // Per table of `lowered`: its index among each case's own tables, or kNoTable for an
        // input table all the group's cases share (then sharedId holds its id in `program`).
        std::vector<uint32_t> local, sharedId;
        uint32_t perCase = 0; // tables each case owns
    };
    std::vector<Group> groups;
    // Per case of the run: its group and the id in `program` of its first own table; kNoTable
    // where the case is not in the program (contradicted evidence, or its group failed: `failed`).
    std::vector<uint32_t> groupOf, base;
    std::vector<std::optional<Diagnostic>> failed; // per case: why it is not in the program
};

// The run's program. `families` and `rowsSumToOne` as the per-case route computes them once;
// the patterns' trees and lowerings on `threads` threads (0: all).
EvidencePatternRun buildEvidencePatternRun(const FactorModel &model, const JunctionTree &tree,
                                           const std::vector<std::vector<uint32_t>> &families,
                                           const std::vector<uint8_t> &rowsSumToOne, Task task,
                                           std::span<const Evidence> cases, CaseTree caseTree,
                                           unsigned threads = 0);

// Case i's answer once the run's program is computed; moves case i's tables out of `computed`.
Result<TaskResult> evidencePatternAnswer(const EvidencePatternRun &run, const JunctionTree &tree,
                                         Task task, std::vector<std::vector<double>> &computed,
                                         size_t i, const Evidence &ev);

} // namespace zbddc
