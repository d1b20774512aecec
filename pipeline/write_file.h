// Output files written whole or not at all: through a temporary file in the same folder renamed
// into place, removed on failure and on a fatal signal (support/cleanup_on_signal.h).
#pragma once

#include "ir/result.h"

#include <functional>
#include <iosfwd>
#include <string>

namespace zbddc::pipeline {

Status writeFileAtomically(const std::string &path, const std::function<bool(std::ostream &)> &write);

} // namespace zbddc::pipeline
