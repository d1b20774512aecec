// Which factors of a product matter to its sum onto `keep`, up to a constant: those linked to a
// variable of `keep` through variables summed out. A group of factors that shares no summed-out
// variable with the rest and holds none of `keep` sums to one number, the same for every value
// of `keep` (Madsen and Jensen 1999's relevance, on the factors as they are after slicing: the
// evidence has cut the links through observed variables). Where only proportions count — a
// junction tree's distribute messages and its marginals, normalised per variable — that number
// can be left out; where its value counts (P(e)), it cannot.
#pragma once

#include <cstdint>
#include <vector>

namespace zbddc {

// relevant[f] for each factor of `scopes` (ascending scopes; `keep` ascending). Factors with an
// empty scope (numbers) are never relevant.
std::vector<bool> linkedToKept(const std::vector<std::vector<uint32_t>> &scopes,
                               const std::vector<uint32_t> &keep);

} // namespace zbddc
