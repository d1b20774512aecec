#include "compiler/elimination/pseudo_tree.h"

#include "compiler/elimination/elimination_order.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace zbddc {

namespace {

// The agents a scope touches, each once.
std::vector<uint32_t> agentsOf(const std::vector<uint32_t> &scope,
                               const std::vector<uint32_t> &agentOf) {
    std::vector<uint32_t> agents;
    for (uint32_t v : scope)
        agents.push_back(agentOf[v]);
    std::sort(agents.begin(), agents.end());
    agents.erase(std::unique(agents.begin(), agents.end()), agents.end());
    return agents;
}

InteractionGraph agentGraph(const CostNetwork &network, const std::vector<uint32_t> &agentOf,
                            uint32_t numAgents) {
    // An agent's domain is the joint domain of its variables (capped): what min-weight ties see.
    std::vector<uint32_t> domains(numAgents, 1);
    for (size_t v = 0; v < agentOf.size(); ++v) {
        const uint64_t d = uint64_t{domains[agentOf[v]]} * network.domainSizes[v];
        domains[agentOf[v]] =
            static_cast<uint32_t>(std::min<uint64_t>(d, std::numeric_limits<uint32_t>::max()));
    }
    std::vector<std::vector<uint32_t>> scopes;
    for (const CostFunction &f : network.functions)
        scopes.push_back(agentsOf(f.scope, agentOf));
    return buildInteractionGraph(domains, scopes);
}

} // namespace

uint32_t PseudoTree::depth() const {
    std::vector<uint32_t> level(numAgents, 1);
    uint32_t deepest = numAgents ? 1 : 0;
    for (auto it = order.rbegin(); it != order.rend(); ++it) // root first: parents before children
        if (parent[*it] != kNoAgent) {
            level[*it] = level[parent[*it]] + 1;
            deepest = std::max(deepest, level[*it]);
        }
    return deepest;
}

std::vector<uint32_t> oneAgentPerVariable(size_t numVariables) {
    std::vector<uint32_t> agentOf(numVariables);
    std::iota(agentOf.begin(), agentOf.end(), 0u);
    return agentOf;
}

std::vector<uint32_t> minFillAgentOrder(const CostNetwork &network,
                                        const std::vector<uint32_t> &agentOf, uint32_t numAgents) {
    return greedyOrder(agentGraph(network, agentOf, numAgents), OrderHeuristic::MinFill);
}

std::vector<uint32_t> agentOrderFromVariables(const std::vector<uint32_t> &variableOrder,
                                              const std::vector<uint32_t> &agentOf,
                                              uint32_t numAgents) {
    std::vector<bool> placed(numAgents, false);
    std::vector<uint32_t> order;
    for (uint32_t v : variableOrder)
        if (!placed[agentOf[v]]) {
            placed[agentOf[v]] = true;
            order.push_back(agentOf[v]);
        }
    return order;
}

Result<PseudoTree> buildPseudoTree(const CostNetwork &network, const std::vector<uint32_t> &agentOf,
                                   const std::vector<uint32_t> &agentOrder) {
    PseudoTree t;
    t.numAgents = static_cast<uint32_t>(agentOrder.size());
    if (agentOf.size() != network.numVariables())
        return error("the agent map must give one agent per variable");
    if (Status s = checkOrder(agentOrder, t.numAgents); !s)
        return error("agent order: " + s.error().message);
    if (t.numAgents == 0)
        return error("a distributed run needs at least one variable");
    t.agentOf = agentOf;
    t.order = agentOrder;
    t.variables.resize(t.numAgents);
    for (uint32_t v = 0; v < agentOf.size(); ++v) {
        if (agentOf[v] >= t.numAgents)
            return error("variable " + std::to_string(v) + " has agent " +
                         std::to_string(agentOf[v]) + ", beyond the " +
                         std::to_string(t.numAgents) + " agents");
        t.variables[agentOf[v]].push_back(v);
    }
    t.position.resize(t.numAgents);
    for (uint32_t i = 0; i < t.numAgents; ++i)
        t.position[agentOrder[i]] = i;

    // Elimination tree: an agent's parent is the first to go among its higher neighbours in the
    // triangulated agent graph (fill edges included), so every higher neighbour is an ancestor.
    t.parent.assign(t.numAgents, kNoAgent);
    simulateElimination(agentGraph(network, agentOf, t.numAgents), agentOrder,
                        [&](uint32_t a, const std::vector<uint32_t> &higher) {
                            for (uint32_t b : higher)
                                if (t.parent[a] == kNoAgent ||
                                    t.position[b] < t.position[t.parent[a]])
                                    t.parent[a] = b;
                        });
    // One tree: each component's root hangs under the root that comes next in the order.
    uint32_t laterRoot = kNoAgent;
    for (size_t i = agentOrder.size(); i-- > 0;) {
        const uint32_t a = agentOrder[i];
        if (t.parent[a] != kNoAgent)
            continue;
        t.parent[a] = laterRoot;
        laterRoot = a;
    }
    t.children.resize(t.numAgents);
    for (uint32_t a : agentOrder)
        if (t.parent[a] != kNoAgent)
            t.children[t.parent[a]].push_back(a);
    for (auto &c : t.children)
        std::sort(c.begin(), c.end());

    t.functions.resize(t.numAgents);
    for (uint32_t f = 0; f < network.functions.size(); ++f) {
        uint32_t owner = t.root();
        for (uint32_t a : agentsOf(network.functions[f].scope, agentOf))
            if (t.position[a] < t.position[owner])
                owner = a;
        t.functions[owner].push_back(f);
    }
    return t;
}

} // namespace zbddc
