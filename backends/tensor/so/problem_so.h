// problem.so: a TensorProgram of bucket elimination compiled to C (emit_problem_c.h) and built by
// the system C compiler into a shared object with the C ABI of include/zbdd_problem.h. The output
// appears atomically (temporary name + rename) or not at all.
//
// Why C and the system compiler rather than LLVM IR through backends/cpu: a BE program has one
// loop nest per bucket (at most one per variable, ~10^3 for SPOT5), not the 10^6-10^8 scalar ops
// of a circuit that made gcc superlinear there (DESIGN.md); with constant trip counts and strides
// gcc -O2 unrolls and vectorises these nests as well as LLVM would, the emitted C is readable
// (--emit=c), and the tables go in through .incbin instead of IR constants, so a large problem
// costs no compile time for its data.
#pragma once

#include "backends/tensor/so/emit_problem_c.h"

#include <string>
#include <vector>

namespace zbddc {

struct ProblemSoOptions {
    std::string compiler = "cc";
    std::vector<std::string> flags{"-O2", "-pthread"};
    std::string symbolPrefix; // non-empty: every export zbdd_X also as PREFIX_X
};

// Returns the compiler's wall time in seconds.
Result<double> writeProblemSharedObject(const TensorProgram &program, const ProblemInfo &info,
                                        const std::string &path,
                                        const ProblemSoOptions &options = {});

// The C alone, for studies (--emit=c): `path` and its tables beside it in `path`.tables.bin,
// which the C includes by absolute path; build it with
// cc -shared -fPIC -O2 -pthread -I backends/tensor/so/include PATH -o problem.so -lm.
Status writeProblemSource(const TensorProgram &program, const ProblemInfo &info,
                          const std::string &path);

// The header of the ABI, as embedded into the build (written beside the generated C).
const char *problemAbiHeader();

} // namespace zbddc
