#include "runtime/network_metadata.h"

#include "ir/text_lines.h"

#include <sstream>

namespace zbddc {

std::string writeNetworkMetadata(const NetworkMetadata &m) {
    std::ostringstream out;
    out << "zbdd-network 1\n";
    out << "route " << m.route << "\n";
    for (const auto &[key, value] : m.facts)
        out << encodeName(key) << " " << encodeName(value) << "\n";
    out << "variables " << m.variables.size() << "\n";
    for (const Variable &v : m.variables) {
        out << "variable " << encodeName(v.name) << " " << v.states.size();
        for (const std::string &s : v.states)
            out << " " << encodeName(s);
        out << "\n";
    }
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
    if (Status s = in.expect("variables"); !s)
        return s.error();
    auto nv = in.unsignedInt("number of variables", 1u << 30);
    if (!nv)
        return nv.error();
    for (uint64_t v = 0; v < *nv; ++v) {
        if (Status s = in.expect("variable"); !s)
            return s.error();
        Variable var;
        auto name = in.name("variable name");
        if (!name)
            return name.error();
        var.name = *name;
        auto ns = in.unsignedInt("number of states", 1u << 30);
        if (!ns)
            return ns.error();
        if (*ns == 0)
            return in.fail("variable '" + var.name + "' has no states");
        for (uint64_t s = 0; s < *ns; ++s) {
            auto state = in.name("state name");
            if (!state)
                return state.error();
            var.states.push_back(*state);
        }
        m.variables.push_back(std::move(var));
    }
    if (!in.atEnd())
        return in.fail("unexpected text after the variables");
    return m;
}

} // namespace zbddc
