// The UAI inference competitions' model format (docs/formats/uai.md, uai-markov.md): one reader
// for its shared structure — network type, domains, factor scopes, factor tables — so that the
// Bayesian-network route (BAYES as CPTs) and the elimination route (MARKOV/BAYES as costs) apply
// only their own meaning on top of it.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

struct UaiFactor {
    std::vector<uint32_t> scope; // in table order: the last variable varies fastest
    std::vector<double> table;   // finite, non-negative entries
    size_t scopeLine = 0;        // where the scope and the table are written, for messages
    size_t tableLine = 0;
};

struct UaiModel {
    std::string file;
    std::string type; // "MARKOV" or "BAYES"
    std::vector<uint32_t> domainSizes;
    std::vector<UaiFactor> factors;
    size_t factorCountLine = 0;
    size_t domainsLine = 0; // the line of the last domain size
};

// Reads and checks the structure: a known type, non-empty domains, scopes of known variables
// without repeats, tables of exactly the scope's size holding finite non-negative numbers, and
// nothing after the last table. Errors are one `file:line: message`.
Result<UaiModel> parseUai(std::string_view text, const std::string &file);

// UAI variables have no names: variable v is "X<v>" in every reading of a UAI file (uai.md), so
// that answers and `VAR=state` evidence name it alike on every route.
inline std::string uaiVariableName(size_t v) {
    return "X" + std::to_string(v);
}

// The network type a UAI file starts with ("MARKOV", "BAYES", anything else), read without reading
// the whole file; empty if the file cannot be read. The command line routes on it.
std::string peekUaiType(const std::string &path);

} // namespace zbddc
