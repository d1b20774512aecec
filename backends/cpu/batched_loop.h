// The data-driven batched mode: no per-circuit machine code at all, but one loop (compiled with
// zbddc itself) over a flat op array, each op applied to a tile of batch lanes at once so that
// the lane loop vectorises with the host's SIMD width. Build time is a linear pass; the op array
// (16 bytes per op) stays far smaller than straight-line code, which stops fitting in the
// instruction cache around 10^6 ops (docs/compile-study.md). Values live in slots reused once
// their last reader has run (liveness in the plan's order), so a tile's working set is bounded
// by the circuit's width in that order, not its size. Built with `keepValues`, every value keeps
// its slot, so that the adjoint pass (ir/interpret.h's inputAdjoints, lane by lane) can read the
// forward values in reverse order: memory then grows with the circuit (16 bytes per node per lane).
#pragma once

#include "backends/cpu/plan.h"
#include "ir/optimal_term.h"
#include "support/kept_buffers.h"

#include <memory>
#include <span>

namespace zbddc {

class BatchedLoop {
  public:
    static constexpr size_t kLanes = 8; // batch lanes per tile

    // Forward evaluation of all outputs; with `keepValues` also the adjoint pass.
    static Result<BatchedLoop> build(const Circuit &circuit, const CpuOptions &options,
                                     bool keepValues = false);

    size_t numInputs() const { return numInputs_; }
    size_t numOutputs() const { return outputs_.size(); }
    size_t numSlots() const { return numSlots_; }
    Semiring semiring() const { return semiring_; }
    Numeric numeric() const { return numeric_; }
    bool hasBackward() const { return keepValues_; }
    void setThreads(unsigned threads) { threads_ = threads; }

    // x: batch × numInputs (linear values), out: batch × numOutputs; tiles split over threads.
    Status evaluate(std::span<const double> x, std::span<double> out, size_t batch) const;
    // adj: batch × numInputs, the adjoint of every input for `output` in the semiring and
    // representation of the evaluation (natural logs in log mode), as inputAdjoints computes it.
    Status adjoints(std::span<const double> x, size_t output, std::span<double> adj,
                    size_t batch) const;
    // Max/min semirings, built with `keepValues`: each vector's outputs (out: batch ×
    // numOutputs) and one optimal term of `output`, walked down its tile's kept values along the
    // winning side of every ⊕ (the first on a tie) and both sides of every ⊗ — a ZBDD circuit's
    // term is a path, so MPE needs no adjoint pass. `indicator` holds per input its (variable,
    // state), variable kNone for the others; `states` gets batch × numVariables states (kNone
    // where no indicator of the variable is on the term) and `traced` 1 per vector whose walk
    // ended, 0 where it met two states of one variable or visited more ops than the circuit has.
    // `tied` (batch entries, or empty: not asked; float64 and log only): 1 per vector whose walk
    // met a ⊕ with its other side within the tie tolerance (optimal_term.h's TieWatch).
    Status traceback(std::span<const double> x, size_t output, std::span<const uint32_t> indicator,
                     size_t numVariables, std::span<double> out, std::span<uint32_t> states,
                     std::span<uint8_t> traced, size_t batch, std::span<uint8_t> tied = {}) const;

    struct Op {
        OpKind kind;
        uint32_t dst, a, b, c; // slots
    };
    struct Load {
        uint32_t slot;
        uint32_t input; // kNone: a constant
        double constant;
    };

  private:
    template <class F> void withArithmetic(F &&f) const;
    template <class Tile> Status forEachTile(size_t batch, size_t slotsPerTile, Tile &&tile) const;
    void forwardTile(const double *x, size_t first, size_t lanes, double *slots) const;
    void runTile(const double *x, double *out, size_t first, size_t lanes, double *slots) const;
    void adjointTile(const double *x, size_t output, double *adj, size_t first, size_t lanes,
                     double *slots) const;
    // One lane's walk (traceback), its variables' states into `states`; false where it stopped.
    template <class A>
    bool traceLane(const double *slots, size_t lane, uint32_t outSlot,
                   std::span<const uint32_t> indicator, std::span<uint32_t> states,
                   std::vector<uint32_t> &pending, TieWatch *watch) const;

    Semiring semiring_ = Semiring::SumProduct;
    Numeric numeric_ = Numeric::Float64;
    size_t numInputs_ = 0;
    uint32_t numSlots_ = 0;
    unsigned threads_ = 0;
    bool keepValues_ = false;
    // The threads' tiles, kept between calls up to 256 MiB (kept_buffers.h says why).
    std::shared_ptr<KeptBuffers> tileBuffers_ = std::make_shared<KeptBuffers>(size_t{256} << 20);
    double zero_ = 0, one_ = 1; // the semiring's 0 and 1 in the evaluation's representation
    std::vector<Load> loads_; // leaves, filled into their slots at the start of every tile
    std::vector<Op> ops_;
    std::vector<uint32_t> outputs_; // slot of each output
    // With keepValues in a max/min semiring (the traceback's), per slot: the op that writes it, and
    // the input a leaf loads (kNone else).
    std::vector<uint32_t> producer_, slotInput_;
};

} // namespace zbddc
