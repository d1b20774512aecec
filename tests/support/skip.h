// Skipping a whole test program: prints why and exits with CTest's skip code (77), so a missing
// GPU or missing inputs show up as "Skipped" with a reason, never as a pass.
#pragma once

#include "ir/result.h"

#include <cstdio>
#include <cstdlib>

namespace zbddc::testing {

inline bool skipProgramUnless(const Status &available, const char *what) {
    if (!available) {
        std::printf("SKIPPED: %s: %s\n", what, available.error().message.c_str());
        std::exit(77);
    }
    return true;
}

} // namespace zbddc::testing
