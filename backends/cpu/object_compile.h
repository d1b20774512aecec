// IR to machine code on all cores: the plan's functions are spread over several modules, each
// built in its own LLVMContext and compiled to an in-memory object by a thread of its own. The
// JIT links these objects in process; the .so writer hands them to the system linker. The work
// is done by the LLVM module (llvm_module.h), loaded on the first call.
#pragma once

#include "backends/cpu/codegen.h"

#include <string>
#include <vector>

namespace zbddc {

struct CompileTimes {
    double ir = 0;      // building IR, summed over threads (seconds)
    double codegen = 0; // optimisation and instruction selection, summed over threads
    double wall = 0;    // the whole parallel compile, wall clock
};

struct CompiledObjects {
    CpuPlan plan;
    std::vector<std::string> objects; // each an ELF relocatable object file's bytes
    CompileTimes times;
};

// `hidden`: give generated symbols hidden visibility (for a .so whose only exports are the
// evaluator's C ABI).
Result<CompiledObjects> compileObjects(const Circuit &circuit, const CpuOptions &options,
                                       const std::string &metadata, bool hidden);

// The whole program as one textual LLVM module (`--emit=ll`).
Result<std::string> emitLlvmIr(const Circuit &circuit, const CpuOptions &options,
                               const std::string &metadata);

} // namespace zbddc
