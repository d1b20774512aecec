#pragma once

#include <string>

namespace zbddc {

// The shortest decimal text that reads back as exactly `v` (for files that must round-trip).
std::string shortestText(double v);

// `v` with 17 significant digits ("%.17g"): also reads back exactly; the .so metadata texts use it.
std::string exactText(double v);

} // namespace zbddc
