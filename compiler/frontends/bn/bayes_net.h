// A discrete Bayesian network as the readers deliver it: variables in file order with their state
// names, parents and conditional probability tables (CPTs).
//
// CPT layout (docs/formats/bif.md): one row per joint state of the parents, rows ordered with the
// LAST parent varying fastest; within a row, one entry per state of the variable. So
// cpt[(row) * states.size() + x] = P(X = x | parents in row), with
// row = ((u0 * |U1| + u1) * |U2| + u2) ... for parent states u0, u1, ... in `parents` order.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace zbddc {

struct BnVariable {
    std::string name;
    std::vector<std::string> states;
    std::vector<uint32_t> parents; // indices into BayesNet::variables, in CPT order
    std::vector<double> cpt;       // layout above
    size_t line = 0;               // where the CPT (or the variable) is defined, for diagnostics
};

struct BayesNet {
    std::string name;
    std::string file; // the file it was read from (for diagnostics)
    std::vector<BnVariable> variables;
    std::vector<Diagnostic> warnings; // accepted oddities (rows off 1 within the tolerance ...)

    // Index of the variable called `name`, or UINT32_MAX (the first, if a name repeats). A hash
    // lookup, extended with the variables added since the last call: readers call it per name.
    uint32_t find(const std::string &name) const;
    // Index of state `name` of variable v, or UINT32_MAX; the states must be complete.
    uint32_t findState(uint32_t v, std::string_view name) const;
    // Number of CPT rows of variable v (product of its parents' domain sizes), SIZE_MAX where
    // that product overflows (64 binary parents wrapped to 0 rows, which a file could match).
    size_t rowCount(uint32_t v) const;
    // CPT entries (rows x states) of variable v, or SIZE_MAX past kMaxCptEntries: readers check
    // this before they allocate (a child with 40 binary parents asked for 2^41 entries).
    static constexpr size_t kMaxCptEntries = size_t{1} << 32;
    size_t cptEntries(uint32_t v) const;
    // The CPT row of variable v under `x` (a state per variable: only v's parents are read).
    size_t cptRow(uint32_t v, std::span<const uint32_t> x) const;

  private:
    mutable std::unordered_map<std::string, uint32_t> variableIndex_;
    mutable size_t variablesIndexed_ = 0;
    mutable std::vector<std::unordered_map<std::string, uint32_t>> stateIndex_;
};

// Every variable after its parents (Kahn), ties broken by file order. An acyclic net (checked
// once read) lists all its variables.
std::vector<uint32_t> fileTopologicalOrder(const BayesNet &net);

struct ReadOptions {
    bool strict = false;        // rows not summing to 1 are errors, not warnings
    double rowTolerance = 1e-6; // |sum - 1| allowed silently (relative to 1)
};

// Checks what every reader needs checked once the file is read: parents acyclic, CPT sizes,
// probabilities in [0, 1], rows summing to 1 (off by more than rowTolerance: a warning, or an
// error when strict). Errors name the file and the line of the CPT involved.
// "the CPT of 'X' (40 parents) has 2^41 entries, more than the 2^32 zbddc holds".
std::string cptTooLarge(const BayesNet &net, uint32_t v);

Status checkNetwork(BayesNet &net, const ReadOptions &options);

// Reads a network, choosing the reader by extension: .bif, .xml/.xmlbif, .net (Hugin),
// .uai (UAI BAYES). Runs checkNetwork.
Result<BayesNet> readNetworkFile(const std::string &path, const ReadOptions &options = {});

// The format readers (text already read; `file` names it in diagnostics). They do not run
// checkNetwork themselves.
Result<BayesNet> parseBif(std::string_view text, const std::string &file);
Result<BayesNet> parseXmlBif(std::string_view text, const std::string &file);
Result<BayesNet> parseHuginNet(std::string_view text, const std::string &file);
Result<BayesNet> parseUaiBayes(std::string_view text, const std::string &file);

} // namespace zbddc
