#include "backends/cpu/plan.h"

#include <algorithm>
#include <string>
#include <thread>

namespace zbddc {

Result<CpuPlan> planCpu(const Circuit &c, const CpuOptions &o) {
    CpuPlan p;
    p.semiring = o.semiring.value_or(c.semiring);
    p.numeric = o.numeric;
    p.opsPerFunction = std::max<size_t>(1, o.opsPerFunction);
    // Float32 exists to halve a GPU's memory traffic per lane; the CPU's code is float64 only.
    if (isFloat32(p.numeric))
        return error(std::string(numericName(p.numeric)) + " runs on the GPU only; the CPU computes in float64 or log");
    if (p.numeric == Numeric::Log && p.semiring != Semiring::SumProduct &&
        p.semiring != Semiring::MaxProduct)
        return error("log space applies to product semirings; " +
                     std::string(semiringName(p.semiring)) + " is already additive");
    if (Status s = verify(c); !s)
        return s.error();

    // The ops the outputs need (ids are topological, so one reverse sweep marks them).
    const size_t n = c.numNodes();
    std::vector<uint8_t> needed(n, 0);
    for (NodeId out : c.outputs)
        needed[out] = 1;
    for (NodeId id = static_cast<NodeId>(n); id-- > 0;)
        if (needed[id] && isOp(c.kind[id])) {
            needed[c.a[id]] = needed[c.b[id]] = 1;
            if (c.kind[id] == OpKind::MulAdd)
                needed[c.c[id]] = 1;
        }

    p.position.assign(n, kNone);
    auto place = [&](NodeId id) -> Status {
        if (id >= n)
            return error("evaluation order names node " + std::to_string(id) + " of " +
                         std::to_string(n));
        if (!needed[id] || !isOp(c.kind[id]))
            return Ok{};
        if (p.position[id] != kNone)
            return error("evaluation order lists node " + std::to_string(id) + " twice");
        for (NodeId operand : operandsOf(c, id))
            if (isOp(c.kind[operand]) && p.position[operand] == kNone)
                return error("evaluation order puts node " + std::to_string(id) +
                             " before its operand " + std::to_string(operand));
        p.position[id] = static_cast<uint32_t>(p.ops.size());
        p.ops.push_back(id);
        return Ok{};
    };
    if (o.order.empty()) {
        for (NodeId id = 0; id < n; ++id)
            (void)place(id); // id order is topological: cannot fail
    } else {
        for (NodeId id : o.order)
            if (Status s = place(id); !s)
                return s.error();
    }
    for (NodeId id = 0; id < n; ++id)
        if (needed[id] && isOp(c.kind[id]) && p.position[id] == kNone)
            return error("evaluation order misses node " + std::to_string(id));

    // A value gets a slot when an op in another function reads it, or when it is an output.
    p.slot.assign(n, kNone);
    auto giveSlot = [&](NodeId id) {
        if (p.slot[id] == kNone)
            p.slot[id] = p.numSlots++;
    };
    for (NodeId id : p.ops) {
        for (NodeId operand : operandsOf(c, id))
            if (isOp(c.kind[operand]) && p.functionOf(operand) != p.functionOf(id))
                giveSlot(operand);
    }
    for (NodeId out : c.outputs)
        if (isOp(c.kind[out]))
            giveSlot(out);
    return p;
}

} // namespace zbddc
