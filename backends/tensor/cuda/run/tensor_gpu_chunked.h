// The out-of-core path of runTensorProgramCuda (Bistaffa et al. 2017 §V-B): every table on the host
// (host_tables.h, copied through pinned staging reused for the process: staged_copies.h), ops one
// after another, each run as its ChunkPlan's steps. Three kinds of stream, so that both copy
// engines and the SMs work at once (Bistaffa et al. 2017 Fig. 10): one stream for uploads
// (host→device engine), one for downloads (device→host engine), and one compute stream per
// in-flight slot. Events order them: a slot's upload waits for the slot's previous kernel (its
// buffers are reused), its kernel waits for the upload and for the previous chunk's download from
// the same output buffer, the download waits for the kernel. The host only enqueues.
#pragma once

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/device/host_tables.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"

namespace zbddc::cuda {

// `program` must be the one `module` was generated from (with kernels.eliminationRange when the
// plan splits eliminated spaces). Returns every table of `program` on the host.
Result<HostTables> runChunkedOnDevice(Device &d, const TensorModules &module,
                                      const TensorProgram &program, const ChunkPlan &plan,
                                      const GpuExecOptions &options, GpuExecStats &st);

} // namespace zbddc::cuda
