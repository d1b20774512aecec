// The CUDA sources of a TensorProgram's modules, before any device: each distinct kernel once,
// renamed zb_k<N>, cut into `groups` modules in first-use order for NVRTC to compile concurrently.
#pragma once

#include "backends/tensor/cuda/codegen/tensor_kernels.h"

#include <string>
#include <vector>

namespace zbddc::cuda {

struct TensorModuleSources {
    std::vector<std::string> modules; // each a whole CUDA source
    std::vector<uint32_t> kernelOf;   // by op: its kernel
    std::vector<uint32_t> moduleOf;   // by kernel: its module
    size_t kernels = 0, genericKernels = 0;
};

// At most `groups` modules, at least kernelsPerModule kernels each: an NVRTC start costs 36 ms, a
// kernel 10-200 ms.
inline constexpr size_t kKernelsPerModule = 16;
TensorModuleSources tensorModuleSources(const TensorProgram &program,
                                        const TensorKernelOptions &options, size_t groups,
                                        size_t kernelsPerModule = kKernelsPerModule);

// Everything a program's kernel texts are a function of, as words (shapes, ops, kernel options;
// not the tables' values): equal keys, equal sources, so a program solved again is found without
// generating them (milliseconds of a warm solve of SPOT5 404).
std::vector<uint64_t> tensorSourcesKey(const TensorProgram &program,
                                       const TensorKernelOptions &options);

// A distinct kernel's name in its module.
std::string tensorModuleKernelName(uint32_t kernel);

} // namespace zbddc::cuda
