// Reading NVRTC's PTX in tests: one kernel's body, and whether it does floating-point work (a
// kernel over int64 costs must do none: its words read as doubles would be garbage).
#pragma once

#include <string>
#include <string_view>

namespace zbddc::testing {

// The PTX of entry `name`, from its declaration to the brace that closes it (the first one at
// the start of a line); empty if there is no such entry. Device functions are inlined into it.
inline std::string_view ptxEntry(std::string_view ptx, std::string_view name) {
    const size_t at = ptx.find(".entry " + std::string(name) + "(");
    if (at == std::string_view::npos)
        return {};
    const size_t end = ptx.find("\n}", at);
    return ptx.substr(at, end == std::string_view::npos ? end : end - at);
}

// Whether PTX declares or operates on a floating-point type.
inline bool usesFloatingPoint(std::string_view ptx) {
    for (std::string_view type : {".f16", ".f32", ".f64"})
        if (ptx.find(type) != std::string_view::npos)
            return true;
    return false;
}

} // namespace zbddc::testing
