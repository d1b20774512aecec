// A host model of the out-of-core executor: runs a ChunkPlan step by step exactly as the GPU path
// does — each step sees only the row ranges inputRange gives (copied into buffers of their own,
// every read bounds-checked) and computes its output rows and eliminated values with the
// kernels' closed-form indexing (Bistaffa et al. 2016 Alg. 3), partial ⊕ results combined into the
// chunk. It exists so that the slicing logic is checked on every machine against the reference
// interpreter (chunk_plan_test.cpp); the out-of-core steps (chunk_steps.h) share inputRange
// with it. Test code: no executor runs it.
#pragma once

#include "backends/tensor/devices/chunk_plan.h"

#include <algorithm>
#include <string>
#include <vector>

namespace zbddc::testing {

namespace chunk_host {

inline bool eliminates(const TensorOp &op) {
    return reducesVariables(op.kind);
}

inline uint64_t strideIn(const Table &t, const std::vector<uint64_t> &strides, uint32_t v) {
    const auto it = std::find(t.scope.begin(), t.scope.end(), v);
    return it == t.scope.end() ? 0 : strides[it - t.scope.begin()];
}

// One input as a step sees it: the rows [first, first + values.size()) of the table.
struct Slice {
    uint64_t first = 0;
    std::vector<double> values;
};

} // namespace chunk_host

// Same result layout as interpretTensorProgram. An error names the op and step when a step
// reads outside the rows it was given (a slicing bug), never a wrong number.
inline Result<std::vector<std::vector<double>>> runChunkPlanOnHost(const TensorProgram &program,
                                                                   const ChunkPlan &plan) {
    using namespace chunk_host;
    if (Status s = program.verify(); !s)
        return s.error();
    if (!plan.outOfCore || plan.ops.size() != program.ops.size())
        return error("runChunkPlanOnHost needs an out-of-core plan with one entry per op");
    const SemiringOps ring{program.semiring};
    std::vector<std::vector<double>> host(program.tables.size());
    for (size_t t = 0; t < program.tables.size(); ++t)
        host[t] = program.tables[t].input ? program.tables[t].denseValues()
                                          : std::vector<double>(program.tables[t].entries());
    for (uint32_t o = 0; o < program.ops.size(); ++o) {
        const TensorOp &op = program.ops[o];
        const OpChunkPlan &cp = plan.ops[o];
        const Table &out = program.tables[op.output];
        // The kernel's constants: each input's strides along the output and eliminated
        // variables, and a slice op's evidence offset.
        std::vector<std::vector<uint64_t>> outStride(op.inputs.size()),
            elimStride(op.inputs.size());
        std::vector<uint64_t> base(op.inputs.size(), 0);
        for (size_t j = 0; j < op.inputs.size(); ++j) {
            const Table &t = program.tables[op.inputs[j]];
            const std::vector<uint64_t> strides = tableStrides(t);
            for (uint32_t v : out.scope)
                outStride[j].push_back(strideIn(t, strides, v));
            if (eliminates(op))
                for (uint32_t v : op.vars)
                    elimStride[j].push_back(strideIn(t, strides, v));
            if (op.kind == TensorOpKind::SliceEvidence)
                for (size_t i = 0; i < op.vars.size(); ++i)
                    base[j] += op.values[i] * strideIn(t, strides, op.vars[i]);
        }
        std::vector<Slice> slices(op.inputs.size());
        std::vector<double> chunk(cp.chunkRows);
        std::vector<uint64_t> off;
        for (uint64_t c = 0; c < cp.chunks; ++c)
            for (uint64_t s = 0; s < cp.elimSlices; ++s) {
                for (size_t j = 0; j < op.inputs.size(); ++j) {
                    const RowSpan r = inputRange(program, o, cp, j, c, s);
                    const std::vector<double> &src = host[op.inputs[j]];
                    if (r.first + r.rows > src.size())
                        return error("op " + std::to_string(o) + ": input " + std::to_string(j) +
                                     "'s range ends past its table");
                    slices[j].first = r.first;
                    slices[j].values.assign(src.begin() + r.first, src.begin() + r.first + r.rows);
                }
                for (uint64_t r = 0; r < cp.chunkRows; ++r) {
                    uint64_t rest = c * cp.chunkRows + r;
                    off = base;
                    for (size_t i = out.scope.size(); i-- > 0;) {
                        const uint64_t digit = rest % out.domains[i];
                        rest /= out.domains[i];
                        for (size_t j = 0; j < op.inputs.size(); ++j)
                            off[j] += digit * outStride[j][i];
                    }
                    double acc = s == 0 ? ring.zero() : chunk[r];
                    for (uint64_t e = s * cp.elimValues; e < (s + 1) * cp.elimValues; ++e) {
                        double v = ring.one();
                        for (size_t j = 0; j < op.inputs.size(); ++j) {
                            uint64_t row = off[j], er = e;
                            for (size_t i = elimStride[j].size(); i-- > 0;) {
                                const uint32_t d = program.domainSizes[op.vars[i]];
                                row += er % d * elimStride[j][i];
                                er /= d;
                            }
                            if (row < slices[j].first ||
                                row - slices[j].first >= slices[j].values.size())
                                return error("op " + std::to_string(o) + " chunk " +
                                             std::to_string(c) + " slice " + std::to_string(s) +
                                             ": input " + std::to_string(j) + " row " +
                                             std::to_string(row) + " is outside its range");
                            v = ring.times(v, slices[j].values[row - slices[j].first]);
                        }
                        acc = ring.plus(acc, v);
                    }
                    chunk[r] = acc;
                }
                if (s + 1 == cp.elimSlices)
                    std::copy(chunk.begin(), chunk.end(),
                              host[op.output].begin() + c * cp.chunkRows);
            }
    }
    for (size_t t = 0; t < program.tables.size(); ++t)
        if (program.tables[t].input)
            host[t].clear();
    return host;
}

} // namespace zbddc::testing
