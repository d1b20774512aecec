#include "backends/cpu/llvm_module.h"

#include "ir/loaded_library.h"

namespace zbddc {

std::vector<std::string> llvmModuleCandidates() {
    return moduleCandidates("libzbddc_llvm.so", reinterpret_cast<const void *>(&llvmFunctions),
                            ZBDDC_LLVM_MODULE_FROM_BIN, ZBDDC_LLVM_MODULE_BUILT,
                            ZBDDC_LLVM_MODULE_INSTALLED);
}

Result<const LlvmFunctions *> llvmFunctions() {
    static const Result<const LlvmFunctions *> table =
        loadModule<LlvmFunctions>(llvmModuleCandidates(), "zbddc_llvm_module_v1", kLlvmModuleAbi,
                                  "the CPU backend's LLVM code");
    return table;
}

Result<CompiledObjects> compileObjects(const Circuit &circuit, const CpuOptions &options,
                                       const std::string &metadata, bool hidden) {
    auto llvm = llvmFunctions();
    if (!llvm)
        return llvm.error();
    return (*llvm)->compileObjects(circuit, options, metadata, hidden);
}

Result<std::string> emitLlvmIr(const Circuit &circuit, const CpuOptions &options,
                               const std::string &metadata) {
    auto llvm = llvmFunctions();
    if (!llvm)
        return llvm.error();
    return (*llvm)->emitLlvmIr(circuit, options, metadata);
}

} // namespace zbddc
