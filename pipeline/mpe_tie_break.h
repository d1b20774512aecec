// The MPE tie rule every route's answer passes through (Session::answer): where several
// assignments reach the optimum, a case gets the same one on every route (mlf, jt, be) and
// device, whatever order each multiplied in. "Reach" is within the relative tolerance of
// ir/mpe_tie.h (1e-9): products taken in different orders differ by ~1e-13, real gaps are far
// wider. Networks (.bif, .xmlbif, .net, .uai) take it; a .wcsp keeps bucket elimination's own
// traceback (session.cpp says why).
//
// The assignment is the lexicographically lowest of those that reach, in one canonical order of
// the variables: the order in which the CPU junction tree of the model — min-fill, a function of
// the model's graph alone, each case's factors sliced by its evidence — decides them when its
// max-product collect is walked back (runtime/junction_tree/lowest_mpe.h). One collect and one
// walk per case: a tie costs what one CPU MPE costs. The lowest in file order would be the
// plainer promise, but it needs a calibration again after each tied variable is chosen, and on
// pigs (nearly every case tied, in ~100 variables) that was about a hundred calibrations a case.
//
// A route whose own traceback saw no other assignment within the tolerance of its choice
// (TaskResult::mpeTied false: the junction tree's and bucket elimination's walks on the CPU and
// the GPU, the MLF circuit's batched walk on the GPU) has given the only one that reaches, and
// passes untouched. So does one whose route decided its tie as this rule does, on a tree of the
// same key (TaskResult::mpeLowestKey: the CPU's per-case junction tree, where its order is the
// rule's min-fill one). Every other case is decided here.
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/junction_tree.h"
#include "runtime/evidence.h"
#include "runtime/junction_tree/lowest_mpe.h"
#include "runtime/tasks.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace zbddc::pipeline {

// Whether the rule decides `r`: an exact MPE answer with an optimum whose route did not rule a
// tie out (loopy BP's approximate answers and infeasible ones have no optimum to break ties of).
inline bool mayHoldTie(const Result<TaskResult> &r) {
    return r && r->task == Task::Mpe && r->mpeTied != false && !r->approximate &&
           r->cost != "null";
}

class MpeTieBreak {
  public:
    // The model's tree by min-fill, refused with the reason where its tables would not fit in
    // `memoryBytes` (0: no check).
    static Result<std::unique_ptr<MpeTieBreak>> build(FactorModel model, double memoryBytes);

    // The rule's assignment for one case (observed variables at their states) and the order it
    // is lowest in.
    Result<LowestMpe> canonical(const Evidence &evidence) const;

    // Every exact MPE result that may hold a tie takes the rule's assignment, where that reaches
    // the route's (its weight recomputed from the factors); loopy BP's approximate ones pass. Where the rule cannot answer a case, the
    // route's assignment stays and `notes` says why, once.
    void apply(std::span<const Evidence> cases, std::vector<Result<TaskResult>> &results,
               std::vector<std::string> &notes, unsigned threads = 0) const;

    const FactorModel &model() const { return model_; }

  private:
    MpeTieBreak(FactorModel model, JunctionTree tree, std::vector<std::vector<uint32_t>> families);
    // A state for every variable, within its domain (a route may leave one undetermined).
    bool complete(const std::vector<uint32_t> &assignment) const;
    FactorModel model_;
    JunctionTree tree_;
    std::vector<std::vector<uint32_t>> families_; // the factors' scopes, ascending
    std::vector<uint8_t> rowsSumToOne_;
    uint64_t key_; // lowestMpeKey of tree_
};

} // namespace zbddc::pipeline
