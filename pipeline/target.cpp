#include "pipeline/target.h"

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

} // namespace zbddc::pipeline
