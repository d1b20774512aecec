// `--emit=c`: the circuit as C, one statement per node in the plan's order (the style of the
// Takahashi–Minato generated code that Minato et al. 2011 compiled with gcc: f[i] = f[j]*x[k] +
// f[l]). The file defines the same zbdd_gen_* symbols as the LLVM path (codegen.h), so linking it
// with the C evaluator gives a model.so with the same C ABI: the compile-time study builds it with
// gcc/clang, and the tests check it against the reference evaluator.
#pragma once

#include "backends/cpu/plan.h"

#include <ostream>

namespace zbddc {

// Every op's value lives in f[] (indexed by position in the order), so forward_all is forward.
// With `backward`, also the adjoint pass.
Status emitC(const Circuit &circuit, const CpuOptions &options, std::ostream &out);

// The C evaluator's headers that an emitted C file includes: name -> text (zbdd_model.h,
// zbdd_evaluator.h). The evaluator itself is linked in compiled (shared_object.h).
std::vector<std::pair<std::string, std::string>> evaluatorHeaders();

} // namespace zbddc
