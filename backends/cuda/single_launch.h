// The single-launch evaluator of a small circuit: one kernel launch per pass instead of one per
// run of levels. Each thread block owns a slice of the batch (2^laneShift consecutive lanes) and
// walks every level of the plan in order, __syncthreads between levels; the backward pass walks
// them in reverse, each op's adjoint gathered from its readers' (no atomics, fixed order; an op
// of many readers in pieces, then its pieces' sums: device_plan.h's OpPieces), then every
// input's. A range of slots lives in the block's shared memory (its values forward, its
// adjoints backward; each slot's lanes side by side, lane fastest), the rest in the model's
// global buffers; forward values are also written to the global buffer, where the outputs are
// read and the backward pass finds them. Launch-bound circuits (a few thousand ops, tens of
// levels) pay one launch per pass rather than one per segment.
#pragma once

#include "backends/cuda/device_plan.h"

#include <cstdint>
#include <optional>

namespace zbddc::cuda {

// The kernels' parameter block beside Plan, laid out as the generated `Single` struct.
struct SingleLaunchParams {
    uint32_t laneShift = 0;   // lanes per block: 1 << laneShift
    uint32_t sharedFirst = 0; // slots [sharedFirst, sharedFirst + sharedSlots) in shared memory
    uint32_t sharedSlots = 0;
    uint32_t stagedEnd = 0; // slots [sharedFirst, stagedEnd) copied in before the first level
};

struct SingleLaunchPlan {
    SingleLaunchParams params;
    uint32_t blocks = 1; // ceil(batch / lanes): block b owns lanes [b·lanes, (b+1)·lanes)
    uint32_t threads = 32;
    uint32_t sharedBytes = 0; // sharedSlots × lanes × word
    uint32_t lanes() const { return 1u << params.laneShift; }
};

// What the planner is given besides the plan: the batch, the word size, the device's size.
struct SingleLaunchLimits {
    uint32_t batch = 1;
    uint32_t wordBytes = 8;
    uint32_t multiprocessors = 132;
    uint32_t sharedBytes = 48 * 1024; // a block's shared memory without opting in
    uint32_t maxThreads = 1024;
    uint32_t maxOps = 1u << 16; // beyond this, the level kernels' grid phases pay off
};

// The single-launch plan when the circuit fits: every computed slot's values of at least one
// lane in shared memory, at most maxOps ops. Lanes per block: the largest power of two at most
// batch / multiprocessors (so the blocks cover the GPU) whose slots still fit, at most 32 (a
// warp's run of one slot). `force` plans even a circuit that does not fit (its slots in shared
// memory as far as they go, from the first computed one; the rest global).
std::optional<SingleLaunchPlan>
planSingleLaunch(const DevicePlan &plan, const SingleLaunchLimits &limits, bool force = false);

} // namespace zbddc::cuda
