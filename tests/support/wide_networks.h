// Generated cost networks with wide buckets, for the out-of-core path (Bistaffa et al. 2017 §V-B2),
// shared by bench/wcsp_out_of_core.cpp and the GPU tests. Costs are integers uniform in [0, 100];
// same seed, same network. Each comes with the elimination order that makes its buckets wide.
//   band: x_i — x_j for 0 < j - i ≤ width, eliminated in index order: every message spans `width`
//         variables (domain^width entries), the wide-bucket case at a size chosen exactly.
//   star: a centre joined to every leaf, eliminated first: one message over all the leaves (the
//         product of their domains), then ever smaller ones as the leaves go, largest domain
//         first — so one table can exceed device memory while the host still holds them all.
//         Its optimum has a closed form (starOptimum), an oracle independent of elimination.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"

#include <algorithm>
#include <random>
#include <vector>

namespace zbddc::bench {

struct GeneratedNetwork {
    CostNetwork network;
    std::vector<uint32_t> order;
};

namespace detail {
inline CostFunction randomFunction(std::vector<uint32_t> scope, const CostNetwork &net,
                                   std::mt19937_64 &rng) {
    CostFunction f;
    f.scope = std::move(scope);
    uint64_t rows = 1;
    for (uint32_t v : f.scope)
        rows *= net.domainSizes[v];
    std::uniform_int_distribution<int> cost(0, 100);
    for (uint64_t r = 0; r < rows; ++r)
        f.costs.push_back(cost(rng));
    return f;
}
} // namespace detail

inline GeneratedNetwork bandNetwork(uint32_t n, uint32_t width, uint32_t domain, uint64_t seed) {
    std::mt19937_64 rng(seed);
    GeneratedNetwork g;
    g.network.name = "band-n" + std::to_string(n) + "-w" + std::to_string(width) + "-d" +
                     std::to_string(domain);
    g.network.domainSizes.assign(n, domain);
    for (uint32_t i = 0; i < n; ++i) {
        g.network.functions.push_back(detail::randomFunction({i}, g.network, rng));
        for (uint32_t j = i + 1; j < n && j <= i + width; ++j)
            g.network.functions.push_back(detail::randomFunction({i, j}, g.network, rng));
        g.order.push_back(i);
    }
    return g;
}

// Variable 0 is the centre; leaf i is variable i + 1 with domain leafDomains[i], eliminated in
// that order (put the largest domain first for the smallest later messages).
inline GeneratedNetwork starNetwork(const std::vector<uint32_t> &leafDomains,
                                    uint32_t centreDomain, uint64_t seed) {
    std::mt19937_64 rng(seed);
    GeneratedNetwork g;
    g.network.name = "star-" + std::to_string(leafDomains.size()) + "-leaves";
    g.network.domainSizes.push_back(centreDomain);
    g.network.domainSizes.insert(g.network.domainSizes.end(), leafDomains.begin(),
                                 leafDomains.end());
    g.network.functions.push_back(detail::randomFunction({0}, g.network, rng));
    for (uint32_t i = 1; i <= leafDomains.size(); ++i) {
        g.network.functions.push_back(detail::randomFunction({0, i}, g.network, rng));
        g.network.functions.push_back(detail::randomFunction({i}, g.network, rng));
    }
    for (uint32_t v = 0; v <= leafDomains.size(); ++v)
        g.order.push_back(v);
    return g;
}

// min over the centre of its unary cost plus, per leaf, the leaf's best binary + unary cost.
inline Cost starOptimum(const CostNetwork &net) {
    const uint32_t leaves = static_cast<uint32_t>(net.numVariables() - 1);
    Cost best = kForbidden;
    for (uint32_t c = 0; c < net.domainSizes[0]; ++c) {
        Cost total = net.functions[0].costs[c];
        for (uint32_t i = 1; i <= leaves; ++i) {
            const CostFunction &binary = net.functions[2 * i - 1], &unary = net.functions[2 * i];
            Cost leaf = kForbidden;
            for (uint32_t y = 0; y < net.domainSizes[i]; ++y)
                leaf = std::min(leaf, binary.costs[c * net.domainSizes[i] + y] + unary.costs[y]);
            total += leaf;
        }
        best = std::min(best, total);
    }
    return best;
}

} // namespace zbddc::bench
