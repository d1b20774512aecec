// The LLVM module's one export: its table of functions (llvm_module.h).
#include "backends/cpu/llvm_module_parts.h"

extern "C" __attribute__((visibility("default"))) const zbddc::LlvmFunctions *
zbddc_llvm_module_v1() {
    static const zbddc::LlvmFunctions table{
        zbddc::kLlvmModuleAbi, sizeof(zbddc::LlvmFunctions), zbddc::llvm_module::compileObjects,
        zbddc::llvm_module::emitLlvmIr, zbddc::llvm_module::linkInProcess};
    return &table;
}
