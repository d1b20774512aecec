#include "backends/tensor/cuda/plan/value_phase_plan.h"

#include <algorithm>
#include <string>

namespace zbddc::cuda {

Result<std::vector<uint32_t>> buildValuePhasePlan(const TensorProgram &program) {
    constexpr uint32_t kEliminated = 0x80000000u;
    if (program.domainSizes.size() >= kEliminated)
        return error("the VALUE phase plan holds at most 2^31 variables");
    // Each op's record (in `recordWords`, from recordAt[r]) and depth, last op first (the order
    // the host's backward pass decodes in).
    std::vector<uint32_t> recordWords, depths;
    std::vector<size_t> recordAt;
    uint32_t mostVars = 0;
    // Per variable, the depth of its latest writer and of its readers since (-1: none): an op
    // decodes after the writers of what it reads, and after the writers and readers of what it
    // writes, so every read sees the value the sequential order would give it. A case's pinned
    // variables are written by no op (read instead): for that case the order only has more
    // constraints than it needs.
    const size_t n = program.domainSizes.size();
    std::vector<int64_t> written(n, -1), read(n, -1);
    std::vector<uint32_t> reads;
    std::vector<uint64_t> strides;
    const std::vector<uint8_t> scaleOnly = scaleOnlyTables(program); // as recoverAssignment
    for (size_t o = program.ops.size(); o-- > 0;) {
        const TensorOp &op = program.ops[o];
        if ((op.kind != TensorOpKind::Marginalize && op.kind != TensorOpKind::EliminateBucket) ||
            scaleOnly[op.output])
            continue;
        const std::vector<uint32_t> &vars = op.vars;
        if (vars.empty())
            continue;
        mostVars = std::max(mostVars, static_cast<uint32_t>(vars.size()));
        const size_t start = recordWords.size();
        recordWords.push_back(static_cast<uint32_t>(vars.size()));
        uint64_t stride = 1;
        strides.resize(vars.size());
        for (size_t k = vars.size(); k-- > 0;) {
            strides[k] = stride;
            stride *= program.domainSizes[vars[k]];
        }
        for (size_t k = 0; k < vars.size(); ++k)
            recordWords.insert(recordWords.end(), {vars[k], program.domainSizes[vars[k]],
                                                   static_cast<uint32_t>(strides[k]),
                                                   static_cast<uint32_t>(strides[k] >> 32)});
        recordWords.push_back(static_cast<uint32_t>(op.inputs.size()));
        const size_t offsetsAt = recordWords.size();
        recordWords.resize(recordWords.size() + op.inputs.size());
        int64_t depth = 0;
        reads.clear();
        for (size_t k = 0; k < op.inputs.size(); ++k) {
            const uint32_t in = op.inputs[k];
            const Table &t = program.tables[in];
            recordWords[offsetsAt + k] = static_cast<uint32_t>(recordWords.size() - start);
            recordWords.insert(recordWords.end(), {in, static_cast<uint32_t>(t.scope.size())});
            for (size_t s = 0; s < t.scope.size(); ++s) {
                const auto k = std::find(vars.begin(), vars.end(), t.scope[s]);
                if (k == vars.end()) {
                    depth = std::max(depth, written[t.scope[s]] + 1);
                    reads.push_back(t.scope[s]);
                }
                recordWords.push_back(k == vars.end()
                                          ? t.scope[s]
                                          : kEliminated | static_cast<uint32_t>(k - vars.begin()));
                recordWords.push_back(t.domains[s]);
            }
        }
        for (uint32_t v : vars)
            depth = std::max({depth, written[v] + 1, read[v] + 1});
        for (uint32_t v : reads)
            read[v] = std::max(read[v], depth);
        for (uint32_t v : vars)
            written[v] = depth, read[v] = -1;
        recordAt.push_back(start);
        depths.push_back(static_cast<uint32_t>(depth));
    }
    recordAt.push_back(recordWords.size());
    const uint32_t nDepths =
        depths.empty() ? 0 : *std::max_element(depths.begin(), depths.end()) + 1;
    std::vector<uint32_t> plan;
    plan.push_back(static_cast<uint32_t>(program.results.size()));
    plan.insert(plan.end(), program.results.begin(), program.results.end());
    plan.push_back(static_cast<uint32_t>(depths.size()));
    plan.push_back(nDepths);
    plan.push_back(mostVars);
    const size_t countsAt = plan.size();
    plan.resize(plan.size() + nDepths, 0);
    for (uint32_t d : depths)
        ++plan[countsAt + d];
    // The offsets, depth by depth (within a depth, last op first); then the records.
    const size_t offsetsAt = plan.size();
    plan.resize(plan.size() + depths.size());
    std::vector<uint32_t> next(nDepths, 0);
    for (uint32_t d = 1; d < nDepths; ++d)
        next[d] = next[d - 1] + plan[countsAt + d - 1];
    for (size_t r = 0; r < depths.size(); ++r) {
        if (plan.size() >= kEliminated)
            return error("the VALUE phase plan holds at most 2^31 words");
        plan[offsetsAt + next[depths[r]]++] = static_cast<uint32_t>(plan.size());
        plan.insert(plan.end(), recordWords.begin() + static_cast<std::ptrdiff_t>(recordAt[r]),
                    recordWords.begin() + static_cast<std::ptrdiff_t>(recordAt[r + 1]));
    }
    return plan;
}

std::vector<uint32_t> casePins(const std::vector<uint8_t> &pinned, size_t numVariables,
                               uint32_t cases) {
    const uint32_t words = pinWords(numVariables);
    std::vector<uint32_t> pins(size_t{words} * cases, 0);
    for (size_t b = 0; b < cases; ++b)
        for (size_t v = 0; v < numVariables; ++v)
            if (pinned[b * numVariables + v])
                pins[b * words + v / 32] |= 1u << (v % 32);
    return pins;
}

ValuePhaseShape valuePhaseShape(const std::vector<uint32_t> &plan) {
    ValuePhaseShape s;
    if (plan.empty())
        return s;
    const size_t at = 1 + plan[0];
    s.ops = plan[at];
    s.depths = plan[at + 1];
    s.vars = plan[at + 2];
    for (uint32_t d = 0; d < s.depths; ++d)
        s.widest = std::max(s.widest, plan[at + 3 + d]);
    return s;
}

Result<SegmentArrays> segmentArrays(const TensorProgram &program,
                                    std::vector<TableSegment> segments) {
    std::stable_sort(segments.begin(), segments.end(),
                     [](const TableSegment &a, const TableSegment &b) {
                         return a.table != b.table ? a.table < b.table : a.firstRow < b.firstRow;
                     });
    SegmentArrays out;
    size_t s = 0;
    for (uint32_t t = 0; t < program.tables.size(); ++t) {
        out.at.push_back(static_cast<uint32_t>(out.ptr.size()));
        uint64_t covered = 0;
        const size_t first = s;
        for (; s < segments.size() && segments[s].table == t; ++s) {
            if (segments[s].firstRow != covered)
                return error("internal error: table " + std::to_string(t) + "'s segments " +
                             (segments[s].firstRow > covered ? "miss" : "overlap at") + " row " +
                             std::to_string(covered));
            covered += segments[s].rows;
            out.rows.push_back(segments[s].firstRow);
            out.rows.push_back(covered);
            out.ptr.push_back(segments[s].at);
        }
        if (s == first) { // never read: an empty segment keeps the indices in step
            out.rows.insert(out.rows.end(), {0, 0});
            out.ptr.push_back(0);
        } else if (covered != program.tables[t].entries()) {
            return error("internal error: table " + std::to_string(t) + "'s segments cover " +
                         std::to_string(covered) + " of its " +
                         std::to_string(program.tables[t].entries()) + " rows");
        }
    }
    if (s != segments.size())
        return error("internal error: a segment of table " + std::to_string(segments[s].table) +
                     ", which the program does not have");
    out.at.push_back(static_cast<uint32_t>(out.ptr.size()));
    return out;
}

} // namespace zbddc::cuda
