#include "compiler/elimination/variable_files.h"

#include "ir/parse_text_file.h"
#include "ir/text_lines.h"

#include <algorithm>

namespace zbddc {

Result<std::vector<uint32_t>> parseOrderText(std::string_view text, const std::string &name,
                                             size_t numVariables) {
    TokenCursor in(text, name, '#');
    std::vector<uint32_t> order;
    std::vector<bool> seen(numVariables, false);
    while (!in.atEnd()) {
        auto v = readVariableIndex(in, numVariables, "problem");
        if (!v)
            return v.error();
        if (seen[*v])
            return in.fail("variable " + std::to_string(*v) + " appears twice in the order");
        seen[*v] = true;
        order.push_back(*v);
    }
    for (size_t v = 0; v < numVariables; ++v)
        if (!seen[v])
            return errorAt(name, 0, "the order misses variable " + std::to_string(v));
    return order;
}

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

using ParseVariableText = Result<std::vector<uint32_t>> (*)(std::string_view, const std::string &,
                                                            size_t);

// Both files hold a few bytes per variable: the elimination order's size limit serves both.
static Result<std::vector<uint32_t>> readVariableFile(const std::string &path, size_t numVariables,
                                                      ParseVariableText parse) {
    return parseTextFile(
        path,
        [&](std::string_view text, const std::string &name) {
            return parse(text, name, numVariables);
        },
        kOrderTextLimit);
}

Result<std::vector<uint32_t>> readOrderFile(const std::string &path, size_t numVariables) {
    return readVariableFile(path, numVariables, parseOrderText);
}

Result<std::vector<uint32_t>> readAgentFile(const std::string &path, size_t numVariables) {
    return readVariableFile(path, numVariables, parseAgentText);
}

} // namespace zbddc
