#include "backends/tensor/cuda/tensor_module_sources.h"

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
        // Every occurrence: a message kernel names its device functions after itself.
        const std::string name = tensorModuleKernelName(k);
        for (size_t at = text.find(kTensorKernelPlaceholder); at != std::string::npos;
             at = text.find(kTensorKernelPlaceholder, at + name.size()))
            text.replace(at, std::strlen(kTensorKernelPlaceholder), name);
        out.modules[out.moduleOf[k]] += text;
    }
    return out;
}

} // namespace zbddc::cuda
