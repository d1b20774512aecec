// The factor model every exact route reads: discrete variables, nonnegative factors over them,
// Z = Σ_x Π_f φ_f(x). A Bayesian network is the factor model whose factors are its CPTs (Z = 1);
// a UAI MARKOV network's factors are its function tables; a .wcsp's are exp(-cost). Evidence is
// not part of it: it is a case the routes answer (runtime/evidence.h).
//
// Per-table scaling (Koller and Friedman 2009 §10.3.3.2): a factor that is not a CPT is divided
// by its largest entry on reading and the log of that entry added to `logScale`, so that tables
// hold at most 1 and a partition function far beyond a double (Grids: log10 Z > 600) is carried
// in log space: log Z = logScale + log Σ_x Π_f φ_f(x) over the stored tables.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/wcsp/cost_network.h"
#include "ir/circuit.h"
#include "ir/result.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zbddc {

inline constexpr uint32_t kNoChild = UINT32_MAX;

struct Factor {
    std::vector<uint32_t> scope; // in table order: the last variable varies fastest
    std::vector<double> table;   // finite, nonnegative, at most 1 unless a CPT
    // A CPT's own variable, scope.back(): for every state of the other variables the entries over
    // it sum to 1 (to the network's rounding), so a CPT whose child is summed out and read by
    // nothing else drops out of a sum (Madsen and Jensen 1999's barren variables). kNoChild for
    // factors of Markov networks and cost functions.
    uint32_t child = kNoChild;
    size_t line = 0; // where its table is written, for messages
};

struct FactorModel {
    std::string file;
    std::string kind;                // "BAYES" (CPTs: Z = 1), "MARKOV", "WCSP"
    std::vector<Variable> variables; // names and states (UAI: "0", "1", ...)
    std::vector<uint32_t> domainSizes;
    std::vector<Factor> factors; // every variable in some factor's scope (readers add ones)
    double logScale = 0;         // natural log: log Z = logScale + log of the stored tables' Z
    std::vector<Diagnostic> warnings;

    uint32_t numVariables() const { return static_cast<uint32_t>(domainSizes.size()); }
    // Each factor's scope ascending: the interaction graph's hyperedges.
    std::vector<std::vector<uint32_t>> sortedScopes() const;
};

// A network's CPTs as factors: factor v is P(v | parents), scope parents then v.
FactorModel factorModelOf(const BayesNet &net);

// The factor model as costs for the min-sum routes (bucket elimination, DPOP): each entry φ as
// -ln φ, 0 forbidden. `logScale` is not carried (a network's CPTs have none).
CostNetwork factorCostNetwork(const FactorModel &model);

// Per factor: 1 where it is a CPT whose every row sums to 1 within 1e-12 (a barren CPT then drops
// out of a sum exactly, to rounding), 0 where not.
std::vector<uint8_t> factorRowsSumToOne(const FactorModel &model);

// log Π_f φ_f(x) + logScale: one complete assignment's unnormalised weight in natural log (-inf
// where a factor is 0), recomputed from the tables. MPE answers are checked by it.
double logWeight(const FactorModel &model, std::span<const uint32_t> assignment);

// Reads any model file into a factor model, by extension: .uai (MARKOV or BAYES), .bif,
// .xml/.xmlbif, .net (Hugin), .wcsp (costs c become factors exp(-c), forbidden tuples 0). Errors
// are one `file:line: what` (a table's size against its scope, a variable out of range, a
// negative or NaN entry).
Result<FactorModel> readFactorModelFile(const std::string &path, const ReadOptions &options = {});

// A UAI MARKOV or BAYES file's text (`file` names it in messages).
Result<FactorModel> parseUaiFactorModel(std::string_view text, const std::string &file,
                                        const ReadOptions &options = {});

} // namespace zbddc
