#pragma once

#include <string>

namespace zbddc {

// The shortest decimal text that reads back as exactly `v` (for files that must round-trip).
std::string shortestText(double v);

} // namespace zbddc
