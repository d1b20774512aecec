#include "backends/cpu/llvm_module_parts.h"

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

namespace zbddc::llvm_module {

Result<JitCode> linkInProcess(const std::vector<std::string> &objects, bool backward) {
    auto created = llvm::orc::LLJITBuilder().create();
    if (!created)
        return error("LLVM: " + llvm::toString(created.takeError()));
    std::shared_ptr<llvm::orc::LLJIT> jit = std::move(*created);
    // The generated code calls exp and log1p (log-add-exp) from this process's libm.
    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
        jit->getDataLayout().getGlobalPrefix());
    if (!process)
        return error("LLVM: " + llvm::toString(process.takeError()));
    jit->getMainJITDylib().addGenerator(std::move(*process));
    for (size_t i = 0; i < objects.size(); ++i)
        if (llvm::Error e = jit->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
                objects[i], "part" + std::to_string(i) + ".o")))
            return error("LLVM: " + llvm::toString(std::move(e)));

    auto address = [&](const char *name) -> Result<void *> {
        auto symbol = jit->lookup(name);
        if (!symbol)
            return error("LLVM: " + llvm::toString(symbol.takeError()));
        return symbol->toPtr<void *>();
    };
    JitCode code;
    for (auto [name, field] : {std::pair{"zbdd_gen_forward", &code.forward},
                               {"zbdd_gen_forward_all", &code.forwardAll},
                               {"zbdd_gen_backward", &code.backward},
                               {"zbdd_gen_seed", &code.seed}}) {
        if (!backward && field != &code.forward)
            continue;
        auto found = address(name);
        if (!found)
            return found.error();
        *field = *found;
    }
    code.jit = std::move(jit);
    return code;
}

} // namespace zbddc::llvm_module
