// libFuzzer target for --order files (compiler/elimination/variable_files.cpp) over a six-variable
// problem: no crash; every rejection carries a message; every accepted order is a permutation.
#include "compiler/elimination/variable_files.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string text(reinterpret_cast<const char *>(data), size);
    if (text.find('\0') != std::string::npos)
        return 0; // readTextFile refuses NUL bytes before any parser sees them
    constexpr size_t kVariables = 6;
    auto order = zbddc::parseOrderText(text, "fuzz.order", kVariables);
    if (!order) {
        if (order.error().message.empty())
            std::abort();
        return 0;
    }
    std::vector<uint32_t> sorted = *order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t v = 0; v < kVariables; ++v)
        if (sorted.size() != kVariables || sorted[v] != v)
            std::abort();
    return 0;
}
