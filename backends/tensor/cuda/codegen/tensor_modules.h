// A TensorProgram's kernels (tensor_kernels.h) compiled as several modules at once: a large
// junction tree still has a thousand distinct kernels, minutes of NVRTC on one thread, so groups
// compile concurrently, each its own module and cache entry. Loaded modules are kept for the
// process by device and source, and a program compiled before on the device is found by its key
// (tensorSourcesKey) without generating its sources again.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/codegen/tensor_kernels.h"

#include <memory>
#include <span>
#include <vector>

namespace zbddc::cuda {

struct TensorModuleSources; // tensor_module_sources.h

class TensorModules {
  public:
    // The program's modules on each of `devices` (by position): GPUs that compiled the program
    // before find it by its key, the others share one generation of its sources and load their
    // modules each on a thread of its own.
    static Result<std::vector<TensorModules>> compile(std::span<Device *const> devices,
                                                      const TensorProgram &program,
                                                      const TensorKernelOptions &options);
    // The kernel of op `op`, and its fused entry point where it has one (hasFused), both looked up
    // once when the modules load: the host's time per launch is most of a small program's run.
    Result<FunctionHandle> function(uint32_t op) const;
    Result<FunctionHandle> fusedFunction(uint32_t op) const;
    bool hasFused(uint32_t op) const { return fusedFunctions_[kernelOf_[op]] != nullptr; }
    uint32_t kernelOf(uint32_t op) const { return kernelOf_[op]; }
    // Op `op`'s row group (rowGroupOf), as its kernel was generated with it.
    const RowGroup &rowGroup(uint32_t op) const { return rowGroups_[op]; }
    // Op `op`'s shape words where it runs a generic kernel (its last argument, passed by value:
    // generic_tensor_kernels.h), else empty.
    std::span<const uint32_t> shapeOf(uint32_t op) const {
        return {shapeWords_.data() + shapeBegin_[op], shapeBegin_[op + 1] - shapeBegin_[op]};
    }
    bool loadedBefore() const { return loadedBefore_; } // every module came from this process

  private:
    static Result<TensorModules> load(Device &device, const TensorProgram &program,
                                      const TensorKernelOptions &options,
                                      const TensorModuleSources &sources);

    std::vector<std::shared_ptr<const Module>> modules_;
    std::vector<uint32_t> kernelOf_; // by op: its kernel
    std::vector<uint32_t> moduleOf_; // by kernel
    std::vector<FunctionHandle> functions_, fusedFunctions_; // by kernel (fused: null if none)
    std::vector<RowGroup> rowGroups_;                        // by op
    std::vector<uint32_t> shapeWords_;
    std::vector<size_t> shapeBegin_; // by op, and one past the last: its words in shapeWords_
    bool loadedBefore_ = true;
};

} // namespace zbddc::cuda
