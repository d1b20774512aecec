#include "pipeline/target.h"
#include "runtime/tensor/tensor_executor.h"

namespace zbddc::pipeline {

std::optional<NumericChoice> parseNumericChoice(std::string_view name) {
    using N = NumericChoice;
    for (auto [text, choice] : {std::pair{"auto", N::Auto}, {"float64", N::Float64}, {"log", N::Log},
                                {"float32", N::Float32}, {"log32", N::Log32}})
        if (name == text)
            return choice;
    return std::nullopt;
}

Placement place(const Target &target, size_t cases) {
    Placement p;
    switch (target.device) {
    case DeviceKind::Auto:
        if (cases <= 1) {
            p.device = DeviceKind::Cpu;
            p.why = "auto: one case";
        } else {
            p.device = DeviceKind::Auto; // each route's engine takes a usable GPU, else the CPU
            p.onGpu = bool(gpuUsable());
        }
        break;
    case DeviceKind::Cuda:
    case DeviceKind::Split:
        p.device = target.device;
        p.onGpu = bool(gpuUsable());
        break;
    default:
        p.device = target.device;
    }
    return p;
}

Result<std::vector<int>> requestedGpus(const Target &target, bool onGpu,
                                       std::vector<std::string> &notes) {
    if (target.devices.empty())
        return target.gpus;
    if (!onGpu) {
        notes.push_back("--devices " + target.devices + " ignored: the CPU runs");
        return target.gpus;
    }
    return resolveGpuRequest(target.devices);
}

} // namespace zbddc::pipeline
