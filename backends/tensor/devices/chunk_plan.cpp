#include "backends/tensor/devices/chunk_plan.h"

#include <algorithm>
#include <bit>
#include <string>

namespace zbddc {

namespace {
constexpr uint64_t kEntryBytes = sizeof(double);
constexpr uint64_t kPointerBytes = 8; // one device pointer per input in the kernel's list

std::string mib(uint64_t bytes) {
    if (bytes < 1024 * 1024)
        return std::to_string(bytes) + " bytes";
    return std::to_string(bytes / (1024 * 1024)) + "." +
           std::to_string(bytes % (1024 * 1024) * 10 / (1024 * 1024)) + " MiB";
}

bool eliminates(const TensorOp &op) {
    return reducesVariables(op.kind);
}

// The variables a step fixes: a prefix of the output's scope, a prefix of the eliminated
// variables, and for a slice op its evidence (fixed to its values in every step).
std::vector<uint32_t> fixedVariables(const TensorProgram &p, const TensorOp &op, uint32_t outVars,
                                     uint32_t elimVars) {
    const Table &out = p.tables[op.output];
    std::vector<uint32_t> fixed(out.scope.begin(), out.scope.begin() + outVars);
    if (eliminates(op))
        fixed.insert(fixed.end(), op.vars.begin(), op.vars.begin() + elimVars);
    else if (op.kind == TensorOpKind::SliceEvidence)
        fixed.insert(fixed.end(), op.vars.begin(), op.vars.end());
    return fixed;
}

bool contains(const std::vector<uint32_t> &v, uint32_t x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// Device bytes a buffer of `bytes` occupies: the pool rounds up to a power of two (driver.cpp).
uint64_t devicePoolBytes(uint64_t bytes) {
    return std::bit_ceil(std::max<uint64_t>(bytes, 256));
}

} // namespace

OpChunkPlan opChunkCandidate(const TensorProgram &p, uint32_t opId, uint32_t outVars,
                             uint32_t elimVars, const ChunkPlanOptions &options) {
    const TensorOp &op = p.ops[opId];
    const Table &out = p.tables[op.output];
    OpChunkPlan c;
    c.fixedVars = outVars;
    c.chunkRows = 1;
    for (size_t i = outVars; i < out.scope.size(); ++i)
        c.chunkRows *= out.domains[i];
    c.chunks = out.entries() / c.chunkRows;
    c.fixedElimVars = elimVars;
    if (eliminates(op)) {
        for (size_t i = 0; i < op.vars.size(); ++i)
            (i < elimVars ? c.elimSlices : c.elimValues) *= p.domainSizes[op.vars[i]];
    }
    const std::vector<uint32_t> fixed = fixedVariables(p, op, outVars, elimVars);
    c.stepBytes = devicePoolBytes(c.chunkRows * kEntryBytes) +
                  devicePoolBytes(op.inputs.size() * kPointerBytes);
    for (uint32_t in : op.inputs) {
        const Table &t = p.tables[in];
        const std::vector<uint64_t> strides = tableStrides(t);
        bool touched = false;
        uint64_t span = 1; // the rows between the first and the last one a step reads
        for (size_t i = 0; i < t.scope.size(); ++i) {
            if (contains(fixed, t.scope[i]))
                touched = true;
            else
                span += (t.domains[i] - 1) * strides[i];
        }
        const bool sliced = touched && t.entries() > options.wholeInputMaxEntries;
        c.inputSliced.push_back(sliced);
        c.inputRows.push_back(sliced ? span : t.entries());
        (sliced ? c.stepBytes : c.residentBytes) +=
            devicePoolBytes(c.inputRows.back() * kEntryBytes);
    }
    return c;
}

Result<ChunkPlan> planChunks(const TensorProgram &program, const ChunkPlanOptions &options) {
    ChunkPlan plan;
    uint64_t total = 0;
    for (const Table &t : program.tables)
        total += devicePoolBytes(t.entries() * kEntryBytes);
    for (const TensorOp &op : program.ops)
        total += devicePoolBytes(op.inputs.size() * kPointerBytes);
    if (total <= options.budgetBytes)
        return plan;
    plan.outOfCore = true;
    plan.ops.resize(program.ops.size());
    for (uint32_t o = 0; o < program.ops.size(); ++o) {
        const TensorOp &op = program.ops[o];
        const uint32_t outVars = static_cast<uint32_t>(program.tables[op.output].scope.size());
        const uint32_t elimVars = eliminates(op) ? static_cast<uint32_t>(op.vars.size()) : 0;
        // Candidates from the largest steps to the smallest: fix more output variables first,
        // then (all output variables fixed) more eliminated ones.
        std::vector<OpChunkPlan> candidates;
        for (uint32_t k = 0; k <= outVars; ++k)
            candidates.push_back(opChunkCandidate(program, o, k, 0, options));
        for (uint32_t e = 1; e <= elimVars; ++e)
            candidates.push_back(opChunkCandidate(program, o, outVars, e, options));
        // The largest steps that fit (the steps run one after another: chunk_steps.h).
        const auto fits = std::find_if(candidates.begin(), candidates.end(), [&](const auto &c) {
            return c.residentBytes + c.stepBytes <= options.budgetBytes;
        });
        if (fits != candidates.end()) {
            plan.ops[o] = *fits;
        } else {
            const OpChunkPlan &finest = candidates.back();
            return error("op " + std::to_string(o) + " needs " + mib(finest.residentBytes) +
                         " of whole inputs and " + mib(finest.stepBytes) +
                         " per step even in its smallest steps, beyond the device budget of " +
                         mib(options.budgetBytes));
        }
    }
    return plan;
}

RowSpan inputRange(const TensorProgram &program, uint32_t opId, const OpChunkPlan &plan,
                   size_t input, uint64_t chunk, uint64_t slice) {
    if (!plan.inputSliced[input])
        return {0, plan.inputRows[input]};
    const TensorOp &op = program.ops[opId];
    const Table &out = program.tables[op.output];
    std::vector<uint32_t> value(program.domainSizes.size(), 0);
    // The chunk index is the fixed output prefix in mixed radix (most significant first), the
    // slice index likewise the fixed eliminated prefix.
    for (size_t i = plan.fixedVars; i-- > 0;) {
        value[out.scope[i]] = static_cast<uint32_t>(chunk % out.domains[i]);
        chunk /= out.domains[i];
    }
    if (eliminates(op))
        for (size_t i = plan.fixedElimVars; i-- > 0;) {
            const uint32_t d = program.domainSizes[op.vars[i]];
            value[op.vars[i]] = static_cast<uint32_t>(slice % d);
            slice /= d;
        }
    else if (op.kind == TensorOpKind::SliceEvidence)
        for (size_t i = 0; i < op.vars.size(); ++i)
            value[op.vars[i]] = op.values[i];
    const Table &t = program.tables[op.inputs[input]];
    const std::vector<uint64_t> strides = tableStrides(t);
    // Free variables read from 0, so the first row is the fixed variables' offset alone.
    uint64_t first = 0;
    for (size_t i = 0; i < t.scope.size(); ++i)
        first += value[t.scope[i]] * strides[i];
    return {first, plan.inputRows[input]};
}

} // namespace zbddc
