// The two messages of DPOP (Petcu and Faltings 2005) as they travel: UTIL (a table over the
// sender's separator, sent to its parent) and VALUE (the values of the receiver's separator
// variables, sent to a child). Each carries the sender's simulated clock (Sultanik et al. 2007).
// A message travels as a head of bytes and, for UTIL, its table as it is: a table of 10^8 rows
// is neither copied into a byte buffer nor out of one. The layout is the host's (every rank of a
// run is the same build on machines of one byte order).
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

struct DpopWire {
    std::vector<std::byte> head; // kind, agents, clock, scope and VALUE's values
    std::vector<double> table;   // UTIL's table
};

// Moves the message's table into the wire.
DpopWire encodeDpopMessage(DpopMessage message);
// Fails on a head that is not a whole message (a truncated or foreign one) or a table whose
// length disagrees with it.
Result<DpopMessage> decodeDpopMessage(DpopWire wire);
// What the message weighs on the wire: its head's bytes and its table's.
uint64_t dpopMessageBytes(const DpopMessage &message);

} // namespace zbddc
