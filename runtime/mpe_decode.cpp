#include "runtime/mpe_decode.h"

#include "ir/mpe_tie.h"

#include <algorithm>
#include <cmath>

namespace zbddc {
namespace {

// Max-marginals round differently from the forward value: within ir/mpe_tie.h's tolerance of
// it (on either side: an adjoint may round above the forward value) a state reaches it.
bool reaches(double value, double best, Numeric n) {
    const double scale = n == Numeric::Log ? std::max(1.0, std::fabs(best)) : std::fabs(best);
    return std::fabs(value - best) <= kMpeTieTolerance * scale;
}

bool impossible(double best, Numeric n) {
    return n == Numeric::Log ? std::isinf(best) && best < 0 : best == 0;
}

// One case's decoding step from its indicators' adjoints, with the per-state scratch kept across
// cases.
class CaseDecoder {
  public:
    CaseDecoder(const ModelInterface &c, std::span<const uint32_t> indicators)
        : c_(c), indicators_(indicators), first_(c.variables.size() + 1, 0) {
        for (size_t v = 0; v < c.variables.size(); ++v)
            first_[v + 1] = first_[v] + c.variables[v].states.size();
        reach_.resize(first_.back());
    }

    // Fixes in `states` every free variable with one state on an optimal term, and the first
    // variable with several to the first of them; true where it did so (the case goes round again).
    bool fix(std::span<const double> adj, double best, Numeric n, std::vector<uint32_t> &states) {
        std::fill(reach_.begin(), reach_.end(), 0);
        for (size_t j = 0; j < indicators_.size(); ++j) {
            const InputInfo &in = c_.inputs[indicators_[j]];
            if (states[in.variable] == kNone && reaches(adj[j], best, n))
                reach_[first_[in.variable] + in.state] = 1;
        }
        size_t tied = kNone;
        uint32_t tiedState = kNone;
        for (size_t v = 0; v < c_.variables.size(); ++v) {
            if (states[v] != kNone)
                continue;
            uint32_t count = 0, state = kNone;
            for (uint32_t s = 0; s < first_[v + 1] - first_[v]; ++s)
                if (reach_[first_[v] + s] && count++ == 0)
                    state = s;
            if (count == 1)
                states[v] = state; // every MPE has v = state
            else if (count > 1 && tied == kNone)
                tied = v, tiedState = state;
        }
        if (tied == kNone)
            return false;
        states[tied] = tiedState; // some MPE has it; the others are now excluded
        return true;
    }

  private:
    const ModelInterface &c_;
    std::span<const uint32_t> indicators_; // adj[j] is input indicators_[j]'s
    std::vector<size_t> first_;  // variable v's states are reach_[first_[v], first_[v + 1])
    std::vector<uint8_t> reach_; // some indicator of v=s lies on an optimal term
};

// One round's max-product adjoints of output 0 over the open cases, their fixed states as
// evidence: the indicators' only (InputBatch's varying inputs).
Result<std::vector<double>> adjointsOf(Model &m, Numeric n, InputBatch inputs,
                                       const std::vector<std::vector<uint32_t>> &states,
                                       const std::vector<size_t> &open) {
    const ModelInterface &c = m.interface();
    inputs.values.reserve(open.size() * inputs.varying.size());
    Evidence fixed;
    for (size_t k : open) {
        fixed.states = states[k];
        addEvidence(c, fixed, inputs);
    }
    return m.adjoints(Semiring::MaxProduct, n, inputs, 0);
}

} // namespace

Result<MpeBatch> decodeMpe(Model &m, Numeric n, std::span<const Evidence> cases,
                           const std::vector<double> &freeInputs, std::span<const double> best,
                           std::span<const double> firstAdjoints) {
    if (best.size() != cases.size())
        return error("decodeMpe: " + std::to_string(cases.size()) + " cases but " +
                     std::to_string(best.size()) + " MPE values");
    const ModelInterface &c = m.interface();
    auto shared = evidenceBatch(c, freeInputs); // no case yet: each round adds its open ones
    if (!shared)
        return shared.error();
    const size_t inputs = shared->varying.size(); // adjoints per case: the indicators'
    if (!firstAdjoints.empty() && firstAdjoints.size() != cases.size() * inputs)
        return error("decodeMpe: " + std::to_string(cases.size()) + " cases but " +
                     std::to_string(firstAdjoints.size()) + " first-round adjoints");
    MpeBatch out;
    out.assignments.reserve(cases.size());
    out.tied.assign(cases.size(), 0);
    std::vector<size_t> open; // the cases still to decode, in order
    for (size_t k = 0; k < cases.size(); ++k) {
        out.assignments.push_back(cases[k].states);
        if (!impossible(best[k], n))
            open.push_back(k);
    }
    CaseDecoder decoder(c, shared->varying);
    while (!open.empty()) {
        std::vector<double> adj;
        if (out.passes == 0 && !firstAdjoints.empty()) { // the first round: the cases as given
            for (size_t k : open)
                adj.insert(adj.end(), firstAdjoints.begin() + k * inputs,
                           firstAdjoints.begin() + (k + 1) * inputs);
        } else if (auto pass = adjointsOf(m, n, *shared, out.assignments, open); pass) {
            adj = std::move(*pass);
        } else {
            return pass.error();
        }
        ++out.passes;
        std::vector<size_t> tied;
        for (size_t j = 0; j < open.size(); ++j) {
            const size_t k = open[j];
            if (decoder.fix(std::span(adj).subspan(j * inputs, inputs), best[k], n,
                            out.assignments[k])) {
                tied.push_back(k);
                out.tied[k] = 1;
            }
        }
        open = std::move(tied);
    }
    for (size_t k = 0; k < cases.size(); ++k)
        if (!impossible(best[k], n) && std::find(out.assignments[k].begin(),
                                                 out.assignments[k].end(),
                                                 kNone) != out.assignments[k].end())
            out.tied[k] = 1;
    return out;
}

} // namespace zbddc
