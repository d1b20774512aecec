// The CPU's junction tree one case at a time: each case lowered alone with its factors sliced by
// its evidence before any product (lowerJunctionTree's caseStates), so potentials and messages
// range over the unobserved variables only and barren CPTs leave the sum-product messages (Madsen
// and Jensen 1999), then run by the CPU tensor executor on one thread; the cases are spread over
// the threads. The batched route instead walks every clique's full table per case with 0/1
// indicators, the GPU's layout; per case this does only the work its evidence leaves. A case may
// be propagated on its own tree, triangulated without its observed variables (evidence_tree.h).
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/evidence_tree.h"
#include "compiler/junction_tree/junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "runtime/evidence.h"
#include "runtime/tasks.h"

#include <map>
#include <memory>
#include <span>
#include <vector>

namespace zbddc {

// What the runs of one model share (JunctionTreeModel keeps one): the factors' scopes and which
// are CPTs whose rows sum to 1, made once, and the case trees of the last run of at most
// kKeptCaseTrees cases by their evidence, so that PR, MAR and MPE of the same case triangulate it
// once (on Pedigree_12 the case's tree was nearly half of each task's time).
struct PerCaseMemo {
    static constexpr size_t kKeptCaseTrees = 64;
    bool ready = false;
    std::vector<std::vector<uint32_t>> families;
    std::vector<uint8_t> rowsSumToOne;
    CaseTree caseTree = CaseTree::ByCost; // the trees' choice
    uint64_t lowestKey = 0;               // lowestMpeKey of the tree and caseTree (MPE)
    using CaseTreeResult = std::shared_ptr<const Result<std::optional<JunctionTree>>>;
    std::map<std::vector<uint32_t>, CaseTreeResult> trees; // by the case's states
};

// One result per case, as JunctionTreeModel::run answers it (threads 0: all hardware threads),
// at most `concurrentCases` cases at a time (0: one per thread; what the memory holds), the
// threads no case takes running the cases' programs. The tree is the model's (over
// model.sortedScopes()); `memo`, where given, that model's.
std::vector<Result<TaskResult>>
runJunctionTreePerCase(const FactorModel &model, const JunctionTree &tree, Task task,
                       std::span<const Evidence> cases, unsigned threads,
                       JunctionTreeLowering::Belief belief = JunctionTreeLowering::Belief::ByCost,
                       CaseTree caseTree = CaseTree::ByCost, PerCaseMemo *memo = nullptr,
                       unsigned concurrentCases = 0);
// A network's: its CPTs as factors.
std::vector<Result<TaskResult>>
runJunctionTreePerCase(const BayesNet &net, const JunctionTree &tree, Task task,
                       std::span<const Evidence> cases, unsigned threads,
                       JunctionTreeLowering::Belief belief = JunctionTreeLowering::Belief::ByCost,
                       CaseTree caseTree = CaseTree::ByCost);

} // namespace zbddc
