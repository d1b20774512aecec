// The reference evaluator: a plain interpreter of a Circuit, forward and backward, in every
// semiring, in float64 or log space. It is the oracle every backend is tested against, so it stays
// simple and obviously right; speed is the backends' business.
#pragma once

#include "ir/circuit.h"

#include <optional>
#include <span>
#include <vector>

namespace zbddc {

enum class Numeric : uint8_t {
    Float64, // values as given
    Log,     // values held as natural logarithms (product semirings only): no underflow
    // The same two in float32 (GPU throughput): every op rounded once to binary32. The reference
    // evaluator emulates them exactly (each result rounded from double, Figueroa 1995), so it is
    // their oracle as well; runtime/float32_bound.h bounds their error.
    Float32,
    Log32,
};

const char *numericName(Numeric n); // "float64", "log", "float32", "log32"
inline bool inLogSpace(Numeric n) { return n == Numeric::Log || n == Numeric::Log32; }
inline bool isFloat32(Numeric n) { return n == Numeric::Float32 || n == Numeric::Log32; }

struct Evaluation {
    Semiring semiring;
    Numeric numeric;
    std::vector<double> values; // one per node; natural logs when numeric == Log
};

// Evaluates every node. `x` holds one value per input, always linear (Log mode takes logs itself);
// Log mode requires a product semiring and x >= 0.
Result<Evaluation> evaluate(const Circuit &circuit, std::span<const double> x, Semiring semiring,
                            Numeric numeric = Numeric::Float64);

// Reverse pass from one output: the adjoint of every input, i.e. ∂out/∂x[i] in sum-product (the
// MLF's partial derivatives, Darwiche's differential semantics), and the best completion through
// x[i] in the max/min semirings. Same numeric domain as the evaluation (logs in Log mode).
std::vector<double> inputAdjoints(const Circuit &circuit, const Evaluation &eval, size_t output);

// Max/min semirings: the inputs on one optimal term of the output, found by following the winning
// operand of every ⊕ from the output down (ties go to the first operand). Sorted, no duplicates.
// `tied`, where given and the values can tell (float64 or log; optimal_term.h's tieRing): whether
// some ⊕ on the term had its other side within the tie tolerance of the side taken.
std::vector<uint32_t> traceback(const Circuit &circuit, const Evaluation &eval, size_t output,
                                std::optional<bool> *tied = nullptr);

} // namespace zbddc
