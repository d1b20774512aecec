// C source of a problem.so: bucket elimination of one TensorProgram, specialised per op as the CUDA
// kernels are (backends/tensor/cuda/codegen/tensor_kernels.h; the op C is emit_tensor_ops_c.h's,
// shared with the network.so) — domain sizes and every input's strides are constants, one loop nest
// per bucket (Fioretto et al. 2015's fused aggregate-project: the joined table is never
// materialised; Bistaffa et al. 2016 Alg. 3's closed-form indexing), then the VALUE phase (argmin
// traceback, as ir/tensor_program.h's recoverAssignment) — behind the C ABI of
// include/zbdd_problem.h. The input tables are not printed as C: they go into a binary blob that
// the source includes with the assembler's .incbin, so a problem with 10^7 table entries compiles
// as fast as one with ten.
#pragma once

#include "ir/result.h"
#include "ir/tensor_program.h"

#include <string>
#include <utility>
#include <vector>

namespace zbddc {

// What the .so says about itself (zbdd_problem_metadata) beyond the program.
struct ProblemInfo {
    std::string name;
    std::vector<std::string> variableNames; // empty: variables are named by index
    bool integerCosts = true;
    double upperBound = 0;                                  // +infinity: none
    std::vector<std::pair<std::string, std::string>> facts; // e.g. {"induced_width", "3"}
};

struct ProblemSource {
    std::string c;            // includes "zbdd_problem.h" and `blobPath`
    std::vector<double> blob; // the input tables, complete, in the program's layouts
    std::string metadata;
};

// `program`: a fused bucket program without evidence (buildBucketProgram's: SliceEvidence-free,
// EliminateBucket ops of one variable each, min-sum); anything else is refused. Evidence is applied
// at solve time as a 0/+inf mask on each eliminated variable.
Result<ProblemSource> emitProblemC(const TensorProgram &program, const ProblemInfo &info,
                                   const std::string &blobPath);

// The metadata text (ir/so_metadata.h): "zbdd-problem 2", `key value` facts, then the variables.
std::string writeProblemMetadata(const TensorProgram &program, const ProblemInfo &info);

} // namespace zbddc
