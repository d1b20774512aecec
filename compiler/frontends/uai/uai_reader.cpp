#include "compiler/frontends/uai/uai_reader.h"

#include "ir/text_lines.h"

#include <algorithm>
#include <cmath>
#include <fstream>

namespace zbddc {

namespace {
// Every number in the file takes at least two characters (itself and a separator), so a count
// beyond this is a truncated or lying file: refuse it before allocating for it.
uint64_t mostItemsIn(std::string_view text) { return text.size() / 2 + 1; }

// UAI tables are written out in full, so a table beyond this cannot come from a real file.
constexpr uint64_t kMaxTableEntries = uint64_t{1} << 32;

Result<std::vector<uint32_t>> readFactorScope(TokenCursor &in, uint64_t numVariables) {
    auto arity = in.unsignedInt("factor scope size", 64);
    if (!arity)
        return arity.error();
    return readScope(in, *arity, numVariables, "network");
}

Status readTable(TokenCursor &in, std::string_view text, size_t index, const UaiModel &model,
                 UaiFactor &factor) {
    auto count = in.unsignedInt("number of table entries");
    if (!count)
        return count.error();
    factor.tableLine = in.line();
    uint64_t size = 1;
    for (uint32_t v : factor.scope) {
        size *= model.domainSizes[v]; // cannot overflow: both factors are below 2^32 here
        if (size > kMaxTableEntries)
            return in.fail("the scope of factor " + std::to_string(index) +
                           " has more than 2^32 rows, more than a file can hold");
    }
    if (*count != size)
        return in.fail("table of factor " + std::to_string(index) + " has " + std::to_string(*count) +
                       " entries, but its scope has " + std::to_string(size) + " rows");
    if (size > mostItemsIn(text))
        return in.fail("table of factor " + std::to_string(index) + " (" + std::to_string(size) +
                       " entries) is larger than the file could hold");
    factor.table.reserve(static_cast<size_t>(size));
    for (uint64_t r = 0; r < size; ++r) {
        auto p = in.number("table entry");
        if (!p)
            return p.error();
        if (!(*p >= 0) || std::isinf(*p))
            return in.fail("table entry " + std::to_string(*p) +
                           " is out of range (must be finite and non-negative)");
        factor.table.push_back(*p);
    }
    return Ok{};
}
} // namespace

Result<UaiModel> parseUai(std::string_view text, const std::string &file) {
    TokenCursor in(text, file, '\0');
    UaiModel model;
    model.file = file;
    auto type = in.token("network type (MARKOV or BAYES)");
    if (!type)
        return type.error();
    if (*type != "MARKOV" && *type != "BAYES")
        return in.fail("expected network type MARKOV or BAYES, found " + shownToken(*type));
    model.type = std::string(*type);
    auto numVariables = in.unsignedInt("number of variables", UINT32_MAX - 1);
    if (!numVariables)
        return numVariables.error();
    if (*numVariables > mostItemsIn(text))
        return in.fail(std::to_string(*numVariables) + " variables are more than the file could hold");
    for (uint64_t v = 0; v < *numVariables; ++v) {
        auto d = in.unsignedInt("domain size", UINT32_MAX);
        if (!d)
            return d.error();
        if (*d == 0)
            return in.fail("domain size of variable " + std::to_string(v) + " is 0");
        // A table over the variable writes at least d entries; one over none still gets a table
        // of d ones (factor_model.h), and d states named: refused before either is allocated.
        if (*d > mostItemsIn(text))
            return in.fail("domain size " + std::to_string(*d) + " of variable " +
                           std::to_string(v) + " is more than the file could hold");
        model.domainSizes.push_back(static_cast<uint32_t>(*d));
    }
    model.domainsLine = in.line();
    auto numFactors = in.unsignedInt("number of factors");
    if (!numFactors)
        return numFactors.error();
    model.factorCountLine = in.line();
    if (*numFactors > mostItemsIn(text))
        return in.fail(std::to_string(*numFactors) + " factors are more than the file could hold");
    model.factors.resize(static_cast<size_t>(*numFactors));
    for (UaiFactor &factor : model.factors) {
        auto scope = readFactorScope(in, *numVariables);
        if (!scope)
            return scope.error();
        factor.scope = std::move(*scope);
        factor.scopeLine = in.line();
    }
    for (size_t f = 0; f < model.factors.size(); ++f)
        if (Status read = readTable(in, text, f, model, model.factors[f]); !read)
            return read.error();
    if (!in.atEnd()) {
        auto extra = in.token("end of file");
        return in.fail("unexpected '" + std::string(extra ? *extra : "") + "' after the last table");
    }
    return model;
}

std::string peekUaiType(const std::string &path) {
    std::ifstream in(path);
    std::string type;
    in.width(16); // a type is a short word; never read a whole binary file into it
    in >> type;
    return type;
}

} // namespace zbddc
