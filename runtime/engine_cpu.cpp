// The LLVM JIT (backends/cpu) behind the Engine interface, in Minato et al. 2011 §3's DFS order, or
// the data-driven loop. Both trace optimal terms back (a batch's, or one case's as a batch of one):
// the loop from its kept values, the JIT from its code's values of every op (CpuModel::traceback).
#include "backends/cpu/cpu_model.h"
#include "backends/cpu/dfs_order.h"
#include "runtime/engine.h"

#include <algorithm>

namespace zbddc {
namespace {

class CpuJitEngine final : public Engine {
  public:
    CpuJitEngine(CpuModel m, const Circuit &c)
        : m_(std::move(m)), variables_(c.variables.size()), indicator_(indicatorStates(c.inputs)) {}

    Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch) override {
        return m_.evaluate(x, batch);
    }

    Result<std::vector<double>> adjoints(std::span<const double> x, size_t batch,
                                         size_t output) override {
        std::vector<double> adj(batch * m_.numInputs());
        if (Status s = m_.adjoints(x, output, adj, batch); !s)
            return s.error();
        return adj;
    }

    std::optional<Result<TracedTerms>> varyingTraceback(const InputBatch &batch,
                                                        size_t output) override {
        if (!m_.tracesBack())
            return std::nullopt;
        TracedTerms t;
        t.outputs.resize(batch.count * m_.numOutputs());
        t.states.resize(batch.count * variables_);
        t.traced.resize(batch.count);
        // Whether each walk met a tie, where float64 or log values can tell (TracedTerms::tied).
        if (!isFloat32(m_.numeric()))
            t.tied.resize(batch.count);
        if (Status s = m_.traceback(batch.dense(), output, indicator_, variables_, t.outputs,
                                    t.states, t.traced, batch.count, t.tied);
            !s)
            return Result<TracedTerms>(s.error());
        if (std::find(t.traced.begin(), t.traced.end(), 0) != t.traced.end())
            t.untraced = "two states of one variable on the term, or a walk repeating shared ops";
        return Result<TracedTerms>(std::move(t));
    }

    // One vector's walk, as a batch of one: the indicators on its term (all mpeAssignment
    // reads); nullopt where the walk stopped, so that the case is decoded instead.
    std::optional<Result<std::vector<uint32_t>>> traceback(std::span<const double> x,
                                                           size_t output) override {
        using Traced = Result<std::vector<uint32_t>>;
        if (!m_.tracesBack())
            return std::nullopt;
        std::vector<double> out(m_.numOutputs());
        std::vector<uint32_t> states(variables_);
        std::vector<uint8_t> traced(1);
        if (Status s = m_.traceback(x, output, indicator_, variables_, out, states, traced, 1); !s)
            return Traced(s.error());
        if (!traced[0])
            return std::nullopt;
        std::vector<uint32_t> inputs;
        for (uint32_t i = 0; 2 * i < indicator_.size(); ++i)
            if (const uint32_t v = indicator_[2 * i];
                v != kNone && states[v] == indicator_[2 * i + 1])
                inputs.push_back(i);
        return Traced(std::move(inputs));
    }

  private:
    CpuModel m_;
    size_t variables_;
    std::vector<uint32_t> indicator_; // indicatorStates of the circuit's inputs
};

} // namespace

Result<std::unique_ptr<Engine>> cpuJitEngine(const Circuit &c, Semiring s, Numeric n, int optLevel,
                                             bool dataDriven) {
    CpuOptions o;
    o.dataDriven = dataDriven;
    o.semiring = s;
    o.numeric = n;
    o.optLevel = optLevel;
    o.order = dfsOrder(c).order;
    auto m = compileCpu(c, o);
    if (!m)
        return m.error();
    return std::unique_ptr<Engine>(new CpuJitEngine(std::move(*m), c));
}

} // namespace zbddc
