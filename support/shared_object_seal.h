// The digest that seals every .so zbddc writes. Each carries, in its .zbddc marker section, the
// text " sha256 " and 64 hex digits: the SHA-256 of the whole file read with those 64 digits as
// '0'. The linker writes the placeholder (all '0'); zbddc fills it in after linking, before the
// file is renamed into place (backends/cpu/shared_object.h), and checks it before dlopen
// (runtime/shared_objects/shared_object_check.h), so that a file changed since (one flipped bit) is refused
// instead of crashing inside the dynamic loader.
#pragma once

#include "support/sha256.h"

#include <string>
#include <string_view>

namespace zbddc {

inline constexpr std::string_view kSealTag = " sha256 ";
inline constexpr size_t kSealDigits = 64;
// The marker's tail as compiled in: the tag and 64 '0' (the C sources spell it out).
#define ZBDDC_SEAL_PLACEHOLDER                                                                     \
    " sha256 0000000000000000000000000000000000000000000000000000000000000000"

// The C that defines the container header of a generated .so (a problem.so, a network.so): its
// .zbddc section "zbddc KIND abi N" + the placeholder, N spelled by the ABI header's macro
// `abiString` (ZBDD_PROBLEM_ABI_STRING), so that the header and the library agree by construction.
inline std::string containerHeaderC(std::string_view kind, std::string_view abiString) {
    return "__attribute__((section(\".zbddc\"), used)) static const char zbdd_marker[] = \"zbddc " +
           std::string(kind) + " abi \" " + std::string(abiString) +
           " \"" ZBDDC_SEAL_PLACEHOLDER "\";\n\n";
}

// The digest of `bytes` with the kSealDigits bytes at `at` read as '0'.
inline std::string sealDigest(std::string_view bytes, size_t at) {
    Sha256 hash;
    hash.update(bytes.substr(0, at));
    hash.update(std::string(kSealDigits, '0'));
    hash.update(bytes.substr(at + kSealDigits));
    return hash.hex();
}

} // namespace zbddc
