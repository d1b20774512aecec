// The data-driven batched mode: no per-circuit machine code at all, but one loop (compiled with
// zbddc itself) over a flat op array, each op applied to a tile of batch lanes at once so that
// the lane loop vectorises with the host's SIMD width. Build time is a linear pass; the op array
// (16 bytes per op) stays far smaller than straight-line code, which stops fitting in the
// instruction cache around 10^6 ops (docs/compile-study.md). Values live in slots reused once
// their last reader has run (liveness in the plan's order), so a tile's working set is bounded
// by the circuit's width in that order, not its size.
#pragma once

#include "backends/cpu/plan.h"

#include <span>

namespace zbddc {

class BatchedLoop {
  public:
    static constexpr size_t kLanes = 8; // batch lanes per tile

    // Forward evaluation of all outputs; backward is the straight-line path's job.
    static Result<BatchedLoop> build(const Circuit &circuit, const CpuOptions &options);

    size_t numInputs() const { return numInputs_; }
    size_t numOutputs() const { return outputs_.size(); }
    size_t numSlots() const { return numSlots_; }

    // x: batch × numInputs (linear values), out: batch × numOutputs; tiles split over threads.
    Status evaluate(std::span<const double> x, std::span<double> out, size_t batch) const;

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
    void runTile(const double *x, double *out, size_t first, size_t lanes, double *slots) const;

    Semiring semiring_ = Semiring::SumProduct;
    Numeric numeric_ = Numeric::Float64;
    size_t numInputs_ = 0;
    uint32_t numSlots_ = 0;
    unsigned threads_ = 0;
    std::vector<Load> loads_; // leaves, filled into their slots at the start of every tile
    std::vector<Op> ops_;
    std::vector<uint32_t> outputs_; // slot of each output
};

} // namespace zbddc
