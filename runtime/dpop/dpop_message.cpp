#include "runtime/dpop/dpop_message.h"

#include <cstring>

namespace zbddc {

namespace {

struct Header {
    uint32_t kind, from, to, scopeSize;
    uint64_t payload; // table entries (UTIL) or values (VALUE)
    double clockMs;
};

template <class T> void append(std::vector<std::byte> &out, const T *data, size_t count) {
    const size_t at = out.size();
    out.resize(at + count * sizeof(T));
    if (count)
        std::memcpy(out.data() + at, data, count * sizeof(T));
}

template <class T> bool take(std::span<const std::byte> &in, std::vector<T> &out, uint64_t count) {
    if (count > in.size() / sizeof(T))
        return false;
    out.resize(count);
    if (count)
        std::memcpy(out.data(), in.data(), count * sizeof(T));
    in = in.subspan(count * sizeof(T));
    return true;
}

} // namespace

DpopWire encodeDpopMessage(DpopMessage m) {
    const bool util = m.kind == DpopMessage::Kind::Util;
    const Header h{static_cast<uint32_t>(m.kind),
                   m.from,
                   m.to,
                   static_cast<uint32_t>(m.scope.size()),
                   util ? m.table.size() : m.values.size(),
                   m.clockMs};
    DpopWire w;
    append(w.head, &h, 1);
    append(w.head, m.scope.data(), m.scope.size());
    if (util)
        w.table = std::move(m.table);
    else
        append(w.head, m.values.data(), m.values.size());
    return w;
}

Result<DpopMessage> decodeDpopMessage(DpopWire w) {
    std::span<const std::byte> in = w.head;
    Header h;
    if (in.size() < sizeof h)
        return error("a DPOP message shorter than its header");
    std::memcpy(&h, in.data(), sizeof h);
    in = in.subspan(sizeof h);
    DpopMessage m;
    if (h.kind != 1 && h.kind != 2)
        return error("a DPOP message of unknown kind " + std::to_string(h.kind));
    m.kind = static_cast<DpopMessage::Kind>(h.kind);
    m.from = h.from;
    m.to = h.to;
    m.clockMs = h.clockMs;
    const bool util = m.kind == DpopMessage::Kind::Util;
    const bool whole = take(in, m.scope, h.scopeSize) && (util || take(in, m.values, h.payload)) &&
                       w.table.size() == (util ? h.payload : 0);
    if (!whole || !in.empty())
        return error("a DPOP message whose length disagrees with its header");
    m.table = std::move(w.table);
    return m;
}

uint64_t dpopMessageBytes(const DpopMessage &m) {
    const bool util = m.kind == DpopMessage::Kind::Util;
    return sizeof(Header) + m.scope.size() * sizeof(uint32_t) +
           (util ? m.table.size() * sizeof(double) : m.values.size() * sizeof(uint32_t));
}

} // namespace zbddc
