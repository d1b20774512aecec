#include "compiler/junction_tree/factor_relevance.h"

#include <algorithm>
#include <unordered_map>

namespace zbddc {

std::vector<bool> linkedToKept(const std::vector<std::vector<uint32_t>> &scopes,
                               const std::vector<uint32_t> &keep) {
    const size_t n = scopes.size();
    // The factors holding each summed-out variable; a search from the factors that hold a kept
    // one, over those variables.
    std::unordered_map<uint32_t, std::vector<uint32_t>> holders;
    std::vector<bool> relevant(n, false);
    std::vector<uint32_t> stack;
    for (uint32_t f = 0; f < n; ++f)
        for (uint32_t v : scopes[f]) {
            if (!std::binary_search(keep.begin(), keep.end(), v))
                holders[v].push_back(f);
            else if (!relevant[f])
                relevant[f] = true, stack.push_back(f);
        }
    while (!stack.empty()) {
        const uint32_t f = stack.back();
        stack.pop_back();
        for (uint32_t v : scopes[f]) {
            auto it = holders.find(v);
            if (it == holders.end())
                continue;
            for (uint32_t g : it->second)
                if (!relevant[g])
                    relevant[g] = true, stack.push_back(g);
            holders.erase(it); // each variable's factors visited once
        }
    }
    return relevant;
}

} // namespace zbddc
