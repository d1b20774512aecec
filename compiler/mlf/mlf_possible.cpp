#include "compiler/mlf/mlf_possible.h"

namespace zbddc {

std::vector<std::vector<char>> possibleStates(const BayesNet &net) {
    const size_t n = net.variables.size();
    std::vector<uint32_t> pendingParents(n), ready;
    std::vector<std::vector<uint32_t>> children(n);
    for (uint32_t v = 0; v < n; ++v) {
        pendingParents[v] = static_cast<uint32_t>(net.variables[v].parents.size());
        for (uint32_t p : net.variables[v].parents)
            children[p].push_back(v);
        if (pendingParents[v] == 0)
            ready.push_back(v);
    }
    std::vector<std::vector<char>> possible(n);
    while (!ready.empty()) { // Kahn's order: parents before children (the net is acyclic)
        const uint32_t v = ready.back();
        ready.pop_back();
        const BnVariable &var = net.variables[v];
        const size_t k = var.states.size();
        possible[v].assign(k, 0);
        std::vector<uint32_t> state(var.parents.size(), 0);
        for (size_t r = 0; r < net.rowCount(v); ++r) {
            bool rowPossible = true;
            for (size_t i = 0; i < var.parents.size() && rowPossible; ++i)
                rowPossible = possible[var.parents[i]][state[i]];
            for (size_t x = 0; x < k && rowPossible; ++x)
                possible[v][x] |= var.cpt[r * k + x] != 0.0;
            for (size_t i = var.parents.size(); i-- > 0;) { // next row: last parent fastest
                if (++state[i] < net.variables[var.parents[i]].states.size())
                    break;
                state[i] = 0;
            }
        }
        for (uint32_t c : children[v])
            if (--pendingParents[c] == 0)
                ready.push_back(c);
    }
    return possible;
}

} // namespace zbddc
