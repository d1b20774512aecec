// What the LLVM module's table (llvm_module.h) points to: built into libzbddc_llvm.so only, the
// one place that includes LLVM's headers (with codegen.cpp). Callers use compileObjects and
// emitLlvmIr of object_compile.h, or llvmFunctions(), which load the module first.
#pragma once

#include "backends/cpu/llvm_module.h"

namespace zbddc::llvm_module {

// object_compile.h's compileObjects and emitLlvmIr (llvm_objects.cpp).
Result<CompiledObjects> compileObjects(const Circuit &circuit, const CpuOptions &options,
                                       const std::string &metadata, bool hidden);
Result<std::string> emitLlvmIr(const Circuit &circuit, const CpuOptions &options,
                               const std::string &metadata);

// The objects linked in process with ORC LLJIT, the process's libm resolving exp and log1p
// (llvm_jit.cpp).
Result<JitCode> linkInProcess(const std::vector<std::string> &objects, bool backward);

} // namespace zbddc::llvm_module
