#include "runtime/gibbs_evidence.h"

#include "runtime/sample_evidence.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <utility>

namespace zbddc {

GibbsEvidenceSampler::GibbsEvidenceSampler(const FactorModel &model, std::vector<uint32_t> start,
                                           double observedFraction, uint64_t seed,
                                           unsigned burnInSweeps)
    : model_(model), observedFraction_(observedFraction), rng_(seed),
      occurrences_(model.numVariables()), x_(std::move(start)) {
    for (uint32_t f = 0; f < model.factors.size(); ++f) {
        const std::vector<uint32_t> &scope = model.factors[f].scope;
        uint64_t stride = 1;
        for (size_t i = scope.size(); i-- > 0;) {
            occurrences_[scope[i]].push_back({f, stride});
            stride *= model.domainSizes[scope[i]];
        }
    }
    for (unsigned s = 0; s < burnInSweeps; ++s)
        sweep();
}

void GibbsEvidenceSampler::redraw(uint32_t v) {
    const uint32_t k = model_.domainSizes[v];
    logWeights_.assign(k, 0.0);
    for (const Occurrence &o : occurrences_[v]) {
        const Factor &f = model_.factors[o.factor];
        uint64_t row = 0; // the factor's row at the current state, v's own digit left out
        for (uint32_t u : f.scope)
            row = row * model_.domainSizes[u] + (u == v ? 0 : x_[u]);
        for (uint32_t s = 0; s < k; ++s)
            logWeights_[s] += std::log(f.table[row + s * o.stride]);
    }
    // The current state's weight is positive, so the largest is finite and every draw is too.
    const double top = *std::max_element(logWeights_.begin(), logWeights_.end());
    double total = 0;
    for (double &w : logWeights_) {
        w = std::exp(w - top); // log(0) = -inf gives 0
        total += w;
    }
    const double r = std::uniform_real_distribution<double>(0.0, total)(rng_);
    double acc = 0;
    for (uint32_t s = 0; s < k; ++s)
        if (logWeights_[s] > 0) { // the last state of positive weight absorbs rounding
            x_[v] = s;
            acc += logWeights_[s];
            if (r < acc)
                break;
        }
}

void GibbsEvidenceSampler::sweep() {
    for (uint32_t v = 0; v < model_.numVariables(); ++v)
        redraw(v);
}

Evidence GibbsEvidenceSampler::next() {
    sweep();
    return observeSome(x_, observedFraction_, rng_);
}

bool writeGibbsEvidence(const FactorModel &model, std::vector<uint32_t> start, size_t cases,
                        double observedFraction, uint64_t seed, std::ostream &out) {
    GibbsEvidenceSampler sampler(model, std::move(start), observedFraction, seed);
    out << cases << "\n";
    for (size_t c = 0; c < cases && out; ++c)
        writeEvidenceLine(sampler.next(), out);
    return static_cast<bool>(out);
}

} // namespace zbddc
