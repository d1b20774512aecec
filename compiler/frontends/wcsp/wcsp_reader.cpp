#include "compiler/frontends/wcsp/wcsp_reader.h"

#include "ir/text_lines.h"

#include <algorithm>

namespace zbddc {

namespace {

// Tables up to this many rows are stored complete; larger ones keep the file's sparse form
// unless the file lists at least half of their rows anyway.
constexpr uint64_t kCompleteTableRows = uint64_t{1} << 20;

// A WCSP cost: a non-negative integer; at or above the upper bound it means "forbidden". Returned
// as the network holds it (an int64 word where its costs are int64).
Result<Cost> readCost(TokenCursor &in, const char *what, uint64_t top, bool int64Costs) {
    auto t = in.token(what);
    if (!t)
        return t.error();
    uint64_t v = 0;
    if (!parseUnsigned(*t, v)) {
        if (!t->empty() && (*t)[0] == '-')
            return in.fail(std::string(what) + " " + std::string(*t) +
                           " is negative (costs must be non-negative integers)");
        return in.fail("expected " + std::string(what) + " (a non-negative integer), found " +
                       shownToken(*t));
    }
    if (int64Costs)
        return int64Word(v >= top ? kInt64Forbidden : static_cast<int64_t>(v));
    if (v >= top)
        return kForbidden;
    return static_cast<Cost>(v);
}

Result<CostFunction> readFunction(TokenCursor &in, const CostNetwork &net, uint64_t top,
                                  size_t textSize) {
    CostFunction f;
    auto arity = in.unsignedInt("arity of a cost function", 64);
    if (!arity)
        return arity.error();
    f.line = in.line();
    auto scope = readScope(in, *arity, net.numVariables(), "problem");
    if (!scope)
        return scope.error();
    f.scope = std::move(*scope);
    // A default cost of -1 introduces a global cost function keyword (salldiff, sdisj, ...).
    if (in.peekIs("-1")) {
        (void)in.token("default cost");
        auto keyword = in.token("global cost function keyword");
        if (!keyword)
            return keyword.error();
        return in.fail("global cost function '" + std::string(*keyword) +
                       "' is not supported (only cost tables are)");
    }
    auto defaultCost = readCost(in, "default cost", top, net.int64Costs);
    if (!defaultCost)
        return defaultCost.error();
    f.defaultCost = *defaultCost;
    uint64_t size = 0;
    if (!tableSize(net.domainSizes, f.scope, size))
        return errorAt(in.name(), f.line, "cost function table has more than 2^64 rows");
    auto count = in.token("number of tuples");
    if (!count)
        return count.error();
    uint64_t tuples = 0;
    if (!parseUnsigned(*count, tuples))
        return in.fail("expected number of tuples (a non-negative integer), found " +
                       shownToken(*count));
    if (tuples > size)
        return in.fail(std::to_string(tuples) + " tuples listed for a table of " +
                       std::to_string(size) + " rows");
    // A tuple takes at least two characters per value: a larger count is a truncated (or lying)
    // file, refused before any table is allocated from it.
    if (tuples > textSize / 2)
        return in.fail(std::to_string(tuples) + " tuples are more than the file could hold");
    f.sparse = size > kCompleteTableRows && tuples < size / 2;
    if (!f.sparse)
        f.costs.assign(static_cast<size_t>(size), f.defaultCost);
    for (uint64_t t = 0; t < tuples; ++t) {
        uint64_t row = 0;
        for (uint32_t v : f.scope) {
            auto value = in.unsignedInt("value of variable " + std::to_string(v));
            if (!value)
                return value.error();
            if (*value >= net.domainSizes[v])
                return in.fail("value " + std::to_string(*value) + " is outside the domain of " +
                               "variable " + std::to_string(v) + " (size " +
                               std::to_string(net.domainSizes[v]) + ")");
            row = row * net.domainSizes[v] + *value;
        }
        auto cost = readCost(in, "tuple cost", top, net.int64Costs);
        if (!cost)
            return cost.error();
        if (f.sparse) {
            f.rows.push_back(row);
            f.costs.push_back(*cost);
        } else {
            f.costs[static_cast<size_t>(row)] = *cost; // a later tuple overrides an earlier one
        }
    }
    if (f.sparse)
        normalizeSparseRows(f);
    return f;
}

} // namespace

Result<CostNetwork> parseWcsp(std::string_view text, const std::string &name) {
    TokenCursor in(text, name, '\0');
    CostNetwork net;
    auto problemName = in.token("problem name");
    if (!problemName)
        return problemName.error();
    net.name = std::string(*problemName);
    auto nvars = in.unsignedInt("number of variables", UINT32_MAX - 1);
    if (!nvars)
        return nvars.error();
    auto maxDomain = in.unsignedInt("maximum domain size", UINT32_MAX);
    if (!maxDomain)
        return maxDomain.error();
    auto nfunctions = in.unsignedInt("number of cost functions", UINT32_MAX);
    if (!nfunctions)
        return nfunctions.error();
    auto top = in.token("upper bound");
    if (!top)
        return top.error();
    uint64_t ub = 0;
    if (!parseUnsigned(*top, ub))
        return in.fail("expected upper bound (a positive integer), found " + shownToken(*top));
    if (ub == 0 || ub > kMaxInt64Cost)
        return in.fail("upper bound " + std::string(*top) + " is out of range (1 to 2^63 - 1)");
    net.int64Costs = ub > kMaxExactCost;
    net.upperBound = net.int64Costs ? int64Word(static_cast<int64_t>(ub)) : static_cast<Cost>(ub);
    // Each domain size takes at least two characters: a larger count is a truncated or lying file,
    // refused before reserving memory for it.
    if (*nvars > text.size() / 2 + 1)
        return in.fail(std::to_string(*nvars) + " variables are more than the file could hold");
    net.domainSizes.reserve(static_cast<size_t>(*nvars));
    for (uint64_t i = 0; i < *nvars; ++i) {
        auto d = in.token("domain size");
        if (!d)
            return d.error();
        uint64_t size = 0;
        if (!parseUnsigned(*d, size)) {
            if (!d->empty() && (*d)[0] == '-')
                return in.fail("domain size " + std::string(*d) + " of variable " +
                               std::to_string(i) + " (interval domains) is not supported");
            return in.fail("expected domain size, found " + shownToken(*d));
        }
        if (size == 0 || size > *maxDomain)
            return in.fail("domain size " + std::to_string(size) + " of variable " +
                           std::to_string(i) + " is out of range (1 to the maximum domain size " +
                           std::to_string(*maxDomain) + ")");
        net.domainSizes.push_back(static_cast<uint32_t>(size));
    }
    net.functions.reserve(static_cast<size_t>(std::min<uint64_t>(*nfunctions, 1u << 20)));
    for (uint64_t i = 0; i < *nfunctions; ++i) {
        auto f = readFunction(in, net, ub, text.size());
        if (!f)
            return f.error();
        net.functions.push_back(std::move(*f));
    }
    if (!in.atEnd()) {
        auto extra = in.token("end of file");
        return in.fail("unexpected '" + std::string(*extra) + "' after the last of " +
                       std::to_string(*nfunctions) + " cost functions");
    }
    return net;
}

} // namespace zbddc
