#include "runtime/sample_evidence.h"

#include <random>
#include <sstream>

namespace zbddc {

EvidenceSampler::EvidenceSampler(const BayesNet &net, double observedFraction, uint64_t seed)
    : net_(net), observedFraction_(observedFraction), rng_(seed), order_(fileTopologicalOrder(net)),
      x_(net.variables.size(), 0) {}

Evidence EvidenceSampler::next() {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (uint32_t v : order_) {
        const BnVariable &var = net_.variables[v];
        const size_t k = var.states.size();
        const double *p = var.cpt.data() + net_.cptRow(v, x_) * k;
        const double r = unit(rng_);
        double acc = 0;
        uint32_t s = 0;
        for (uint32_t i = 0; i < k; ++i) // the last state with p > 0 absorbs rounding
            if (p[i] > 0) {
                s = i;
                acc += p[i];
                if (r < acc)
                    break;
            }
        x_[v] = s;
    }
    return observeSome(x_, observedFraction_, rng_);
}

Evidence observeSome(const std::vector<uint32_t> &x, double observedFraction,
                     std::mt19937_64 &rng) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Evidence e;
    e.states.assign(x.size(), kNone);
    for (size_t v = 0; v < x.size(); ++v)
        if (unit(rng) < observedFraction)
            e.states[v] = x[v];
    return e;
}

std::vector<Evidence> sampleEvidence(const BayesNet &net, size_t cases, double observedFraction,
                                     uint64_t seed) {
    EvidenceSampler sampler(net, observedFraction, seed);
    std::vector<Evidence> out;
    for (size_t c = 0; c < cases; ++c)
        out.push_back(sampler.next());
    return out;
}

void writeEvidenceLine(const Evidence &e, std::ostream &s) {
    size_t n = 0;
    for (uint32_t st : e.states)
        n += st != kNone;
    s << n;
    for (size_t v = 0; v < e.states.size(); ++v)
        if (e.states[v] != kNone)
            s << " " << v << " " << e.states[v];
    s << "\n";
}

bool writeSampledEvidence(const BayesNet &net, size_t cases, double observedFraction, uint64_t seed,
                          std::ostream &out) {
    EvidenceSampler sampler(net, observedFraction, seed);
    out << cases << "\n";
    for (size_t c = 0; c < cases && out; ++c)
        writeEvidenceLine(sampler.next(), out);
    return static_cast<bool>(out);
}

std::string uaiEvidenceText(const std::vector<Evidence> &cases) {
    std::ostringstream s;
    s << cases.size() << "\n";
    for (const Evidence &e : cases)
        writeEvidenceLine(e, s);
    return s.str();
}

} // namespace zbddc
