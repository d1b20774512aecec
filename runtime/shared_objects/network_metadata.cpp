#include "runtime/shared_objects/network_metadata.h"

#include <algorithm>
#include <sstream>

namespace zbddc {

std::string writeNetworkMetadata(const NetworkMetadata &m) {
    std::ostringstream out;
    writeMetadataHeader(out, "network", 1);
    writeMetadataFacts(out, {{"route", m.route}});
    writeMetadataFacts(out, m.facts);
    writeVariableList(out, m.variables);
    return out.str();
}

Result<NetworkMetadata> parseNetworkMetadata(std::string_view text, const std::string &where) {
    NetworkMetadata m;
    Status read = readMetadata(text, "network", where, 1, 1,
                               [&](TokenCursor &in, MetadataFacts &facts) -> Status {
        const auto route = std::find_if(facts.begin(), facts.end(),
                                        [](const auto &fact) { return fact.first == "route"; });
        if (route == facts.end() || (route->second != "jt" && route->second != "mlf"))
            return in.fail("the metadata names no route jt or mlf");
        m.route = route->second;
        facts.erase(route);
        m.facts = std::move(facts);
        auto variables = readVariableList(in);
        if (!variables)
            return variables.error();
        m.variables = std::move(*variables);
        return Ok{};
    });
    if (!read)
        return read.error();
    return m;
}

} // namespace zbddc
