#include "backends/cpu/llvm_module.h"

#include "ir/loaded_library.h"

#include <filesystem>

namespace zbddc {

namespace {

constexpr const char *kModuleName = "libzbddc_llvm.so";

Result<const LlvmFunctions *> load() {
    auto lib = loadFirstLibrary(llvmModuleCandidates());
    if (!lib)
        return error(std::string(kModuleName) + " (the CPU backend's LLVM code) not found beside " +
                     "this program nor where it was built (" + lib.error().message +
                     "); install zbddc again");
    auto entry = librarySymbol(*lib, "zbddc_llvm_module_v1");
    if (!entry)
        return error(entry.error().message + ": not a module of this zbddc build");
    const LlvmFunctions *table = reinterpret_cast<decltype(&zbddc_llvm_module_v1)>(*entry)();
    if (!table || table->abi != kLlvmModuleAbi || table->size != sizeof(LlvmFunctions))
        return error(lib->path + ": an LLVM module of another zbddc build");
    return table;
}

} // namespace

std::vector<std::string> llvmModuleCandidates() {
    namespace fs = std::filesystem;
    std::vector<std::string> candidates;
    const std::string folder = folderHolding(reinterpret_cast<const void *>(&llvmFunctions));
    if (!folder.empty())
        for (const fs::path &beside :
             {fs::path(folder) / ZBDDC_LLVM_MODULE_FROM_BIN, fs::path(folder)})
            candidates.push_back((beside / kModuleName).lexically_normal().string());
    candidates.insert(candidates.end(),
                      {kModuleName, ZBDDC_LLVM_MODULE_BUILT, ZBDDC_LLVM_MODULE_INSTALLED});
    return candidates;
}

Result<const LlvmFunctions *> llvmFunctions() {
    static const Result<const LlvmFunctions *> table = load();
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
