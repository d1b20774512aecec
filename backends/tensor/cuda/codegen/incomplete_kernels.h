// CUDA kernels of bucket elimination over incomplete tables (Bistaffa et al. 2017 §IV, Algs. 3-5),
// the GPU form of backends/tensor/cpu/incomplete_ops: the key of each row over the shared
// variables, a stable LSD radix sort (4-bit digits; each thread owns a run of consecutive rows, so
// counting its digits, an exclusive scan of the [digit][run] counts and a scatter in run order keep
// equal keys in input order), exclusive prefix sums (block scans plus a scan of the block sums),
// group heads and the groups' keys and offsets (the histogram), the two-pass join (count each
// joined row's feasible matches, scan, write) and the segmented min that eliminates. The kernels
// are generic: the digit maps (strides, domains, target strides) are arguments, so one NVRTC
// compile serves every op. Plain CUDA C++, no CUB: the device-wide sort and scan need host-side
// dispatch, which NVRTC cannot compile; these kernels are that dispatch's pieces.
#pragma once

#include <string>

namespace zbddc::cuda {

inline constexpr unsigned kIncompleteBlock = 256;   // threads per block of every kernel here
inline constexpr unsigned kIncompleteRun = 16;      // rows per thread in the radix sort
inline constexpr unsigned kIncompleteScanTile = 512; // elements per block of the scan (2 each)

// The module's source (incomplete_kernels.inc), its kernels launched by name (incomplete_run.h).
std::string incompleteKernelSource();

} // namespace zbddc::cuda
