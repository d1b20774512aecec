// A .so checked before dlopen: dlopen maps a file's segments as its headers
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

// Every .so zbddc writes carries a section named .zbddc holding its container header, "zbddc KIND
// abi N sha256 DIGEST" (KIND model.so, network.so or problem.so; N the version of that kind's C
// ABI), so that a foreign .so, one of another kind or of another ABI is refused before dlopen runs
// any of its code. The marker's text, "" where the file has no such section (after
// checkSharedObjectImage passed).
std::string zbddcMarker(std::string_view bytes);
struct SharedObjectMarker {
    std::string kind; // "model.so", ...; "" for text that is no marker
    unsigned abi = 0;
};
SharedObjectMarker parseMarker(std::string_view marker);

// The marker's digest (support/shared_object_seal.h) against the image: a file changed since zbddc
// sealed it fails ("damaged: ..."). A digest of all '0' (a .so built by hand from --emit=c) is
// not checked. `bytes` passed checkSharedObjectImage.
Status checkSharedObjectSeal(std::string_view bytes);

// The file at `path`, read whole (ir/file_io.h), checked as above, carrying the marker of `kind`
// ("model.so", "network.so" or "problem.so") and matching its digest; errors are one line
// `path: ...`. Returns the marker.
Result<SharedObjectMarker> checkSharedObjectFile(const std::string &path, std::string_view kind);
// Its marker's kind ("model.so", "network.so", "problem.so"), or "" where it has none or fails the checks.
std::string sharedObjectKind(const std::string &path);

} // namespace zbddc
