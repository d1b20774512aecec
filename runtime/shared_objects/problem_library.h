// A problem.so (runtime/bucket_elimination/write_problem_library.h writes one) loaded
// (shared_library.h) and answering through its C ABI (include/zbdd_problem.h), every assignment's
// cost checked against the optimum as solveBucketElimination does.
#pragma once

#include "runtime/shared_objects/shared_library.h"
#include "runtime/bucket_elimination/solve_be.h"

#include <string>
#include <vector>

namespace zbddc {

struct ProblemMetadata {
    // The network the .so was compiled from, without its functions: its name, its variables and
    // its cost arithmetic (CostNetwork::feasible, sameCost, costText; `costs int64`: the upper
    // bound and the costs are int64 words).
    CostNetwork shape;
    std::string heuristic;
    uint32_t inducedWidth = 0;
    double largestTableEntries = 0;
};

class ProblemLibrary {
  public:
    static Result<ProblemLibrary> open(const std::string &path);

    const ProblemMetadata &metadata() const { return metadata_; }
    // zbdd_problem_set_threads: 0 = every online core (the default).
    void setThreads(unsigned threads) const;
    // `evidence`: empty, or per variable a value or UINT32_MAX (free). The assignment's cost is
    // recomputed by the .so from its embedded input tables and must equal the optimum.
    Result<Solution> solve(const std::vector<uint32_t> &evidence) const;

  private:
    SharedLibrary lib_;
    int (*solve_)(const int *, double *, unsigned *) = nullptr;
    double (*cost_)(const unsigned *) = nullptr;
    int (*solveInt64_)(const int *, int64_t *, unsigned *) = nullptr; // `costs int64` only
    int64_t (*costInt64_)(const unsigned *) = nullptr;
    void (*threads_)(unsigned) = nullptr;
    ProblemMetadata metadata_;
};

// Parses zbdd_problem_metadata() text (docs/c-api.md, grammar in ir/so_metadata.h); `where`
// names it in messages.
Result<ProblemMetadata> parseProblemMetadata(std::string_view text, const std::string &where);

} // namespace zbddc
