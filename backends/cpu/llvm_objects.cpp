#include "backends/cpu/llvm_module_parts.h"

#include "support/threads.h"

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace zbddc::llvm_module {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void initialiseLlvm() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
    });
}

llvm::CodeGenOptLevel codegenLevel(int optLevel) {
    switch (optLevel) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
    }
}

Result<std::unique_ptr<llvm::TargetMachine>> targetMachine(const CpuOptions &o) {
    auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!builder)
        return error("LLVM: " + llvm::toString(builder.takeError()));
    if (!o.hostCpu) {
        builder->setCPU("x86-64");
        builder->getFeatures() = llvm::SubtargetFeatures();
    }
    builder->setRelocationModel(llvm::Reloc::PIC_);
    builder->setCodeGenOptLevel(codegenLevel(o.optLevel));
    auto tm = builder->createTargetMachine();
    if (!tm)
        return error("LLVM: " + llvm::toString(tm.takeError()));
    return std::move(*tm);
}

void optimise(llvm::Module &m, llvm::TargetMachine &tm, int optLevel) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cam;
    llvm::ModuleAnalysisManager mam;
    llvm::PassBuilder pb(&tm);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cam, mam);
    const llvm::OptimizationLevel level = optLevel == 1   ? llvm::OptimizationLevel::O1
                                          : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                          : llvm::OptimizationLevel::O3;
    pb.buildPerModuleDefaultPipeline(level).run(m, mam);
}

// One unit of parallel work: the entry module (index 0) or a range of functions.
struct Part {
    size_t first = 0, end = 0;
    bool entry = false;
};

std::vector<Part> partition(const CpuPlan &plan, unsigned threads) {
    std::vector<Part> parts{{0, 0, true}};
    const size_t n = plan.numFunctions();
    // A few modules per thread balance the load; each costs one LLVMContext and object file.
    const size_t modules = std::min<size_t>(n, size_t(threads) * 4);
    for (size_t k = 0; k < modules; ++k)
        parts.push_back({n * k / modules, n * (k + 1) / modules, false});
    return parts;
}

} // namespace

Result<CompiledObjects> compileObjects(const Circuit &c, const CpuOptions &o,
                                       const std::string &metadata, bool hidden) {
    const auto t0 = std::chrono::steady_clock::now();
    initialiseLlvm();
    auto plan = planCpu(c, o);
    if (!plan)
        return plan.error();
    CompiledObjects result{std::move(*plan), {}, {}};
    const CodegenRequest request{&c, &result.plan, o.backward, hidden};
    const std::vector<Part> parts = partition(result.plan, threadsOrCores(o.threads));
    result.objects.resize(parts.size());

    std::atomic<size_t> next{0};
    std::mutex mutex;
    std::string failure;
    auto worker = [&] {
        auto tm = targetMachine(o);
        if (!tm) {
            std::lock_guard lock(mutex);
            failure = tm.error().message;
            return;
        }
        double ir = 0, codegen = 0;
        for (size_t i; (i = next++) < parts.size();) {
            auto t1 = std::chrono::steady_clock::now();
            llvm::LLVMContext context;
            std::unique_ptr<llvm::Module> m =
                parts[i].entry ? buildEntryModule(request, metadata, context)
                                : buildFunctionsModule(request, parts[i].first, parts[i].end, context);
            m->setDataLayout((*tm)->createDataLayout());
            m->setTargetTriple((*tm)->getTargetTriple().str());
            ir += secondsSince(t1);
            t1 = std::chrono::steady_clock::now();
            std::string problems;
            llvm::raw_string_ostream problemStream(problems);
            if (llvm::verifyModule(*m, &problemStream)) {
                std::lock_guard lock(mutex);
                failure = "internal error: generated IR does not verify: " + problems;
                return;
            }
            if (o.optLevel > 0)
                optimise(*m, **tm, o.optLevel);
            llvm::SmallVector<char, 0> buffer;
            llvm::raw_svector_ostream os(buffer);
            llvm::legacy::PassManager pm;
            if ((*tm)->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
                std::lock_guard lock(mutex);
                failure = "LLVM: the target cannot emit object files";
                return;
            }
            pm.run(*m);
            result.objects[i].assign(buffer.data(), buffer.size());
            codegen += secondsSince(t1);
        }
        std::lock_guard lock(mutex);
        result.times.ir += ir;
        result.times.codegen += codegen;
    };
    const unsigned threads = std::min<size_t>(threadsOrCores(o.threads), parts.size());
    onThreads(threads, [&](size_t) { worker(); });
    if (!failure.empty())
        return error(failure);
    result.times.wall = secondsSince(t0);
    return result;
}

Result<std::string> emitLlvmIr(const Circuit &c, const CpuOptions &o, const std::string &metadata) {
    initialiseLlvm();
    auto plan = planCpu(c, o);
    if (!plan)
        return plan.error();
    const CodegenRequest request{&c, &*plan, o.backward, false};
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> m = buildEntryModule(request, metadata, context);
    if (llvm::Linker::linkModules(*m, buildFunctionsModule(request, 0, plan->numFunctions(), context)))
        return error("internal error: cannot merge the generated modules");
    std::string text;
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    return text;
}

} // namespace zbddc::llvm_module
