// Generates the CUDA C++ source of a model's kernels: one device function per merged op type,
// its postfix template unrolled into an expression with the semiring, number type, batch width and
// block size folded in as constants, plus each type's partial derivatives for the backward pass.
// The circuit's structure reaches the kernel as a DevicePlan's flat arrays, so models with the
// same type catalogue share one compiled module and the NVRTC cache hits across them.
#pragma once

#include "ir/semiring.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc::cuda {

struct KernelShape {
    Semiring semiring = Semiring::SumProduct;
    bool float64 = true;   // float32 otherwise
    bool logSpace = false; // values held as natural logs (product semirings only)
    uint32_t batch = 1;    // B: lanes per slot, lane-fastest (slot s, lane l at s*B + l)
    uint32_t blockThreads = 256;
    // The module's pass kernels: the single-launch ones (zb_*_single) or the level ones
    // (zb_*_block, zb_*_grid): a module of one set compiles 2-3x faster than of both.
    bool singleLaunch = false;
    // Type catalogue: postfix templates (TemplateStep values), as in DevicePlan::typeCode.
    std::vector<std::vector<uint32_t>> typeCode;
    // The templates read as data (InterpretedTypes) rather than compiled in: the source no longer
    // depends on the circuit, so one cached module serves every circuit of this shape.
    bool interpreted = false;

    std::string describe() const; // "sum-product float64 linear B=1 block=256 levels types=3"
};

// A type catalogue as the interpreted kernels read it: each type's template, and each (type,
// operand) partial derivative, as postfix step words. A step word's low two bits are the
// TemplateStep (LoadF, LoadX, Times, Plus), a load's operand position is above them; a
// derivative with no factor (an operand under ⊕s alone) has no steps and is 1.
struct InterpretedTypes {
    std::vector<uint32_t> typeBegin{0}; // type t's steps: steps[typeBegin[t], typeBegin[t + 1])
    std::vector<uint32_t> coefBegin{0}; // code t * 64 + j's steps: [coefBegin[code], [code + 1])
    std::vector<uint32_t> steps;
    uint32_t maxStack = 0; // the deepest stack any of them needs
};
InterpretedTypes interpretTypes(const std::vector<std::vector<uint32_t>> &typeCode);
// The interpreted kernels' evaluation stack (registers or local memory): a catalogue deeper than
// this is compiled.
inline constexpr uint32_t kInterpretedStack = 16;

// Entry points (extern "C"), the pass kernels of one set (KernelShape::singleLaunch):
//   zb_forward_block / zb_forward_grid    forward over op levels [first, last)
//   zb_backward_block / zb_backward_grid  backward steps [first, last): step s < numLevels is
//                                         op level numLevels-1-s, steps numLevels and
//                                         numLevels+1 the inputs' (pieces, then their sums).
// They take (Plan, first, last); *_block run as one block with __syncthreads between levels,
// *_grid as a cooperative grid with a grid barrier between levels (the host launches them with
// cuLaunchCooperativeKernel). Or:
//   zb_forward_single / zb_backward_single  (Plan, Single): every level (forward, or backward and
//                                         then the inputs) in one launch, one block per slice of
//                                         lanes (single_launch.h)
// and in every module:
//   zb_scatter_rows / zb_gather_rows      (rows, packed, slots, count): slot rows to and from one
//                                         packed buffer (a batch's varying inputs, their adjoints)
//   zb_broadcast_rows                     (rows, row, count): value r into every lane of row r
//   zb_rows_from_cases / zb_cases_from_rows  (rows or cases, the other, slots, width, count): a
//                                         batch's vector-major float64 values in the caller's
//                                         device memory to and from slot rows (the log taken
//                                         on the way in, in log space)
//   zb_traceback                          (zb_trace_args): max/min semirings only, one optimal
//                                         term per lane (traceback_kernel.inc)
std::string generateKernelSource(const KernelShape &shape);
// The semirings whose modules have zb_traceback (sum-product sums every term: none to trace).
bool tracesBack(Semiring semiring);

// The kernel parameter block, laid out exactly as the generated `Plan` struct.
struct PlanParams {
    unsigned long long values = 0, adjoints = 0;
    unsigned long long opInfo = 0, opOut = 0, operands = 0, slotOperands = 0, levelOpBegin = 0;
    unsigned long long levelBlockBegin = 0, blockOpBegin = 0, blockLoadBegin = 0, blockLoads = 0;
    unsigned long long edgeStart = 0, edgeOut = 0, edgeOperands = 0, edgeCode = 0;
    unsigned long long barrier = 0;
    unsigned long long pieceEdges = 0, pieceBegin = 0, pieceInputs = 0, partials = 0;
    unsigned long long opPieceEdges = 0, levelPieceBegin = 0, levelSplitBegin = 0, splitOp = 0;
    unsigned long long splitPieceBegin = 0, opPartials = 0;
    unsigned long long typeBegin = 0, coefBegin = 0, typeSteps = 0; // interpreted kernels only
    uint32_t numOps = 0, numInputs = 0, inputBase = 0, numLevels = 0, outSlot = 0;
    uint32_t numPieces = 0, numPieceInputs = 0;
};

} // namespace zbddc::cuda
