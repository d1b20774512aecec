// What runs the work: the device kind, the GPUs and the arithmetic, asked for once and settled
// once per opened model (`place`), so that no route, and no command line, decides it again.
#pragma once

#include "backends/tensor/cuda/run/gpu_switches.h"
#include "runtime/model.h"
#include "runtime/tasks.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc::pipeline {

// One device enum for every route, and one check for a GPU (runtime/device.h).
using zbddc::DeviceKind;
using zbddc::deviceKindName;
using zbddc::gpuUsable;
using zbddc::parseDeviceKind;

struct Target {
    DeviceKind device = DeviceKind::Auto;
    std::vector<int> gpus; // empty: one GPU (the first) where the device is a GPU
    std::string devices;   // "all", a count or ordinals, resolved into `gpus` on a GPU run
    NumericChoice numeric = NumericChoice::Auto;
    unsigned threads = 0; // CPU threads, 0 = all cores
    // The tensor executors' GPU variants, as the program's edge read them (ZBDDC_GPU_*: the
    // command line and the Python module call gpuSwitchesFromVariables); no route reads them.
    cuda::GpuSwitches gpuSwitches;
};

// "auto", "float64", "log", "float32", "log32"; nothing for another name.
std::optional<NumericChoice> parseNumericChoice(std::string_view name);

// `auto` settled for a run of `cases` cases: one case runs on the CPU on every route (a command
// line on the GPU pays for its CUDA context and module loads, 110-200 ms for one MLF case on the
// H100 against 5-100 ms on its host's CPU; bench/results/NOTEBOOK.md "The auto route, per device"), a batch
// on the GPU where one is usable. `why` says how auto was settled ("" where it was not auto).
struct Placement {
    DeviceKind device = DeviceKind::Cpu; // Cpu, Cuda or Reference; Auto where a route decides
    bool onGpu = false;                  // a GPU will run the work
    std::string why;
};
Placement place(const Target &target, size_t cases);

// The GPUs a route runs on: those `target.devices` names where a GPU runs the work (`onGpu`), or
// target.gpus where none is named; where the CPU runs, target.gpus and a note that the list is
// ignored.
Result<std::vector<int>> requestedGpus(const Target &target, bool onGpu,
                                       std::vector<std::string> &notes);

} // namespace zbddc::pipeline
