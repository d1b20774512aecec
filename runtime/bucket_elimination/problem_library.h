// problem.so end to end: `writeProblemLibrary` orders a cost network, checks what bucket
// elimination will need before anything is allocated, builds the fused bucket program (no
// evidence: the .so takes evidence at solve time) and compiles it (backends/tensor/so);
// `ProblemLibrary` dlopens such a .so and answers through its C ABI (include/zbdd_problem.h),
// checking every assignment's cost against the optimum as solveBucketElimination does.
#pragma once

#include "compiler/elimination/elimination_stats.h"
#include "runtime/bucket_elimination/solve_be.h"

#include <memory>
#include <string>
#include <vector>

namespace zbddc {

// Uses options.heuristic / options.order / options.maxTotalEntries; the rest is for solving.
// `emitC`: write the C source to `path` (and its tables to `path`.tables.bin) instead of a .so;
// `symbolPrefix`: export every function also as PREFIX_problem_... (zbdd_problem.h).
Result<EliminationStats> writeProblemLibrary(const CostNetwork &network, const BeOptions &options,
                                             const std::string &path, bool emitC = false,
                                             const std::string &symbolPrefix = {});

struct ProblemMetadata {
    std::string name;
    bool integerCosts = true;
    bool int64Costs = false;        // `costs int64`: upperBound and costs are int64 words
    double upperBound = kForbidden; // as the CostNetwork holds it
    std::string heuristic;
    uint32_t inducedWidth = 0;
    double largestTableEntries = 0;
    std::vector<std::string> variableNames;
    std::vector<uint32_t> domainSizes;

    // The network the .so was compiled from, without its functions: its variables and its cost
    // arithmetic (CostNetwork::feasible, sameCost, costText).
    CostNetwork shape() const;
};

class ProblemLibrary {
  public:
    // Whether `path` is a shared object exporting the problem ABI (a model.so is not).
    static bool isProblemLibrary(const std::string &path);
    static Result<ProblemLibrary> open(const std::string &path);

    const ProblemMetadata &metadata() const { return metadata_; }
    // zbdd_problem_set_threads: 0 = every online core (the default).
    void setThreads(unsigned threads) const;
    // `evidence`: empty, or per variable a value or UINT32_MAX (free). The assignment's cost is
    // recomputed by the .so from its embedded input tables and must equal the optimum.
    Result<Solution> solve(const std::vector<uint32_t> &evidence) const;

  private:
    struct Handle;
    std::shared_ptr<Handle> handle_;
    ProblemMetadata metadata_;
    std::string path_;
};

// Parses zbdd_problem_metadata() text (docs/c-api.md); `where` names it in messages.
Result<ProblemMetadata> parseProblemMetadata(const std::string &text, const std::string &where);

} // namespace zbddc
