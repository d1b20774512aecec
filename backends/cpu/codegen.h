// LLVM IR for a Circuit, built directly (no C round trip): straight-line code in the plan's order,
// cut into functions of at most opsPerFunction ops (Minato et al. 2011 §3's compiler, made
// linear-time by bounding function size). Functions are spread over several modules so that they
// compile on all cores; one entry module calls them in order.
//
// The generated symbols, shared by the JIT and the model.so evaluator (xin: inputs in the numeric
// domain, i.e. natural logs in log mode):
//   void zbdd_gen_forward(const double *xin, double *slots, double *out);
//   void zbdd_gen_forward_all(const double *xin, double *values, double *out); // one value per op
//   void zbdd_gen_backward(const double *xin, const double *values, double *adj, double *inAdj);
//   void zbdd_gen_seed(double *adj, double *inAdj, uint64_t output); // adj[output] = 1
//   const uint64_t zbdd_gen_info[8];   // see GenInfo
//   const char zbdd_gen_metadata[];    // the model's metadata text (ir/model_interface.h)
#pragma once

#include "backends/cpu/plan.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace zbddc {

// Layout of zbdd_gen_info.
enum GenInfo : unsigned {
    kInfoVersion, kInfoInputs, kInfoOutputs, kInfoSlots, kInfoValues, kInfoSemiring, kInfoNumeric,
    kInfoBackward, kInfoCount
};
inline constexpr uint64_t kGenVersion = 1;

struct CodegenRequest {
    const Circuit *circuit;
    const CpuPlan *plan;
    bool backward = true;
    bool hidden = false; // hidden visibility (.so: only the evaluator's C ABI is exported)
};

// The functions with index in [first, end).
std::unique_ptr<llvm::Module> buildFunctionsModule(const CodegenRequest &request, size_t first,
                                                   size_t end, llvm::LLVMContext &context);

// The entry points, zbdd_gen_info and zbdd_gen_metadata.
std::unique_ptr<llvm::Module> buildEntryModule(const CodegenRequest &request,
                                                const std::string &metadata,
                                                llvm::LLVMContext &context);

} // namespace zbddc
