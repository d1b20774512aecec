// Tiny random cost networks and the brute-force oracle of their optimum.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"

#include <algorithm>
#include <random>

namespace zbddc::testing {

// `n` variables with domains 1..maxDomain, `m` functions of arity 0..maxArity; costs in
// [0, maxCost], some forbidden when `hard`; some tables sparse with a default cost.
inline CostNetwork randomNetwork(std::mt19937 &rng, uint32_t n, uint32_t m, uint32_t maxDomain,
                                 uint32_t maxArity, uint32_t maxCost, bool hard) {
    CostNetwork net;
    net.upperBound = hard ? 1000 : kForbidden;
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    for (uint32_t v = 0; v < n; ++v)
        net.domainSizes.push_back(pick(1, maxDomain));
    for (uint32_t i = 0; i < m; ++i) {
        CostFunction f;
        std::vector<uint32_t> vars(n);
        for (uint32_t v = 0; v < n; ++v)
            vars[v] = v;
        std::shuffle(vars.begin(), vars.end(), rng);
        f.scope.assign(vars.begin(), vars.begin() + pick(0, std::min(maxArity, n)));
        uint64_t size = 0;
        tableSize(net.domainSizes, f.scope, size);
        auto cost = [&]() -> Cost {
            return hard && pick(0, 9) == 0 ? kForbidden : static_cast<Cost>(pick(0, maxCost));
        };
        f.sparse = pick(0, 2) == 0;
        if (f.sparse) {
            f.defaultCost = cost();
            for (uint64_t r = 0; r < size; ++r)
                if (pick(0, 1)) {
                    f.rows.push_back(r);
                    f.costs.push_back(cost());
                }
        } else {
            for (uint64_t r = 0; r < size; ++r)
                f.costs.push_back(cost());
        }
        net.functions.push_back(std::move(f));
    }
    return net;
}

// randomNetwork made connected: no nullary function, and a binary one over each pair of
// consecutive variables. Bucket elimination then ends in one bucket that adds up every
// function's cost (a nullary function or a second component would be a result of its own).
inline CostNetwork randomConnectedNetwork(std::mt19937 &rng, uint32_t n, uint32_t m,
                                          uint32_t maxDomain, uint32_t maxArity, uint32_t maxCost,
                                          bool hard) {
    CostNetwork net = randomNetwork(rng, n, m, maxDomain, maxArity, maxCost, hard);
    std::erase_if(net.functions, [](const CostFunction &f) { return f.scope.empty(); });
    for (uint32_t v = 0; v + 1 < n; ++v) {
        CostFunction f;
        f.scope = {v, v + 1};
        for (uint32_t r = 0; r < net.domainSizes[v] * net.domainSizes[v + 1]; ++r)
            f.costs.push_back(static_cast<Cost>(rng() % (maxCost + 1)));
        net.functions.push_back(std::move(f));
    }
    return net;
}

// Least total cost over all assignments (kForbidden if none is feasible), by enumeration of
// the free (non-evidence) variables.
inline Cost bruteForceOptimum(const CostNetwork &net, const std::vector<uint32_t> &evidence = {}) {
    std::vector<uint32_t> a(net.numVariables(), 0), free;
    for (uint32_t v = 0; v < net.numVariables(); ++v) {
        if (!evidence.empty() && evidence[v] != UINT32_MAX)
            a[v] = evidence[v];
        else
            free.push_back(v);
    }
    Cost best = kForbidden;
    for (bool more = true; more;) {
        best = std::min(best, assignmentCost(net, a));
        more = false;
        for (size_t i = free.size(); i-- > 0 && !more;) {
            if (++a[free[i]] < net.domainSizes[free[i]])
                more = true;
            else
                a[free[i]] = 0;
        }
    }
    return best;
}

} // namespace zbddc::testing
