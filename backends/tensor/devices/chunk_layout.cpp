#include "backends/tensor/devices/chunk_layout.h"

#include <algorithm>
#include <tuple>

namespace zbddc {

namespace {
bool contains(const std::vector<uint32_t> &v, uint32_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// Row index in layout `to` of every row of layout `from`, as a function.
struct RowMap {
    std::vector<uint32_t> domains;  // of `from`, most significant first
    std::vector<uint64_t> toStride; // stride in `to` of each variable of `from`
    uint64_t operator()(uint64_t row) const {
        uint64_t out = 0;
        for (size_t i = domains.size(); i-- > 0;) {
            out += row % domains[i] * toStride[i];
            row /= domains[i];
        }
        return out;
    }
};

RowMap rowMap(const std::vector<uint32_t> &from, const std::vector<uint32_t> &to,
              const std::vector<uint32_t> &domainSizes) {
    Table target;
    target.scope = to;
    for (uint32_t v : to)
        target.domains.push_back(domainSizes[v]);
    const std::vector<uint64_t> strides = tableStrides(target);
    RowMap m;
    for (uint32_t v : from) {
        m.domains.push_back(domainSizes[v]);
        m.toStride.push_back(strides[std::find(to.begin(), to.end(), v) - to.begin()]);
    }
    return m;
}

// The scope each table should have (index = table id).
std::vector<std::vector<uint32_t>> chunkFriendlyScopes(const TensorProgram &program) {
    std::vector<std::vector<uint32_t>> scopes(program.tables.size());
    std::vector<bool> decided(program.tables.size(), false);
    for (size_t t = 0; t < program.tables.size(); ++t)
        scopes[t] = program.tables[t].scope;
    // Last op first: an op's output layout is final once its readers (later ops) have chosen it.
    for (size_t o = program.ops.size(); o-- > 0;) {
        const TensorOp &op = program.ops[o];
        const std::vector<uint32_t> &out = scopes[op.output];
        std::vector<uint32_t> wanted; // evidence, output order, eliminated order
        if (op.kind == TensorOpKind::SliceEvidence)
            wanted = op.vars;
        wanted.insert(wanted.end(), out.begin(), out.end());
        if (op.kind != TensorOpKind::SliceEvidence)
            wanted.insert(wanted.end(), op.vars.begin(), op.vars.end());
        for (uint32_t in : op.inputs) {
            if (decided[in])
                continue;
            decided[in] = true;
            std::vector<uint32_t> scope;
            for (uint32_t v : wanted)
                if (contains(program.tables[in].scope, v))
                    scope.push_back(v);
            scopes[in] = scope; // every input variable is in `wanted` (verify's scope rules)
        }
    }
    return scopes;
}

} // namespace

bool needsRelayout(const TensorProgram &program) {
    const auto scopes = chunkFriendlyScopes(program);
    for (size_t t = 0; t < scopes.size(); ++t)
        if (scopes[t] != program.tables[t].scope)
            return true;
    return false;
}

std::vector<double> transposeTable(const std::vector<double> &values,
                                   const std::vector<uint32_t> &from,
                                   const std::vector<uint32_t> &to,
                                   const std::vector<uint32_t> &domainSizes) {
    if (from == to)
        return values;
    const RowMap map = rowMap(from, to, domainSizes);
    std::vector<double> out(values.size());
    for (uint64_t r = 0; r < values.size(); ++r)
        out[map(r)] = values[r];
    return out;
}

TensorProgram relayoutForChunks(const TensorProgram &program) {
    const auto scopes = chunkFriendlyScopes(program);
    TensorProgram p = program;
    for (size_t t = 0; t < p.tables.size(); ++t) {
        Table &tab = p.tables[t];
        if (scopes[t] == tab.scope)
            continue;
        if (tab.input && !tab.sparse) {
            tab.values = transposeTable(tab.values, tab.scope, scopes[t], p.domainSizes);
        } else if (tab.input) {
            const RowMap map = rowMap(tab.scope, scopes[t], p.domainSizes);
            std::vector<std::pair<uint64_t, double>> rows(tab.rows.size());
            for (size_t i = 0; i < rows.size(); ++i)
                rows[i] = {map(tab.rows[i]), tab.values[i]};
            std::sort(rows.begin(), rows.end());
            for (size_t i = 0; i < rows.size(); ++i)
                std::tie(tab.rows[i], tab.values[i]) = rows[i];
        }
        tab.scope = scopes[t];
        tab.domains.clear();
        for (uint32_t v : tab.scope)
            tab.domains.push_back(p.domainSizes[v]);
    }
    return p;
}

void restoreLayouts(const TensorProgram &original, const TensorProgram &relaid,
                    std::vector<std::vector<double>> &computed) {
    for (size_t t = 0; t < original.tables.size(); ++t)
        if (!original.tables[t].input && original.tables[t].scope != relaid.tables[t].scope)
            computed[t] = transposeTable(computed[t], relaid.tables[t].scope,
                                         original.tables[t].scope, original.domainSizes);
}

} // namespace zbddc
