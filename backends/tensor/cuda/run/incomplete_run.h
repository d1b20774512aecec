// The host side of bucket elimination over incomplete tables on a device (Bistaffa et al. 2017
// §IV): op by op, with the CPU executor's plan (backends/tensor/cpu/incomplete_plan.h), it launches
// the kernels of incomplete_kernels — per join step the table is uploaded, keyed, radix-sorted by
// its shared variables and grouped; every joined row counts its feasible matches, the counts are
// scanned into offsets and the joined rows written; the eliminating ⊕ sorts by output row and
// takes each group's min. Joined rows stay on the device; each op's output (its feasible rows)
// comes back to the host, where later ops read it and the VALUE phase runs. The first table of an
// op (its smallest input) is filtered (slices) and mapped on the host.
// The device is an interface, a test seam: the same orchestration runs on the GPU
// (incomplete_gpu.cpp) and on a CPU emulation of the kernels in the tests. Built everywhere; needs
// no CUDA.
#pragma once

#include "ir/incomplete_tables.h"

#include <memory>
#include <string>
#include <vector>

namespace zbddc::incomplete {

// What the orchestration needs from a device: memory, copies, launches by kernel name. Only
// incomplete_gpu.cpp and the tests implement it; executors are picked by name
// (runtime/tensor/tensor_executor.h), never through this.
class KernelDevice {
  public:
    using Ptr = unsigned long long; // a device address
    struct Buffer {
        Ptr address = 0;
        std::shared_ptr<void> owner; // keeps the memory alive
        Ptr ptr() const { return address; }
    };
    virtual ~KernelDevice() = default;
    virtual Result<Buffer> allocate(size_t bytes) = 0;
    virtual Status upload(Ptr dst, const void *src, size_t bytes) = 0;
    virtual Status download(void *dst, Ptr src, size_t bytes) = 0;
    // `args` as cuLaunchKernel takes them: one pointer to each argument.
    virtual Status launch(const std::string &kernel, unsigned grid, unsigned block,
                          void **args) = 0;
    virtual unsigned maxGrid() const = 0; // blocks for grid-stride kernels
};

struct DeviceRunOptions {
    uint64_t maxRows = uint64_t{1} << 28; // refuse a join of more rows (about 40 bytes each)
};

// Same result as runIncompleteTensorProgramCpu with every computed table incomplete.
Result<std::vector<TableData>> runIncompleteOnDevice(KernelDevice &device,
                                                     const TensorProgram &program,
                                                     const DeviceRunOptions &options = {});

} // namespace zbddc::incomplete
