// Evidence given as dicts, name -> state name or state index (None or -1: unobserved), encoded as
// rows of state indices (evidence_rows.h). Unknown names fail with the command line's messages.
#pragma once

#include "session_handle.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <vector>

namespace zbddc::python {

// cases x variables, row-major, -1 where unobserved.
Result<std::vector<int64_t>> rowsFromDicts(const SessionHandle &model, nanobind::handle cases);

} // namespace zbddc::python
