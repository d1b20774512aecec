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

std::vector<std::byte> encodeDpopMessage(const DpopMessage &m) {
    const bool util = m.kind == DpopMessage::Kind::Util;
    const Header h{static_cast<uint32_t>(m.kind),
                   m.from,
                   m.to,
                   static_cast<uint32_t>(m.scope.size()),
                   util ? m.table.size() : m.values.size(),
                   m.clockMs};
    std::vector<std::byte> out;
    append(out, &h, 1);
    append(out, m.scope.data(), m.scope.size());
    if (util)
        append(out, m.table.data(), m.table.size());
    else
        append(out, m.values.data(), m.values.size());
    return out;
}

Result<DpopMessage> decodeDpopMessage(std::span<const std::byte> in) {
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
    const bool whole = take(in, m.scope, h.scopeSize) &&
                       (m.kind == DpopMessage::Kind::Util ? take(in, m.table, h.payload)
                                                          : take(in, m.values, h.payload));
    if (!whole || !in.empty())
        return error("a DPOP message whose length disagrees with its header");
    return m;
}

} // namespace zbddc
