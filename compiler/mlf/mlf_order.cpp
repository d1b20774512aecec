#include "compiler/mlf/mlf_order.h"

#include "compiler/mlf/mlf_frontier.h"
#include "support/name_table.h"

#include <algorithm>
#include <set>

namespace zbddc {

const char *mlfOrderingName(MlfOrdering ordering) {
    constexpr Named<MlfOrdering> kNames[] = {
        {MlfOrdering::Paper, "paper"}, {MlfOrdering::MinFill, "minfill"},
        {MlfOrdering::Frontier, "frontier"}};
    return nameIn(kNames, ordering);
}

namespace {
std::vector<uint32_t> sinkDfsOrder(const BayesNet &net) {
    const size_t n = net.variables.size();
    std::vector<bool> hasChild(n, false), done(n, false);
    for (const BnVariable &v : net.variables)
        for (uint32_t p : v.parents)
            hasChild[p] = true;
    std::vector<uint32_t> order;
    // Iterative post-order DFS along parent edges: a variable follows all of its ancestors.
    std::vector<std::pair<uint32_t, size_t>> stack;
    for (uint32_t sink = 0; sink < n; ++sink) {
        if (hasChild[sink] || done[sink])
            continue;
        stack.push_back({sink, 0});
        done[sink] = true;
        while (!stack.empty()) {
            auto &[v, next] = stack.back();
            const auto &parents = net.variables[v].parents;
            if (next < parents.size()) {
                const uint32_t p = parents[next++];
                if (!done[p]) {
                    done[p] = true;
                    stack.push_back({p, 0});
                }
            } else {
                order.push_back(v);
                stack.pop_back();
            }
        }
    }
    return order; // every variable has a descendant sink in an acyclic network
}

std::vector<uint32_t> minFillElimination(const BayesNet &net) {
    const size_t n = net.variables.size();
    std::vector<std::set<uint32_t>> adj(n);
    for (uint32_t v = 0; v < n; ++v) { // moral graph: each family is a clique
        std::vector<uint32_t> family = net.variables[v].parents;
        family.push_back(v);
        for (uint32_t a : family)
            for (uint32_t b : family)
                if (a != b)
                    adj[a].insert(b);
    }
    auto fill = [&](uint32_t v) {
        size_t missing = 0;
        for (auto i = adj[v].begin(); i != adj[v].end(); ++i)
            for (auto j = std::next(i); j != adj[v].end(); ++j)
                missing += !adj[*i].count(*j);
        return missing;
    };
    std::vector<size_t> score(n);
    std::vector<bool> gone(n, false);
    for (uint32_t v = 0; v < n; ++v)
        score[v] = fill(v);
    std::vector<uint32_t> order;
    for (size_t step = 0; step < n; ++step) {
        uint32_t best = UINT32_MAX;
        for (uint32_t v = 0; v < n; ++v)
            if (!gone[v] && (best == UINT32_MAX || score[v] < score[best] ||
                             (score[v] == score[best] && adj[v].size() < adj[best].size())))
                best = v;
        order.push_back(best);
        gone[best] = true;
        const std::vector<uint32_t> nbrs(adj[best].begin(), adj[best].end());
        for (uint32_t a : nbrs) {
            adj[a].erase(best);
            for (uint32_t b : nbrs)
                if (a != b)
                    adj[a].insert(b);
        }
        std::set<uint32_t> touched(nbrs.begin(), nbrs.end()); // fills change within distance 2
        for (uint32_t a : nbrs)
            touched.insert(adj[a].begin(), adj[a].end());
        for (uint32_t t : touched)
            score[t] = fill(t);
    }
    return order;
}
} // namespace

std::vector<uint32_t> mlfVariableOrder(const BayesNet &net, MlfOrdering ordering) {
    if (ordering == MlfOrdering::Paper)
        return sinkDfsOrder(net);
    std::vector<uint32_t> elimination = minFillElimination(net);
    std::vector<uint32_t> reversed(elimination.rbegin(), elimination.rend());
    if (ordering == MlfOrdering::MinFill)
        return reversed;
    // The file's own order, parents first: networks written slice by slice (diabetes, a dynamic
    // network of 24 time slices) are listed so that only each slice's interface stays open,
    // which none of the other seeds finds (diabetes: frontier estimate 10^29 without this seed).
    std::vector<uint32_t> fileOrder = fileTopologicalOrder(net);
    return searchFrontierOrder(net, {sinkDfsOrder(net), reversed, elimination, fileOrder});
}

std::vector<MlfBlock> mlfOrder(const BayesNet &net, MlfOrdering ordering, bool thetaAtBottom) {
    return mlfBlocks(net, mlfVariableOrder(net, ordering), ordering, thetaAtBottom);
}

std::vector<MlfBlock> mlfBlocks(const BayesNet &net, const std::vector<uint32_t> &order,
                                MlfOrdering ordering, bool thetaAtBottom) {
    std::vector<MlfBlock> blocks;
    if (thetaAtBottom) {
        for (uint32_t v : order)
            blocks.push_back({false, v});
        for (uint32_t v : order)
            blocks.push_back({true, v});
        return blocks;
    }
    if (ordering == MlfOrdering::Paper) {
        for (uint32_t v : order) {
            blocks.push_back({false, v});
            blocks.push_back({true, v});
        }
        return blocks;
    }
    std::vector<size_t> position(net.variables.size());
    for (size_t i = 0; i < order.size(); ++i)
        position[order[i]] = i;
    // θ of v goes after the λ group of the lowest member of v's family.
    std::vector<std::vector<uint32_t>> thetaAfter(net.variables.size());
    for (uint32_t v = 0; v < net.variables.size(); ++v) {
        uint32_t lowest = v;
        for (uint32_t p : net.variables[v].parents)
            if (position[p] > position[lowest])
                lowest = p;
        thetaAfter[lowest].push_back(v);
    }
    for (uint32_t v : order) {
        blocks.push_back({false, v});
        for (uint32_t c : thetaAfter[v])
            blocks.push_back({true, c});
    }
    return blocks;
}

} // namespace zbddc
