#include "compiler/passes/host_phases.h"

#include "ir/levels.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

namespace {

enum class Part : uint8_t { Leaf, Pre, Device, Post };

// One part under construction: the whole circuit's inputs first (same indices), then the inputs
// that carry values across a cut; ops copied in id order with their operands mapped.
class PartBuilder {
  public:
    explicit PartBuilder(const Circuit &whole) : whole_(whole), local_(whole.numNodes(), kNone) {
        circuit.semiring = whole.semiring;
        circuit.inputs = whole.inputs;
        circuit.variables = whole.variables;
    }

    NodeId addFreeInput(std::string name) {
        InputInfo info;
        info.name = std::move(name);
        return circuit.addInput(circuit.addInputInfo(std::move(info)));
    }
    // `node` of a part below, read here as an input.
    void addCrossing(NodeId node, const char *kind) {
        local_[node] = addFreeInput(std::string(kind) + std::to_string(node));
    }
    // The local node of a whole-circuit node: a leaf is copied on first use; an op must have
    // been copied or crossed in already.
    NodeId local(NodeId id) {
        if (local_[id] != kNone)
            return local_[id];
        switch (whole_.kind[id]) {
        case OpKind::Input:
            return local_[id] = circuit.addInput(whole_.a[id]);
        case OpKind::Zero:
            return local_[id] = circuit.addZero();
        case OpKind::One:
            return local_[id] = circuit.addOne();
        case OpKind::Const:
            return local_[id] = circuit.addConst(whole_.constants[whole_.a[id]]);
        default:
            return kNone; // unreachable: ops are copied before their readers
        }
    }
    void copyOp(NodeId id) {
        switch (whole_.kind[id]) {
        case OpKind::Plus:
            local_[id] = circuit.addPlus(local(whole_.a[id]), local(whole_.b[id]));
            break;
        case OpKind::Times:
            local_[id] = circuit.addTimes(local(whole_.a[id]), local(whole_.b[id]));
            break;
        case OpKind::MulAdd:
            local_[id] =
                circuit.addMulAdd(local(whole_.a[id]), local(whole_.b[id]), local(whole_.c[id]));
            break;
        default:
            break;
        }
    }
    // Outputs: the crossing values, then their seed ⊕_k w_k ⊗ value_k over fresh inputs w_k,
    // summed as a balanced tree (a chain would add as many levels as values).
    void addCrossingOutputs(std::span<const NodeId> values, const char *weightName) {
        std::vector<NodeId> terms;
        for (NodeId v : values)
            circuit.addOutput(local(v));
        for (size_t k = 0; k < values.size(); ++k)
            terms.push_back(
                circuit.addTimes(addFreeInput(weightName + std::to_string(k)), local(values[k])));
        while (terms.size() > 1) {
            std::vector<NodeId> next;
            for (size_t k = 0; k + 1 < terms.size(); k += 2)
                next.push_back(circuit.addPlus(terms[k], terms[k + 1]));
            if (terms.size() % 2)
                next.push_back(terms.back());
            terms = std::move(next);
        }
        circuit.addOutput(terms.empty() ? circuit.addZero() : terms[0], "seed");
    }

    Circuit circuit;

  private:
    const Circuit &whole_;
    std::vector<NodeId> local_;
};

} // namespace

HostPhaseCircuits splitHostPhases(const Circuit &c, uint32_t hostMaxOps) {
    HostPhaseCircuits r;
    const std::vector<uint32_t> level = asapLevels(c);
    uint32_t levels = 0;
    for (NodeId id = 0; id < c.numNodes(); ++id)
        levels = std::max(levels, level[id]); // ops sit at 1..levels
    std::vector<uint32_t> width(levels, 0);
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (isOp(c.kind[id]))
            ++width[level[id] - 1];
    const NarrowEnds ends = narrowEnds(levels, hostMaxOps, [&](uint32_t l) { return width[l]; });
    // Nothing narrow at either end, or nothing wide in between (nothing left for the device):
    // nothing is cut.
    if (ends.pre == ends.post || (ends.pre == 0 && ends.post == levels))
        return r;
    r.preLevels = ends.pre;
    r.deviceLevels = ends.post - ends.pre;
    r.postLevels = levels - ends.post;

    auto partOf = [&](NodeId id) {
        if (!isOp(c.kind[id]))
            return Part::Leaf;
        const uint32_t l = level[id] - 1;
        return l < ends.pre ? Part::Pre : l >= ends.post ? Part::Post : Part::Device;
    };
    // Values read across a cut (a part reads only its own and lower parts' values) or output.
    std::vector<uint8_t> crosses(c.numNodes(), 0);
    for (NodeId id = 0; id < c.numNodes(); ++id)
        for (NodeId p : operandsOf(c, id))
            if (partOf(p) != Part::Leaf && partOf(p) != partOf(id))
                crosses[p] = 1;
    for (NodeId o : c.outputs)
        if (partOf(o) == Part::Pre || partOf(o) == Part::Device)
            crosses[o] = 1;
    std::vector<NodeId> preValues, deviceValues;
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (crosses[id])
            (partOf(id) == Part::Pre ? preValues : deviceValues).push_back(id);
    r.preValues = static_cast<uint32_t>(preValues.size());
    r.deviceValues = static_cast<uint32_t>(deviceValues.size());

    PartBuilder pre(c), device(c), post(c);
    for (NodeId v : preValues) {
        device.addCrossing(v, "pre");
        post.addCrossing(v, "pre");
    }
    for (NodeId v : deviceValues)
        post.addCrossing(v, "device");
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        const Part p = partOf(id);
        if (p != Part::Leaf)
            (p == Part::Pre ? pre : p == Part::Device ? device : post).copyOp(id);
    }
    pre.addCrossingOutputs(preValues, "pre-adjoint");
    device.addCrossingOutputs(deviceValues, "device-adjoint");
    for (size_t k = 0; k < c.numOutputs(); ++k)
        post.circuit.addOutput(post.local(c.outputs[k]),
                               k < c.outputNames.size() ? c.outputNames[k] : std::string());
    r.pre = std::move(pre.circuit);
    r.device = std::move(device.circuit);
    r.post = std::move(post.circuit);
    return r;
}

} // namespace zbddc
