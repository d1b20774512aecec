// Options of the CPU backend (LLVM). The evaluation order is data from compiler/passes (Minato et
// al. 2011 §3's DFS order); the backend itself never reorders.
#pragma once

#include "ir/circuit.h"
#include "ir/interpret.h"

#include <optional>
#include <vector>

namespace zbddc {

struct CpuOptions {
    std::optional<Semiring> semiring; // empty: the circuit's own
    Numeric numeric = Numeric::Float64;
    // 0 is the fast path: no IR passes and CodeGenOptLevel::None, linear in the circuit size.
    // 1..3 run LLVM's O1..O3 pipelines on each function-bounded module.
    int optLevel = 0;
    // Straight-line functions hold at most this many ops; values crossing functions go through a
    // slot array. Bounded functions keep LLVM's codegen linear (DESIGN.md measurement).
    size_t opsPerFunction = 1000;
    unsigned threads = 0;   // compile and evaluation threads; 0 = all cores
    bool backward = true;   // also generate the adjoint pass (MAR, gradients)
    bool hostCpu = true;    // tune for this machine's CPU; false = generic x86-64 (portable .so)
    // No machine code per circuit: compileCpu builds the data-driven batched loop
    // (batched_loop.h) — a linear pass, for large batches and for circuits too large for
    // straight-line code. In-process only (a model.so is always straight-line code).
    bool dataDriven = false;
    std::vector<NodeId> order; // evaluation order (e.g. dfsOrder(c).order); empty = id order
};


} // namespace zbddc
