// The pseudo-tree of DPOP (Petcu and Faltings 2005) over agents, each owning one or more
// variables: built from an elimination order of the agents, so that it is the elimination tree of
// the agent graph (two agents adjacent where a cost function spans both). Every cost function
// then links an agent to its ancestors only, which is what DPOP's UTIL phase needs. A forest (a
// disconnected graph) is made one tree by hanging each component's root under the next one's, so
// that N agents exchange exactly 2(N-1) messages.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"

#include <cstdint>
#include <vector>

namespace zbddc {

inline constexpr uint32_t kNoAgent = UINT32_MAX;

struct PseudoTree {
    uint32_t numAgents = 0;
    std::vector<uint32_t> agentOf;                // by variable
    std::vector<std::vector<uint32_t>> variables; // by agent, ascending
    std::vector<uint32_t> order;                  // agents, leaves first, the root last
    std::vector<uint32_t> position;               // by agent: its index in `order`
    std::vector<uint32_t> parent;                 // by agent; kNoAgent for the root
    std::vector<std::vector<uint32_t>> children;  // by agent, ascending
    std::vector<std::vector<uint32_t>> functions; // by agent: the cost functions it owns
    uint32_t root() const { return order.back(); }
    uint32_t depth() const; // agents on the longest root-to-leaf path
};

// One agent per variable (the default rule, as the DCOP benchmarks assign them).
std::vector<uint32_t> oneAgentPerVariable(size_t numVariables);

// The agent graph of `network` under `agentOf` (agents numbered 0..numAgents-1, each owning at
// least one variable), and its min-fill order.
std::vector<uint32_t> minFillAgentOrder(const CostNetwork &network,
                                        const std::vector<uint32_t> &agentOf, uint32_t numAgents);

// Agents in the order their first variable appears in a variable order (`--order`).
std::vector<uint32_t> agentOrderFromVariables(const std::vector<uint32_t> &variableOrder,
                                              const std::vector<uint32_t> &agentOf,
                                              uint32_t numAgents);

// The tree for `agentOrder` (a permutation of the agents, checked). A function belongs to the
// agent of its scope that comes first in the order (the others are its ancestors); a function of
// empty scope to the root.
Result<PseudoTree> buildPseudoTree(const CostNetwork &network, const std::vector<uint32_t> &agentOf,
                                   const std::vector<uint32_t> &agentOrder);

} // namespace zbddc
