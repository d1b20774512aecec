#include "runtime/network_metadata.h"

#include "ir/model_interface.h"
#include "ir/text_lines.h"

#include <sstream>

namespace zbddc {

std::string writeNetworkMetadata(const NetworkMetadata &m) {
    std::ostringstream out;
    out << "zbdd-network 1\n";
    out << "route " << m.route << "\n";
    for (const auto &[key, value] : m.facts)
        out << encodeName(key) << " " << encodeName(value) << "\n";
    writeVariableList(out, m.variables);
    return out.str();
}

Result<NetworkMetadata> parseNetworkMetadata(std::string_view text, const std::string &where) {
    TokenCursor in(text, where, '\0');
    NetworkMetadata m;
    if (Status s = in.expect("zbdd-network"); !s)
        return s.error();
    if (auto version = in.unsignedInt("metadata version", 1); !version)
        return version.error();
    if (Status s = in.expect("route"); !s)
        return s.error();
    auto route = in.token("route");
    if (!route)
        return route.error();
    if (*route != "jt" && *route != "mlf")
        return in.fail("unknown route '" + std::string(*route) + "' (jt or mlf)");
    m.route = *route;
    while (!in.peekIs("variables")) {
        auto key = in.name("a fact or 'variables'");
        if (!key)
            return key.error();
        auto value = in.name("the value of '" + *key + "'");
        if (!value)
            return value.error();
        m.facts.emplace_back(*key, *value);
    }
    auto variables = readVariableList(in);
    if (!variables)
        return variables.error();
    m.variables = std::move(*variables);
    if (!in.atEnd())
        return in.fail("unexpected text after the variables");
    return m;
}

} // namespace zbddc
