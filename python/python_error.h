// zbddc.Error: the library's one-line messages (`file:line: what is wrong`) raised in Python.
#pragma once

#include "ir/result.h"

#include <stdexcept>
#include <utility>

namespace zbddc::python {

// Raised in Python as zbddc.Error (module.cpp registers it).
struct Error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <class T> T valueOrRaise(Result<T> &&r) {
    if (!r)
        throw Error(r.error().str());
    return std::move(*r);
}

} // namespace zbddc::python
