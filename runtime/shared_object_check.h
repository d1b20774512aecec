// A model.so or problem.so checked before dlopen: dlopen maps a file's segments as its headers
// describe them, and a truncated file then dies with SIGBUS on the first page past its end, with
// no message. The ELF header, program and section header tables and every loaded segment must lie
// inside the file, for this machine's class, byte order and architecture.
#pragma once

#include "ir/result.h"

#include <string>
#include <string_view>

namespace zbddc {

// `bytes` is the whole file; errors say what is wrong ("truncated: ...").
Status checkSharedObjectImage(std::string_view bytes);

// Every .so zbddc writes carries a section named .zbddc holding "zbddc KIND abi N" (KIND model.so
// or problem.so), so that a foreign .so is refused before dlopen runs any of its code. The
// marker's text, "" where the file has no such section (after checkSharedObjectImage passed).
std::string zbddcMarker(std::string_view bytes);

// The file at `path`, read whole, checked as above and carrying the marker of `kind` ("model.so"
// or "problem.so"); errors are `path: ...`.
Status checkSharedObjectFile(const std::string &path, std::string_view kind);
// Its marker's kind ("model.so", "problem.so"), or "" where it has none or fails the checks.
std::string sharedObjectKind(const std::string &path);

} // namespace zbddc
