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

// Entries an executor walks running `program` once: per op, its output's (Join, SliceEvidence)
// or the joint scope of its inputs (the reductions). The case variable counts as any other.
double tensorProgramWork(const TensorProgram &program);

// Which batched program a run uses, and why (for the results' device note).
struct BatchedPlanChoice {
    bool patterns = false;
    double fullEntriesPerCase = 0;    // clique entries of the full-table tree
    double patternEntriesPerCase = 0; // the cases' clique entries over unobserved variables, plus
                                      // each pattern's tree and lowering, spread over the cases
    size_t distinctPatterns = 0;      // among the cases
    std::string note() const;
};

// Clique entries per case of each plan, counted on the network's tree: the full-table tree's
// every clique whole; the pattern plan's the cases' cliques over their unobserved variables
// (unobservedCliqueEntries, what caseJunctionTree's ByCost never exceeds) plus, per distinct
// pattern, kCaseTreeGain × Σ degree² of the moral graph (evidence_tree.h's price of one
// triangulation, in entries) for its tree and lowering.
// `families`: the factors' scopes (the model's sortedScopes()).
BatchedPlanChoice chooseBatchedPlan(const JunctionTree &tree,
                                    const std::vector<std::vector<uint32_t>> &families,
                                    std::span<const Evidence> cases);

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

// The run's program. `families` and `rowsSumToOne` as the per-case route computes them once.
EvidencePatternRun buildEvidencePatternRun(const FactorModel &model, const JunctionTree &tree,
                                           const std::vector<std::vector<uint32_t>> &families,
                                           const std::vector<uint8_t> &rowsSumToOne, Task task,
                                           std::span<const Evidence> cases, CaseTree caseTree);

// Case i's answer once the run's program is computed; moves case i's tables out of `computed`.
Result<TaskResult> evidencePatternAnswer(const EvidencePatternRun &run, const JunctionTree &tree,
                                         Task task, std::vector<std::vector<double>> &computed,
                                         size_t i, const Evidence &ev);

} // namespace zbddc
