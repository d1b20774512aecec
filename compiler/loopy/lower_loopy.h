// One flooding sweep of loopy belief propagation (Pearl 1988; Kschischang, Frey and Loeliger
// 2001 for factor graphs) over a batch of B instances, lowered into a TensorProgram: the same
// fused reduce the elimination and junction-tree routes run, so every tensor executor runs LBP.
//
// The instance index is one more variable, `batchVariable` (domain B), as in
// lower_junction_tree.h; evidence enters as indicator tables λ_u(u, case). Messages are linear
// and normalised, the factors exp(log φ - max log φ). Per edge (f, v), in four levels:
//
//   q(u→f)    = λ_u ⊗ Π_{g ∋ u, g ≠ f} m(g→u)   a Join, and its InverseMax scale (1 / max per
//                                              case) that readers multiply in, so a product of
//                                              many messages never underflows; a single input is
//                                              read as it is, none is left out
//   raw(f→v)  = ⊕_{scope(f) ∖ v} φ_f ⊗ Π_{u ≠ v} q(u→f)   one EliminateBucket: each output entry
//                                              enumerates the eliminated values and reads its
//                                              inputs, no factor-sized product written
//   m'(f→v)   = DampMessage(raw, m, w) over v   normalised (sum-product: Σ = 1; max-product:
//                                              max = 1) and damped geometrically toward m by the
//                                              per-instance weight w (the executor's damping, or
//                                              1 for an instance that has converged)
//   residual  = MessageResidual of every (raw, m) pair, per instance: the dedicated route's
//                                              residual (runtime/loopy/message_update.h)
//
// The messages m of every edge are input tables of the sweep and m' its outputs: an executor
// runs the sweep, swaps each m' with its m (PreparedTensorProgram::swapTables) and runs again.
// Sum-product (MAR; the Bethe ln Z from the final messages) or max-product (MPE), one semiring
// machinery. Linear values hold a factor's entries down to e^-708 of its largest; a factor
// spanning more is refused (the dedicated route keeps log space).
#pragma once

#include "compiler/loopy/factor_graph.h"
#include "ir/tensor_program.h"

#include <cstdint>
#include <vector>

namespace zbddc {

inline constexpr uint32_t kNoLoopyTable = UINT32_MAX;

struct LoopyLowering {
    bool maxProduct = false;
    uint32_t batch = 1;
    std::vector<uint32_t> observed; // variables observed in some instance: an indicator each
    // Instance index fastest (the GPU: a warp's loads coalesce) or slowest (the CPU).
    bool batchFastest = true;
};

// The case variable is variable numVariables() of the graph.
struct LoopyProgram : BatchedProgram {
    // Per edge (the graph's numbering): its message as the sweep reads it (an input table over
    // {variable, case}, uniform to start) and as the sweep writes it.
    std::vector<uint32_t> messageIn, messageOut;
    uint32_t weight = kNoLoopyTable;   // input over {case}: DampMessage's w per instance
    uint32_t residual = kNoLoopyTable; // computed over {case}: the sweep's largest residual

    // The (messageOut, messageIn) pairs an executor swaps between sweeps.
    std::vector<std::pair<uint32_t, uint32_t>> swapPairs() const;
};

Result<LoopyProgram> lowerLoopySweep(const FactorGraph &graph, const LoopyLowering &options);

} // namespace zbddc
