#include "runtime/device.h"

#include "support/strings.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/driver.h"
#endif

namespace zbddc {

const char *deviceKindName(DeviceKind d) {
    switch (d) {
    case DeviceKind::Auto:
        return "auto";
    case DeviceKind::Cpu:
        return "cpu";
    case DeviceKind::Cuda:
        return "cuda";
    case DeviceKind::Reference:
        return "reference";
    case DeviceKind::Split:
        return "split";
    }
    return "?";
}

std::optional<DeviceKind> parseDeviceKind(std::string_view name) {
    using D = DeviceKind;
    return byName(name, {D::Auto, D::Cpu, D::Cuda, D::Reference, D::Split}, deviceKindName);
}

Status gpuUsable() {
#ifdef ZBDDC_HAVE_CUDA_BACKEND
    return cuda::cudaAvailable();
#else
    return error("this build has no CUDA backend (NVRTC was not found)");
#endif
}

std::string DeviceReport::label() const {
    std::string s = deviceKindName(kind);
    if (kind == Kind::Cuda && !name.empty()) // a split names its GPU in its notes
        s += ": " + name;
    if (!notes.empty())
        s += " (" + notes + ")";
    return s;
}

void DeviceReport::addNote(std::string_view note) {
    if (note.empty())
        return;
    notes += (notes.empty() ? "" : "; ") + std::string(note);
}

} // namespace zbddc
