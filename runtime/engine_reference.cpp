// The reference evaluator (ir/interpret.h) behind the Engine interface: the oracle, and the
// device of last resort.
#include "runtime/engine.h"

namespace zbddc {
namespace {

class ReferenceEngine final : public Engine {
  public:
    ReferenceEngine(const Circuit &c, Semiring s, Numeric n) : c_(c), semiring_(s), numeric_(n) {}

    Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch) override {
        return eachCase(x, batch, c_.numOutputs(), [&](const auto &e, std::vector<double> &out) {
            for (NodeId o : c_.outputs)
                out.push_back(e.values[o]);
        });
    }

    Result<std::vector<double>> adjoints(std::span<const double> x, size_t batch,
                                         size_t output) override {
        if (output >= c_.numOutputs())
            return error("output " + std::to_string(output) + " out of range");
        return eachCase(x, batch, c_.numInputs(), [&](const auto &e, std::vector<double> &adj) {
            const std::vector<double> one = inputAdjoints(c_, e, output);
            adj.insert(adj.end(), one.begin(), one.end());
        });
    }

    std::optional<Result<std::vector<uint32_t>>> traceback(std::span<const double> x,
                                                           size_t output) override {
        auto e = run(x, 0);
        if (!e)
            return Result<std::vector<uint32_t>>(e.error());
        return Result<std::vector<uint32_t>>(zbddc::traceback(c_, *e, output));
    }

  private:
    Result<Evaluation> run(std::span<const double> x, size_t k) const {
        const size_t n = c_.numInputs();
        if (x.size() < (k + 1) * n)
            return error("expected " + std::to_string(n) + " input values per vector");
        return zbddc::evaluate(c_, x.subspan(k * n, n), semiring_, numeric_);
    }

    // The batch case by case: `append` adds what `width` values one case's evaluation gives.
    template <class Append>
    Result<std::vector<double>> eachCase(std::span<const double> x, size_t batch, size_t width,
                                         Append append) const {
        std::vector<double> out;
        out.reserve(batch * width);
        for (size_t k = 0; k < batch; ++k) {
            auto e = run(x, k);
            if (!e)
                return e.error();
            append(*e, out);
        }
        return out;
    }

    const Circuit &c_;
    Semiring semiring_;
    Numeric numeric_;
};

} // namespace

Result<std::unique_ptr<Engine>> referenceEngine(const Circuit &c, Semiring s, Numeric n) {
    if (inLogSpace(n) && s != Semiring::SumProduct && s != Semiring::MaxProduct)
        return error("log space applies to product semirings; " + std::string(semiringName(s)) +
                     " is not one");
    return std::unique_ptr<Engine>(new ReferenceEngine(c, s, n));
}

} // namespace zbddc
