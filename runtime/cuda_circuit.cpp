#include "runtime/cuda_circuit.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND

#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/passes/pipeline.h"

#include <algorithm>

namespace zbddc {

int defaultCudaScheduleLevel(uint32_t lanes) {
    return lanes > 1 ? 3 : 0;
}

Result<Schedule> cudaSchedule(const Circuit &c, const cuda::CudaOptions &o,
                              std::optional<int> level) {
    const uint32_t lanes = std::max(o.batch, 1u);
    PipelineOptions po = cudaPipelineOptions(level.value_or(defaultCudaScheduleLevel(lanes)), lanes,
                                             o.blockThreads, o.narrowWork, o.backward);
    return buildSchedule(c, po);
}

Result<cuda::CudaModel> compileCircuitForCuda(const Circuit &c, const cuda::CudaOptions &o,
                                              std::optional<int> level) {
    auto schedule = cudaSchedule(c, o, level);
    if (!schedule)
        return schedule.error();
    return cuda::compileCuda(c, *schedule, o);
}

Result<std::string> emitCircuitCuda(const Circuit &c, const cuda::CudaOptions &o, bool ptx) {
    auto schedule = cudaSchedule(c, o);
    if (!schedule)
        return schedule.error();
    return ptx ? cuda::emitPtx(*schedule, o) : cuda::emitCudaSource(*schedule, o);
}

} // namespace zbddc

#endif
