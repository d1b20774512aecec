#include "compiler/elimination/bucket_program.h"

#include "compiler/elimination/elimination_order.h"
#include "ir/table_over.h"

#include <algorithm>
#include <numeric>

namespace zbddc {

namespace {

constexpr uint32_t kFree = UINT32_MAX;

// Scope sorted by elimination position, latest first (most significant).
std::vector<uint32_t> canonicalScope(std::vector<uint32_t> scope,
                                     const std::vector<uint32_t> &pos) {
    std::sort(scope.begin(), scope.end(), [&](uint32_t a, uint32_t b) { return pos[a] > pos[b]; });
    return scope;
}

} // namespace

Table costFunctionTable(const CostFunction &f, const std::vector<uint32_t> &scope,
                        const std::vector<uint32_t> &domainSizes) {
    Table t = tableOver(scope, domainSizes);
    t.input = true;
    t.sparse = f.sparse;
    t.defaultValue = f.defaultCost;
    const std::vector<uint64_t> strides = tableStrides(t);
    // Stride in the new layout of each variable of the function's own layout.
    std::vector<uint64_t> newStride(f.scope.size());
    for (size_t i = 0; i < f.scope.size(); ++i)
        newStride[i] = strides[std::find(scope.begin(), scope.end(), f.scope[i]) - scope.begin()];
    auto remap = [&](uint64_t row) {
        uint64_t out = 0;
        for (size_t i = f.scope.size(); i-- > 0;) {
            const uint32_t d = domainSizes[f.scope[i]];
            out += (row % d) * newStride[i];
            row /= d;
        }
        return out;
    };
    if (!f.sparse && scope == f.scope) {
        t.values.assign(f.costs.begin(), f.costs.end());
        return t;
    }
    if (!f.sparse) {
        // The function's rows in order, its last variable fastest: an odometer over its digits
        // keeps each row's place in the new layout without a division (a DPOP message of SPOT5
        // 404: 8M rows of 20 digits, the remap's divisions most of an agent's time).
        t.values.assign(f.costs.size(), 0.0);
        std::vector<uint32_t> digit(f.scope.size(), 0);
        uint64_t out = 0;
        for (uint64_t r = 0; r < f.costs.size(); ++r) {
            t.values[out] = f.costs[r];
            for (size_t i = f.scope.size(); i-- > 0;) {
                out += newStride[i];
                if (++digit[i] < domainSizes[f.scope[i]])
                    break;
                out -= newStride[i] * digit[i];
                digit[i] = 0;
            }
        }
        return t;
    }
    std::vector<std::pair<uint64_t, double>> rows(f.rows.size());
    for (size_t i = 0; i < f.rows.size(); ++i)
        rows[i] = {remap(f.rows[i]), f.costs[i]};
    std::sort(rows.begin(), rows.end());
    for (auto &[row, value] : rows) {
        t.rows.push_back(row);
        t.values.push_back(value);
    }
    return t;
}

Table costFunctionTable(CostFunction &&f, const std::vector<uint32_t> &scope,
                        const std::vector<uint32_t> &domainSizes) {
    if (f.sparse || scope != f.scope)
        return costFunctionTable(static_cast<const CostFunction &>(f), scope, domainSizes);
    Table t = tableOver(scope, domainSizes);
    t.input = true;
    t.defaultValue = f.defaultCost;
    t.values = std::move(f.costs);
    return t;
}

Result<TensorProgram> buildBucketProgram(const CostNetwork &network,
                                         const std::vector<uint32_t> &order,
                                         const BucketProgramOptions &options) {
    const size_t n = network.numVariables();
    if (Status s = checkOrder(order, n); !s)
        return s.error();
    const bool hasEvidence = !options.evidence.empty();
    if (hasEvidence && options.evidence.size() != n)
        return error("evidence must give one entry per variable");
    for (size_t v = 0; hasEvidence && v < n; ++v)
        if (options.evidence[v] != kFree && options.evidence[v] >= network.domainSizes[v])
            return error("evidence value of variable " + std::to_string(v) + " is out of range");
    std::vector<uint32_t> pos(n);
    for (uint32_t i = 0; i < n; ++i)
        pos[order[i]] = i;

    TensorProgram p;
    p.semiring = network.semiring();
    p.domainSizes = network.domainSizes;
    std::vector<std::vector<uint32_t>> bucket(n); // tables waiting in each variable's bucket

    // Places a table in the bucket of its earliest-eliminated variable, or among the results.
    auto place = [&](uint32_t id) {
        const auto &scope = p.tables[id].scope;
        if (scope.empty())
            p.results.push_back(id);
        else
            bucket[scope.back()].push_back(id); // canonical layout: scope.back() is earliest
    };
    auto addTable = [&](Table t) {
        p.tables.push_back(std::move(t));
        return static_cast<uint32_t>(p.tables.size() - 1);
    };

    for (const CostFunction &f : network.functions) {
        const uint32_t in =
            addTable(costFunctionTable(f, canonicalScope(f.scope, pos), network.domainSizes));
        TensorOp slice{TensorOpKind::SliceEvidence, {in}, 0, {}, {}};
        std::vector<uint32_t> kept;
        for (uint32_t v : p.tables[in].scope) {
            if (hasEvidence && options.evidence[v] != kFree) {
                slice.vars.push_back(v);
                slice.values.push_back(options.evidence[v]);
            } else {
                kept.push_back(v);
            }
        }
        if (slice.vars.empty()) {
            place(in);
            continue;
        }
        slice.output = addTable(tableOver(kept, network.domainSizes));
        p.ops.push_back(std::move(slice));
        place(p.ops.back().output);
    }

    for (uint32_t v : order) {
        if (bucket[v].empty() || (hasEvidence && options.evidence[v] != kFree))
            continue;
        std::vector<uint32_t> separator;
        for (uint32_t t : bucket[v])
            for (uint32_t u : p.tables[t].scope)
                if (u != v && std::find(separator.begin(), separator.end(), u) == separator.end())
                    separator.push_back(u);
        separator = canonicalScope(separator, pos);
        uint32_t out;
        if (options.fuseBuckets) {
            out = addTable(tableOver(separator, network.domainSizes));
            p.ops.push_back({TensorOpKind::EliminateBucket, bucket[v], out, {v}, {}});
        } else {
            std::vector<uint32_t> joinedScope = separator;
            joinedScope.push_back(v); // v is eliminated before every separator variable
            const uint32_t joined = addTable(tableOver(joinedScope, network.domainSizes));
            p.ops.push_back({TensorOpKind::Join, bucket[v], joined, {}, {}});
            out = addTable(tableOver(separator, network.domainSizes));
            p.ops.push_back({TensorOpKind::Marginalize, {joined}, out, {v}, {}});
        }
        place(out);
    }
    computeLevels(p);
    if (Status s = p.verify(); !s)
        return error("internal error: bucket program fails verification: " + s.error().message);
    return p;
}

} // namespace zbddc
