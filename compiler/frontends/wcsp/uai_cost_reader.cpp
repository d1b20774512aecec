#include "compiler/frontends/wcsp/uai_cost_reader.h"

#include "compiler/frontends/text_lines.h"

#include <algorithm>
#include <cmath>

namespace zbddc {

namespace {
// UAI tables are complete and written out in full, so a table larger than this many entries
// cannot come from a real file; refusing it up front avoids a huge allocation.
constexpr uint64_t kMaxUaiTableEntries = uint64_t{1} << 32;
} // namespace

Result<CostNetwork> parseUaiAsCostNetwork(std::string_view text, const std::string &name) {
    TokenCursor in(text, name, '\0');
    CostNetwork net;
    net.integerCosts = false;
    auto kind = in.token("network type (MARKOV or BAYES)");
    if (!kind)
        return kind.error();
    if (*kind != "MARKOV" && *kind != "BAYES")
        return in.fail("expected network type MARKOV or BAYES, found '" + std::string(*kind) + "'");
    net.name = std::string(*kind);
    auto nvars = in.unsignedInt("number of variables", UINT32_MAX - 1);
    if (!nvars)
        return nvars.error();
    for (uint64_t i = 0; i < *nvars; ++i) {
        auto d = in.unsignedInt("domain size", UINT32_MAX);
        if (!d)
            return d.error();
        if (*d == 0)
            return in.fail("domain size of variable " + std::to_string(i) + " is 0");
        net.domainSizes.push_back(static_cast<uint32_t>(*d));
    }
    auto nfunctions = in.unsignedInt("number of factors", UINT32_MAX);
    if (!nfunctions)
        return nfunctions.error();
    net.functions.reserve(static_cast<size_t>(std::min<uint64_t>(*nfunctions, 1u << 20)));
    for (uint64_t i = 0; i < *nfunctions; ++i) {
        CostFunction f;
        auto arity = in.unsignedInt("factor scope size", 64);
        if (!arity)
            return arity.error();
        f.line = in.line();
        for (uint64_t k = 0; k < *arity; ++k) {
            auto var = in.unsignedInt("variable index");
            if (!var)
                return var.error();
            if (*var >= net.numVariables())
                return in.fail("unknown variable " + std::to_string(*var) + " (the network has " +
                               std::to_string(net.numVariables()) + " variables)");
            const auto v = static_cast<uint32_t>(*var);
            if (std::find(f.scope.begin(), f.scope.end(), v) != f.scope.end())
                return in.fail("variable " + std::to_string(v) + " appears twice in one scope");
            f.scope.push_back(v);
        }
        net.functions.push_back(std::move(f));
    }
    for (CostFunction &f : net.functions) {
        auto count = in.unsignedInt("number of table entries");
        if (!count)
            return count.error();
        uint64_t size = 0;
        if (!tableSize(net.domainSizes, f.scope, size))
            return in.fail("factor table has more than 2^64 entries");
        if (*count != size)
            return in.fail("factor table has " + std::to_string(*count) +
                           " entries, but its scope has " + std::to_string(size) + " rows");
        if (size > kMaxUaiTableEntries)
            return in.fail("factor table of " + std::to_string(size) + " entries is too large");
        // Each entry takes at least two characters, so a count beyond that is a truncated (or
        // lying) file: refuse it before reserving memory for it.
        if (size > text.size() / 2 + 1)
            return in.fail("factor table of " + std::to_string(size) +
                           " entries is larger than the file could hold");
        f.costs.reserve(static_cast<size_t>(size));
        for (uint64_t r = 0; r < size; ++r) {
            auto p = in.number("table entry");
            if (!p)
                return p.error();
            if (!(*p >= 0) || std::isinf(*p))
                return in.fail("table entry " + std::to_string(*p) +
                               " is out of range (must be finite and non-negative)");
            f.costs.push_back(*p == 0 ? kForbidden : -std::log(*p));
        }
    }
    if (!in.atEnd()) {
        auto extra = in.token("end of file");
        return in.fail("unexpected '" + std::string(*extra) + "' after the last factor table");
    }
    return net;
}

} // namespace zbddc
