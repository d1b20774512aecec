// Evidence cases for a factor model that has no order to forward-sample in (a Markov network, a
// cost network's exp(-cost) factors): Gibbs sampling (Geman and Geman 1984). A chain of complete
// assignments starts from one of positive weight (the MPE, say); each sweep redraws every variable
// in turn from its distribution given the others (the product of the factors over it), so the
// chain never leaves positive weight; each case is the state after a sweep, each variable observed
// with a given probability, so every case has P(e) > 0 as forward-sampled cases do. Successive
// cases are correlated (a chain mixes slowly on grids): they are a workload, not independent draws.
// Deterministic for a start and a seed.
#pragma once

#include "compiler/frontends/factor_model/factor_model.h"
#include "runtime/evidence.h"

#include <cstdint>
#include <iosfwd>
#include <random>
#include <vector>

namespace zbddc {

class GibbsEvidenceSampler {
  public:
    // `start` holds a state per variable and has positive weight (logWeight finite); the chain
    // takes `burnInSweeps` sweeps before the first case.
    GibbsEvidenceSampler(const FactorModel &model, std::vector<uint32_t> start,
                         double observedFraction, uint64_t seed, unsigned burnInSweeps = 10);
    Evidence next(); // one sweep, then the observation of each variable
    const std::vector<uint32_t> &state() const { return x_; }

  private:
    void sweep();
    void redraw(uint32_t v);

    // Where variable v sits in a factor: the factor and v's stride in its table.
    struct Occurrence {
        uint32_t factor = 0;
        uint64_t stride = 0;
    };
    const FactorModel &model_;
    double observedFraction_;
    std::mt19937_64 rng_;
    std::vector<std::vector<Occurrence>> occurrences_; // by variable
    std::vector<uint32_t> x_;
    std::vector<double> logWeights_; // scratch: per state of the variable redrawn
};

// `cases` cases in the UAI batch layout (sample_evidence.h's uaiEvidenceText), written as drawn;
// false where the stream failed.
bool writeGibbsEvidence(const FactorModel &model, std::vector<uint32_t> start, size_t cases,
                        double observedFraction, uint64_t seed, std::ostream &out);

} // namespace zbddc
