// The library API of the CPU backend: compile a Circuit in process with ORC LLJIT, then evaluate
// it many times (forward for all outputs, or the adjoints of every input for one output).
#pragma once

#include "backends/cpu/cpu_options.h"
#include "backends/cpu/object_compile.h"

#include <memory>
#include <span>

namespace zbddc {

class CpuModel {
  public:
    CpuModel(CpuModel &&) noexcept;
    CpuModel &operator=(CpuModel &&) noexcept;
    ~CpuModel();

    size_t numInputs() const;
    size_t numOutputs() const;
    Semiring semiring() const;
    Numeric numeric() const;
    bool hasBackward() const;
    const CompileTimes &compileTimes() const;
    size_t storedValues() const; // forward slots: values crossing function boundaries
    // Evaluation threads from now on (0 = all cores); compilation used CpuOptions::threads.
    void setEvalThreads(unsigned threads);

    // x: batch × numInputs row-major, linear values (log mode takes logs); out: batch ×
    // numOutputs (natural logs in log mode).
    Status evaluate(std::span<const double> x, std::span<double> out, size_t batch) const;
    Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch = 1) const;

    // The adjoint of every input for `output` (as inputAdjoints in ir/interpret.h computes):
    // adj is batch × numInputs.
    Status adjoints(std::span<const double> x, size_t output, std::span<double> adj,
                    size_t batch) const;

    // Whether traceback() runs: a max/min semiring with the backward pass (the loop walks its
    // kept values; the JIT keeps the circuit and walks zbdd_gen_forward_all's values of a case).
    bool tracesBack() const;
    // Each vector's outputs and one optimal term of `output` (BatchedLoop::traceback, or the
    // walk of ir/interpret.h's traceback over the JIT's values); `tied` as BatchedLoop's.
    Status traceback(std::span<const double> x, size_t output, std::span<const uint32_t> indicator,
                     size_t numVariables, std::span<double> out, std::span<uint32_t> states,
                     std::span<uint8_t> traced, size_t batch, std::span<uint8_t> tied = {}) const;

    struct Impl;

  private:
    explicit CpuModel(std::unique_ptr<Impl> impl);
    friend Result<CpuModel> compileCpu(const Circuit &, const CpuOptions &);
    std::unique_ptr<Impl> impl_;
};

Result<CpuModel> compileCpu(const Circuit &circuit, const CpuOptions &options = {});

} // namespace zbddc
