// The a-priori rounding-error bound of float32 and log32 sum-product evaluation, derived from the
// circuit and the batch's input ranges before anything runs; docs/numerics.md has the derivation.
//
// Linear float32 (Higham 2002 §2.2, Lemmas 3.1 and 3.3): every op is one rounding,
// fl(a∘b) = (a∘b)(1+δ) + η with |δ| ≤ u = 2^-24 and |η| ≤ 2^-150 (only a product underflows;
// a sum of floats that underflows is exact). Over nonnegative values every term of the output
// carries at most R factors (1+δ), R counted per node (a sum adds 1 to the larger count of its
// operands, a product adds 1 to the sum of theirs), so |ŷ - y| ≤ γ_R·y + A with γ_k = ku/(1-ku)
// and A = 2^-150·(1+γ_R)·Σ ∂y/∂w over the products w (their sensitivities at the batch's largest
// inputs). A marginal ĝ/ŷ is a ratio of two such quantities: γ_{R+Rb}, Rb the adjoint's count.
//
// Log32: a value's log carries an absolute error E: a product (p+q) adds E_p + E_q + u·|log|; a
// log-sum-exp is 1-Lipschitz in its operands' logs and adds its own roundings, u·|log| + 4u
// (CUDA's expf within 2 ulp and log1pf within 1 ulp). |log| comes from each node's range of logs
// over the batch's inputs.
#pragma once

#include "ir/circuit.h"
#include "ir/interpret.h"

#include <span>
#include <string>

namespace zbddc {

// A float32 answer is given where its bound is at most this (relative, on P(e) and marginals).
inline constexpr double kFloat32MaxError = 1e-2;

struct ErrorBound {
    double value = 0;       // relative bound on P(e): |P̂ - P| ≤ value·P
    double logAbsolute = 0; // bound on |ln P̂ - ln P| (log32's own measure; ln(1+value) in float32)
    double marginals = 0;   // relative bound on every P(X=x | e) (MAR), 0 otherwise
};

// What the bound needs of one circuit and one batch, computed once per batch.
struct Float32Analysis {
    Numeric numeric = Numeric::Float32;
    std::string unusable; // why no bound holds (negative inputs, overflow), or ""
    // Float32: the output's rounding count R, the largest adjoint count over the inputs Rb, and
    // the absolute underflow term A.
    double rounds = 0, adjointRounds = 0, underflow = 0;
    // Log32: the bound on the output's log error and on an input adjoint's log error.
    double logError = 0, adjointLogError = 0;
};

// `xs`: the batch's input vectors (circuit.numInputs() each, linear values); output 0, sum-product.
Float32Analysis analyzeFloat32(const Circuit &circuit, Numeric numeric, std::span<const double> xs);
// The bound of one case from its computed output (natural log in Log32); infinite where none
// holds (unusable, an underflow, a zero).
ErrorBound float32Bound(const Float32Analysis &analysis, double output);
// γ_k = ku/(1-ku), u = 2^-24 (Higham 2002 Lemma 3.1); infinite where ku ≥ 1.
double gammaFloat32(double k);

} // namespace zbddc
