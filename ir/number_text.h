#pragma once

#include <string>

namespace zbddc {

// The shortest decimal text that reads back as exactly `v` (for files that must round-trip).
std::string shortestText(double v);

// `v` with 17 significant digits ("%.17g"): also reads back exactly; the .so metadata texts use it.
std::string exactText(double v);

// A JSON number: shortestText, or null where `v` is not finite (JSON has no NaN or infinity).
std::string jsonNumber(double v);

// Two significant digits ("%.2g"): the size of an error bound, not a value.
std::string twoDigits(double v);

} // namespace zbddc
