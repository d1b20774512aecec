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

#include <span>
#include <vector>

namespace zbddc {

// One result per case, as JunctionTreeModel::run answers it (threads 0: all hardware threads).
// The tree is the model's (over model.sortedScopes()).
std::vector<Result<TaskResult>>
runJunctionTreePerCase(const FactorModel &model, const JunctionTree &tree, Task task,
                       std::span<const Evidence> cases, unsigned threads,
                       JunctionTreeLowering::Belief belief = JunctionTreeLowering::Belief::ByCost,
                       CaseTree caseTree = CaseTree::ByCost);
// A network's: its CPTs as factors.
std::vector<Result<TaskResult>>
runJunctionTreePerCase(const BayesNet &net, const JunctionTree &tree, Task task,
                       std::span<const Evidence> cases, unsigned threads,
                       JunctionTreeLowering::Belief belief = JunctionTreeLowering::Belief::ByCost,
                       CaseTree caseTree = CaseTree::ByCost);

} // namespace zbddc
