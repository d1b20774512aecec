// Generates the CUDA C++ source of a model's kernels. The source depends only on the kernel's
// shape (semiring, number type, batch width, block size), never on the circuit's structure: the
// circuit reaches the kernel as the flat arrays of a DevicePlan, so one compiled module serves
// every model of that shape and the NVRTC cache hits across models.
#pragma once

#include "ir/semiring.h"

#include <cstdint>
#include <string>

namespace zbddc::cuda {

struct KernelShape {
    Semiring semiring = Semiring::SumProduct;
    bool float64 = true;        // float32 otherwise
    bool logSpace = false;      // values held as natural logs (product semirings only)
    uint32_t batch = 1;         // B: lanes per slot, lane-fastest (slot s, lane l at s*B + l)
    uint32_t blockThreads = 256;

    std::string describe() const; // "sum-product float64 linear B=1 block=256"
};

// Entry points (extern "C", each taking (Plan, first, last)):
//   zb_forward_block / zb_forward_grid    forward over op levels [first, last)
//   zb_backward_block / zb_backward_grid  backward steps [first, last): step s < numLevels is
//                                         op level numLevels-1-s, step numLevels the inputs.
// *_block run as one block with __syncthreads between levels; *_grid as a cooperative grid with
// a grid barrier between levels (the host launches them with cuLaunchCooperativeKernel).
std::string generateKernelSource(const KernelShape &shape);

// The kernel parameter block, laid out exactly as the generated `Plan` struct.
struct PlanParams {
    unsigned long long values = 0, adjoints = 0;
    unsigned long long opDst = 0, opA = 0, opB = 0, opC = 0, groupStart = 0;
    unsigned long long edgeStart = 0, edgeParent = 0, edgeMul = 0;
    unsigned long long barrier = 0;
    uint32_t numOps = 0, numInputs = 0, numLevels = 0, outSlot = 0;
};

} // namespace zbddc::cuda
