// Hand-built TensorPrograms' tables: the tests that lay out one op's shape by hand (row groups,
// interleaved tiles, sliced chains) append them here. No Catch: build-time helpers include it too.
#pragma once

#include "ir/tensor_program.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace zbddc::testing {

// Appends to `p` a table over `scope` (its domains the program's): an input whose row r holds
// value(r), or a computed table where `value` is empty. Returns its id.
inline uint32_t appendTable(TensorProgram &p, std::vector<uint32_t> scope,
                            const std::function<double(uint64_t)> &value = {}) {
    Table t;
    t.scope = std::move(scope);
    for (uint32_t v : t.scope)
        t.domains.push_back(p.domainSizes[v]);
    t.input = static_cast<bool>(value);
    for (uint64_t r = 0; t.input && r < t.entries(); ++r)
        t.values.push_back(value(r));
    p.tables.push_back(std::move(t));
    return static_cast<uint32_t>(p.tables.size() - 1);
}

} // namespace zbddc::testing
