#include "backends/tensor/cuda/codegen/tensor_module_sources.h"

#include <algorithm>
#include <cstring>

namespace zbddc::cuda {

std::string tensorModuleKernelName(uint32_t kernel) {
    return "zb_k" + std::to_string(kernel);
}

TensorModuleSources tensorModuleSources(const TensorProgram &program,
                                        const TensorKernelOptions &options, size_t groups,
                                        size_t kernelsPerModule) {
    TensorKernelSet set = distinctTensorKernels(program, options);
    TensorModuleSources out;
    out.kernelOf = std::move(set.kernelOf);
    out.kernels = set.texts.size();
    out.genericKernels = set.genericKernels;
    const size_t count = set.texts.size();
    groups = std::max<size_t>(1, std::min(groups, count / std::max<size_t>(kernelsPerModule, 1)));
    out.moduleOf.resize(count);
    const std::string prelude = tensorKernelPrelude(program, options);
    out.modules.assign(groups, prelude);
    for (uint32_t k = 0; k < count; ++k) { // first use order: a level's kernels are near
        out.moduleOf[k] = static_cast<uint32_t>(k * groups / count);
        std::string &text = set.texts[k];
        const std::string name = tensorModuleKernelName(k);
        for (size_t at = text.find(kTensorKernelPlaceholder); at != std::string::npos;
             at = text.find(kTensorKernelPlaceholder, at + name.size()))
            text.replace(at, std::strlen(kTensorKernelPlaceholder), name);
        out.modules[out.moduleOf[k]] += text;
    }
    return out;
}

std::vector<uint64_t> tensorSourcesKey(const TensorProgram &p, const TensorKernelOptions &o) {
    // A field added to the options must join the key below, else programs that differ only in
    // it would share kernels.
    static_assert(sizeof(TensorKernelOptions) == 96, "a new kernel option must join the key");
    std::vector<uint64_t> k;
    auto list = [&k](const std::vector<uint32_t> &v) {
        k.push_back(v.size());
        k.insert(k.end(), v.begin(), v.end());
    };
    k.push_back(static_cast<uint64_t>(p.semiring));
    list(p.domainSizes);
    k.push_back(p.tables.size());
    for (const Table &t : p.tables) {
        list(t.scope);
        list(t.domains);
        k.push_back(uint64_t{t.sparse} | uint64_t{t.input} << 1);
    }
    k.push_back(p.ops.size());
    for (const TensorOp &op : p.ops) {
        k.push_back(static_cast<uint64_t>(op.kind));
        list(op.inputs);
        k.push_back(op.output);
        list(op.vars);
        list(op.values);
    }
    k.insert(k.end(), {o.blockThreads, o.warpRowThreshold, o.warpRowMaxRows, o.sharedInputBytes,
                       o.sharedInputMaxEntries, o.eliminationRange, o.rowGroups, o.rowGroupMaxSize,
                       o.rowGroupMaxRows, o.rowGroupPairsWhenExpanding, o.rowGroupMinRows,
                       o.rowGroupMinStride, o.interleaveMinBytes, o.interleaveTileGroups, o.float32,
                       o.fusedEntries, o.streamingStoreMinBytes, o.genericMaxWork});
    return k;
}

} // namespace zbddc::cuda
