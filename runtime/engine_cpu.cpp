// The LLVM JIT (backends/cpu) behind the Engine interface, in Minato et al. 2011 §3's DFS order. It
// has no traceback: MPE assignments come from its max-product adjoints (runtime/mpe_decode.h).
#include "backends/cpu/cpu_model.h"
#include "backends/cpu/dfs_order.h"
#include "runtime/engine.h"

namespace zbddc {
namespace {

class CpuJitEngine final : public Engine {
  public:
    explicit CpuJitEngine(CpuModel m) : m_(std::move(m)) {}

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

  private:
    CpuModel m_;
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
    return std::unique_ptr<Engine>(new CpuJitEngine(std::move(*m)));
}

} // namespace zbddc
