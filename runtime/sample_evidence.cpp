#include "runtime/sample_evidence.h"

#include <random>
#include <sstream>

namespace zbddc {

std::vector<Evidence> sampleEvidence(const BayesNet &net, size_t cases, double observedFraction,
                                     uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const std::vector<uint32_t> order = fileTopologicalOrder(net);
    std::vector<Evidence> out;
    std::vector<uint32_t> x(net.variables.size(), 0);
    for (size_t c = 0; c < cases; ++c) {
        for (uint32_t v : order) {
            const BnVariable &var = net.variables[v];
            const size_t k = var.states.size();
            const double *p = var.cpt.data() + net.cptRow(v, x) * k;
            const double r = unit(rng);
            double acc = 0;
            uint32_t s = 0;
            for (uint32_t i = 0; i < k; ++i) // the last state with p > 0 absorbs rounding
                if (p[i] > 0) {
                    s = i;
                    acc += p[i];
                    if (r < acc)
                        break;
                }
            x[v] = s;
        }
        Evidence e;
        e.states.assign(x.size(), kNone);
        for (size_t v = 0; v < x.size(); ++v)
            if (unit(rng) < observedFraction)
                e.states[v] = x[v];
        out.push_back(std::move(e));
    }
    return out;
}

std::string uaiEvidenceText(const std::vector<Evidence> &cases) {
    std::ostringstream s;
    s << cases.size() << "\n";
    for (const Evidence &e : cases) {
        size_t n = 0;
        for (uint32_t st : e.states)
            n += st != kNone;
        s << n;
        for (size_t v = 0; v < e.states.size(); ++v)
            if (e.states[v] != kNone)
                s << " " << v << " " << e.states[v];
        s << "\n";
    }
    return s.str();
}

} // namespace zbddc
