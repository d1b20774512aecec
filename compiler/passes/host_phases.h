// Host phases, cut out of the circuit before it is scheduled (Minato et al. 2011 §2; schedules
// place every level on the device): its narrow leading levels (the CPU preliminary phase) and
// narrow trailing levels (the CPU posterior phase) become circuits of their own for the host's
// LLVM JIT, and the levels between a circuit for the GPU.
// Values cross the cuts as inputs and outputs, each once per pass:
//
//   pre:    x                  -> P (its values that later levels or outputs read), seed
//   device: x, P, S            -> V (its values the post levels or outputs read),   seed
//   post:   x, P, V            -> the circuit's outputs
//
// Every part takes the circuit's inputs x first, in order. A part's `seed` output is ⊕_k T_k ⊗ P_k
// (pre; T are the inputs after x) or ⊕_k S_k ⊗ V_k (device): with T and S set to the adjoints of P
// and V from the parts above, a backward pass from the seed gives every input's adjoint through
// that part. An adjoint is the ⊕ over the paths from the output of the ⊗ of their partials, and
// every path crosses each cut at most once, so the three parts' input adjoints ⊕-ed together are
// the whole circuit's (the chain rule of reverse-mode differentiation, in any semiring).
#pragma once

#include "ir/circuit.h"

#include <cstdint>

namespace zbddc {

struct HostPhaseCircuits {
    Circuit pre, device, post;
    uint32_t preLevels = 0, deviceLevels = 0, postLevels = 0;
    uint32_t preValues = 0;    // |P|: pre's outputs before its seed
    uint32_t deviceValues = 0; // |V|: device's outputs before its seed
    bool hasHostLevels() const { return preLevels + postLevels > 0; }
};

// Levels (ASAP, ops only) of at most `hostMaxOps` ops at the circuit's two ends go to the host;
// a circuit with none there gets hasHostLevels() false (and its parts empty).
HostPhaseCircuits splitHostPhases(const Circuit &circuit, uint32_t hostMaxOps);

} // namespace zbddc
