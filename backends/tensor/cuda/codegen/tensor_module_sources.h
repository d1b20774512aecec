// The CUDA sources of a TensorProgram's modules, before any device: each distinct kernel once
// (tensor_kernels.h: distinctTensorKernels), renamed zb_k<N>, the kernels cut into `groups` modules
// in first-use order (a level's kernels are near each other) so that NVRTC compiles them
// concurrently. What TensorModules compiles and loads, and what bench/jt_kernels times without a
// GPU.
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

// At most `groups` modules, and fewer where there are few kernels: each module is one more NVRTC
// start (36 ms of CPU for an empty one, measured here) and one more cache entry, where a kernel
// takes 10-200 ms; at 16 kernels a module's start is under a tenth of it, and a program of a few
// hundred kernels (munin's, most of its small ops sharing generic kernels) still fills 16 cores.
inline constexpr size_t kKernelsPerModule = 16;
TensorModuleSources tensorModuleSources(const TensorProgram &program,
                                        const TensorKernelOptions &options, size_t groups,
                                        size_t kernelsPerModule = kKernelsPerModule);

// Everything a program's kernel texts are a function of, as words: the semiring, the domains,
// every table's shape, every op and the kernel options, not the tables' values, which the kernels
// never see. Programs with equal keys have the same sources: TensorModules finds a program solved
// again by it without generating them (SPOT5 404's 207 KB took milliseconds, most of a warm
// one-shot solve).
std::vector<uint64_t> tensorSourcesKey(const TensorProgram &program,
                                       const TensorKernelOptions &options);

// A distinct kernel's name in its module.
std::string tensorModuleKernelName(uint32_t kernel);

} // namespace zbddc::cuda
