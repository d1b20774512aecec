#include "runtime/mpe_decode.h"

#include <cmath>

namespace zbddc {
namespace {

// Max-marginals round differently from the forward value; 1e-9 relative is far above float64
// rounding of a few thousand ops and far below any real gap between probabilities of interest.
bool reaches(double value, double best, Numeric n) {
    if (n == Numeric::Log)
        return std::fabs(value - best) <= 1e-9 * std::max(1.0, std::fabs(best));
    return std::fabs(value - best) <= 1e-9 * std::fabs(best);
}

} // namespace

Result<std::vector<uint32_t>> decodeMpe(Model &m, Numeric n, const Evidence &ev,
                                        const std::vector<double> &freeInputs, double best) {
    const ModelInterface &c = m.interface();
    Evidence fixed = ev;
    const bool impossible = n == Numeric::Log ? std::isinf(best) && best < 0 : best == 0;
    if (impossible)
        return fixed.states; // no optimal term: nothing to decode
    for (;;) {
        auto x = inputVector(c, fixed, freeInputs);
        if (!x)
            return x.error();
        auto adj = m.adjoints(Semiring::MaxProduct, n, *x, 1, 0);
        if (!adj)
            return adj.error();
        // reach[v][s]: some indicator of v=s lies on an optimal term.
        std::vector<std::vector<bool>> reach(c.variables.size());
        for (size_t v = 0; v < c.variables.size(); ++v)
            reach[v].assign(c.variables[v].states.size(), false);
        for (size_t i = 0; i < c.numInputs(); ++i) {
            const InputInfo &in = c.inputs[i];
            if (in.kind == InputKind::Indicator && fixed.states[in.variable] == kNone &&
                reaches((*adj)[i], best, n))
                reach[in.variable][in.state] = true;
        }
        size_t firstTied = kNone;
        uint32_t tiedState = kNone;
        for (size_t v = 0; v < c.variables.size(); ++v) {
            if (fixed.states[v] != kNone)
                continue;
            uint32_t count = 0, state = kNone;
            for (uint32_t s = 0; s < reach[v].size(); ++s)
                if (reach[v][s] && count++ == 0)
                    state = s;
            if (count == 1)
                fixed.states[v] = state; // every MPE has v = state
            else if (count > 1 && firstTied == kNone)
                firstTied = v, tiedState = state;
        }
        if (firstTied == kNone)
            return fixed.states;
        fixed.states[firstTied] = tiedState; // some MPE has it; the others are now excluded
    }
}

} // namespace zbddc
