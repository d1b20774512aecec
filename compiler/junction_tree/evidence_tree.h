// One evidence case's own junction tree. Slicing the CPTs by the case's evidence cuts every link
// through an observed variable, so the graph the case's factors span is the moral graph without
// its observed variables (their parents stay married: the sliced CPT still joins them).
// Triangulated alone, it often has far smaller cliques than the network's tree with the observed
// variables dropped from its cliques: with 20% of the variables observed, 1.8·10^6 entries per
// case against 2.9·10^7 on munin1, 1.1·10^6 against 5.1·10^6 on barley (greedy weighted min-fill
// per case against the network's best searched order). pyAgrum's LazyPropagation likewise
// triangulates anew when the set of observed variables changes.
#pragma once

#include "compiler/junction_tree/junction_tree.h"
#include "ir/result.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace zbddc {

// Which tree a case is propagated on.
enum class CaseTree : uint8_t {
    // The case's own where it may pay: the network's tree, observed variables left out, holds at
    // least kCaseTreeGain times Σ degree² of the case's graph (what one greedy order costs, the
    // fill of each vertex counted over its neighbours' pairs) — and then only where the case's
    // tree holds fewer clique entries than the network's.
    ByCost,
    Network,  // always the network's tree
    Evidence, // always the case's own (tests)
};

// About 150 ns of greedy ordering per unit of Σ degree² against 2.5–4.5 ns of propagation per
// clique entry saved on this project's CPU route (2026-11-25, the 2-core VM): triangulating pays
// where it may save about 64 entries per unit.
inline constexpr double kCaseTreeGain = 64;

// Entries of the tree's cliques over their unobserved variables (states[v] == UINT32_MAX):
// what the case's slices leave of each clique.
double unobservedCliqueEntries(const JunctionTree &tree, const std::vector<uint32_t> &states);

// The case's own tree over the model's variables: each observed one alone in a clique, which
// holds the factors observed whole (numbers) placed there (a CPT in its own variable's);
// factor f's clique holds families[f] (its scope, ascending) without its observed variables.
// nullopt where `choice` keeps `network` (the model's tree, over these scopes).
Result<std::optional<JunctionTree>>
caseJunctionTree(const JunctionTree &network, const std::vector<std::vector<uint32_t>> &families,
                 const std::vector<uint32_t> &states, CaseTree choice);

} // namespace zbddc
