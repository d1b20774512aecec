// The metadata a model.so carries so that a loader can answer PR/MAR/MPE from it alone: the
// semiring and numeric mode it was compiled for, the variable table, the meaning of every input
// and the output names. Plain text, one record per line (docs/c-api.md); names are
// percent-encoded so that every token is free of blanks.
#pragma once

#include "ir/circuit.h"
#include "ir/interpret.h"

#include <string>

namespace zbddc {

std::string writeModelMetadata(const Circuit &circuit, Semiring semiring, Numeric numeric);

// Percent-encodes '%', blanks and control characters; "" becomes "%" (an empty token).
std::string encodeName(const std::string &name);

} // namespace zbddc
