// A table's shape from its scope: each variable's domain size looked up in the program's list.
#pragma once

#include "ir/tensor_program.h"

#include <cstdint>
#include <vector>

namespace zbddc {

inline Table tableOver(std::vector<uint32_t> scope, const std::vector<uint32_t> &domainSizes) {
    Table t;
    t.scope = std::move(scope);
    t.domains.reserve(t.scope.size());
    for (uint32_t v : t.scope)
        t.domains.push_back(domainSizes[v]);
    return t;
}

} // namespace zbddc
