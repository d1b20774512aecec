#include "evidence_rows.h"

#include <string>

namespace zbddc::python {

Result<std::vector<Evidence>> casesFromRows(const int64_t *rows, size_t cases,
                                            const std::vector<Variable> &variables) {
    const size_t width = variables.size();
    std::vector<Evidence> out(cases);
    for (size_t c = 0; c < cases; ++c) {
        Evidence &e = out[c];
        e.states.resize(width);
        const int64_t *row = rows + c * width;
        for (size_t v = 0; v < width; ++v) {
            const int64_t s = row[v];
            if (s == kUnobserved) {
                e.states[v] = kNone;
                continue;
            }
            if (s < 0 || static_cast<uint64_t>(s) >= variables[v].states.size())
                return error("evidence: " + (cases > 1 ? "case " + std::to_string(c) + ": " : "") +
                             "state " + std::to_string(s) + " is out of range for variable '" +
                             variables[v].name + "' (" +
                             std::to_string(variables[v].states.size()) +
                             " states; -1 leaves it unobserved)");
            e.states[v] = static_cast<uint32_t>(s);
        }
    }
    return out;
}

} // namespace zbddc::python
