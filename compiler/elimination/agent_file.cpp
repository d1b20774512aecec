#include "compiler/elimination/agent_file.h"

#include "ir/text_lines.h"

#include <algorithm>

namespace zbddc {

Result<std::vector<uint32_t>> parseAgentText(std::string_view text, const std::string &name,
                                             size_t numVariables) {
    TokenCursor in(text, name, '#');
    std::vector<uint32_t> agentOf;
    while (!in.atEnd()) {
        if (agentOf.size() == numVariables)
            return in.fail("more agents than the problem's " + std::to_string(numVariables) +
                           " variables");
        auto agent = in.unsignedInt("an agent index", numVariables - 1);
        if (!agent)
            return agent.error();
        agentOf.push_back(static_cast<uint32_t>(*agent));
    }
    if (agentOf.size() != numVariables)
        return in.failAtEnd("the file gives agents for " + std::to_string(agentOf.size()) +
                            " variables, the problem has " + std::to_string(numVariables));
    std::vector<bool> used(numVariables, false);
    for (uint32_t a : agentOf)
        used[a] = true;
    const uint32_t agents =
        agentOf.empty() ? 0 : *std::max_element(agentOf.begin(), agentOf.end()) + 1;
    for (uint32_t a = 0; a < agents; ++a)
        if (!used[a])
            return errorAt(name, 0, "agent " + std::to_string(a) + " owns no variable");
    return agentOf;
}

Result<std::vector<uint32_t>> readAgentFile(const std::string &path, size_t numVariables) {
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    return parseAgentText(*text, path, numVariables);
}

} // namespace zbddc
