#include "compiler/elimination/order_file.h"

#include "ir/text_lines.h"

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

Result<std::vector<uint32_t>> readOrderFile(const std::string &path, size_t numVariables) {
    auto text = readTextFile(path, kOrderTextLimit);
    if (!text)
        return text.error();
    return parseOrderText(*text, path, numVariables);
}

} // namespace zbddc
