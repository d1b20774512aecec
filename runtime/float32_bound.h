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
#include "ir/input_batch.h"
#include "ir/interpret.h"

#include <limits>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

// A float32 answer is given where its bound is at most this (relative, on P(e) and marginals).
inline constexpr double kFloat32MaxError = 1e-2;

struct ErrorBound {
    double value = 0;       // relative bound on P(e): |P̂ - P| ≤ value·P
    double logAbsolute = 0; // bound on |ln P̂ - ln P| (log32's own measure; ln(1+value) in float32)
    double marginals = 0;   // relative bound on every P(X=x | e) (MAR), 0 otherwise
};

// What the bound needs of one circuit and one batch's input ranges.
struct Float32Analysis {
    Numeric numeric = Numeric::Float32;
    std::string unusable; // why no bound holds (negative inputs, overflow), or ""
    // Float32: the output's rounding count R, the largest adjoint count over the inputs Rb, and
    // the absolute underflow term A.
    double rounds = 0, adjointRounds = 0, underflow = 0;
    // Log32: the bound on the output's log error and on an input adjoint's log error.
    double logError = 0, adjointLogError = 0;

    bool operator==(const Float32Analysis &) const = default;
};

// All the bound reads of one input over a batch: its least and largest nonzero values (none:
// lo > hi), and whether float32 rounds one of its values, one is subnormal in float32, one is
// negative (or NaN).
struct InputRange {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    bool rounds = false, subnormal = false, negative = false;
    bool operator==(const InputRange &) const = default;
};

// The ranges of a batch's inputs, `xs` holding circuit.numInputs() values per case. Parameters
// are the model's and evidence indicators 0 or 1, so a model's batches differ here only in which
// indicators are 1 in some case (every one, unless a variable is observed alike in all cases)
// and in free inputs' values.
std::vector<InputRange> inputRanges(const Circuit &circuit, std::span<const double> xs);
// The same for a batch of shared and varying inputs (ir/input_batch.h), without its vectors whole.
std::vector<InputRange> inputRanges(const Circuit &circuit, const InputBatch &batch);

// Output 0, sum-product, for inputs within `ranges` (one per circuit input).
Float32Analysis analyzeFloat32(const Circuit &circuit, Numeric numeric,
                               std::span<const InputRange> ranges);
// The same for the batch `xs` (circuit.numInputs() linear values per case).
Float32Analysis analyzeFloat32(const Circuit &circuit, Numeric numeric, std::span<const double> xs);

// analyzeFloat32 of one circuit kept for the batches that follow: it depends on the batch only
// through inputRanges, so a batch with the ranges of the last one (per numeric mode) reuses its
// analysis, and only scanning the batch's inputs is left per batch.
class Float32AnalysisCache {
  public:
    const Float32Analysis &analysis(const Circuit &circuit, Numeric numeric,
                                    std::vector<InputRange> ranges);
    size_t analysesMade() const { return made_; } // for tests: how many were computed

  private:
    struct Entry {
        Numeric numeric;
        std::vector<InputRange> ranges;
        Float32Analysis analysis;
    };
    std::vector<Entry> last_; // one per numeric mode
    size_t made_ = 0;
};

// The bound of one case from its computed output (natural log in Log32); infinite where none
// holds (unusable, an underflow, a zero).
ErrorBound float32Bound(const Float32Analysis &analysis, double output);
// γ_k = ku/(1-ku), u = 2^-24 (Higham 2002 Lemma 3.1); infinite where ku ≥ 1.
double gammaFloat32(double k);

} // namespace zbddc
