#include "compiler/mlf/mlf_possible.h"

namespace zbddc {

std::vector<std::vector<char>> possibleStates(const BayesNet &net) {
    std::vector<std::vector<char>> possible(net.variables.size());
    for (uint32_t v : fileTopologicalOrder(net)) { // parents first
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
    }
    return possible;
}

} // namespace zbddc
