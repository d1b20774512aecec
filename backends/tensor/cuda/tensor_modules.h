// A TensorProgram's kernels (tensor_kernels.h) compiled as several modules at once: one kernel per
// distinct op shape (ops of one shape share it) still makes a thousand kernels for a large junction
// tree, and one NVRTC compile of them all takes minutes on one thread; NVRTC is thread-safe, so
// groups of kernels compile concurrently, each into its own module (and its own cache entry). Small
// programs stay one module. Loaded modules are kept for the process, by device and source, so a
// program solved again (a benchmark's timed run, a library host's second call) neither compiles nor
// loads: loading PTX runs the driver's own compiler, tens of milliseconds for a hundred kernels.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/tensor_kernels.h"

#include <memory>
#include <vector>

namespace zbddc::cuda {

class TensorModules {
  public:
    static Result<TensorModules> compile(Device &device, const TensorProgram &program,
                                         const TensorKernelOptions &options);
    // The kernel of op `op`.
    Result<FunctionHandle> function(uint32_t op) const;
    bool fromCache() const { return fromCache_; }
    bool loadedBefore() const { return loadedBefore_; } // every module came from this process
    size_t size() const { return modules_.size(); }

  private:
    std::vector<std::shared_ptr<const Module>> modules_;
    std::vector<uint32_t> kernelOf_; // by op: its kernel
    std::vector<uint32_t> moduleOf_; // by kernel
    bool fromCache_ = true;
    bool loadedBefore_ = true;
};

} // namespace zbddc::cuda
