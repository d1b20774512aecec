// The CPU backend's LLVM half (IR building, code generation, the ORC JIT) is a shared module of
// its own, libzbddc_llvm.so, linked to libLLVM and loaded on the first call that needs it: a run
// that generates no machine code (the junction tree, bucket elimination, a model.so, the
// data-driven loop) never maps libLLVM, whose relocation took most of a fresh process's start.
//
// The module exports one C function returning a table of functions. The table passes C++ types
// (Circuit, CpuOptions, Result...), so the module must come from the same build as its loader:
// the version in the entry's name and the table's size and ABI number refuse any other.
//
// Where it is looked for, first found first: beside the executable or library holding this code
// (its folder's ZBDDC_LLVM_MODULE_FROM_BIN, e.g. ../lib/zbddc, then the folder itself); by name
// on the library search path (LD_LIBRARY_PATH, the calling program's run path, which
// find_package(zbddc) sets); where this build put it; where `cmake --install` puts it.
#pragma once

#include "backends/cpu/object_compile.h"

#include <memory>
#include <string>
#include <vector>

namespace zbddc {

// Objects linked in process by ORC LLJIT: the entry points' addresses (null where not generated),
// valid while `jit` lives.
struct JitCode {
    std::shared_ptr<void> jit;
    void *forward = nullptr, *forwardAll = nullptr, *backward = nullptr, *seed = nullptr;
};

inline constexpr int kLlvmModuleAbi = 1;

struct LlvmFunctions {
    int abi = kLlvmModuleAbi;
    size_t size = sizeof(LlvmFunctions);
    Result<CompiledObjects> (*compileObjects)(const Circuit &, const CpuOptions &,
                                              const std::string &metadata, bool hidden) = nullptr;
    Result<std::string> (*emitLlvmIr)(const Circuit &, const CpuOptions &,
                                      const std::string &metadata) = nullptr;
    Result<JitCode> (*linkInProcess)(const std::vector<std::string> &objects,
                                     bool backward) = nullptr;
};

// The module's table, loaded on the first call; otherwise why not (not found, or of another build).
Result<const LlvmFunctions *> llvmFunctions();

// Where the module is looked for, in order (llvmFunctions tries each).
std::vector<std::string> llvmModuleCandidates();

} // namespace zbddc

// The module's one export.
extern "C" const zbddc::LlvmFunctions *zbddc_llvm_module_v1();
