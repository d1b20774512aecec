// The two messages of DPOP (Petcu and Faltings 2005) as bytes: UTIL (a table over the sender's
// separator, sent to its parent) and VALUE (the values of the receiver's separator variables,
// sent to a child). Each carries the sender's simulated clock (Sultanik et al. 2007). The layout
// is the host's (every rank of a run is the same build on machines of one byte order).
#pragma once

#include "ir/result.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

struct DpopMessage {
    enum class Kind : uint32_t { Util = 1, Value = 2 };
    Kind kind = Kind::Util;
    uint32_t from = 0, to = 0;    // agents
    double clockMs = 0;           // the sender's simulated time when it sent this
    std::vector<uint32_t> scope;  // UTIL: the table's scope (layout order); VALUE: variables
    std::vector<double> table;    // UTIL: every row of the table over `scope`
    std::vector<uint32_t> values; // VALUE: one value per variable of `scope`
};

std::vector<std::byte> encodeDpopMessage(const DpopMessage &message);
// Fails on bytes that are not a whole message (a truncated or foreign one).
Result<DpopMessage> decodeDpopMessage(std::span<const std::byte> bytes);

} // namespace zbddc
