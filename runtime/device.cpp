#include "runtime/device.h"

#include "support/name_table.h"

#ifdef ZBDDC_HAVE_CUDA_BACKEND
#include "backends/cuda/driver.h"
#endif

namespace zbddc {

namespace {
using D = DeviceKind;
constexpr Named<DeviceKind> kDeviceKindNames[] = {{D::Auto, "auto"}, {D::Cpu, "cpu"},
                                                  {D::Cuda, "cuda"}, {D::Reference, "reference"},
                                                  {D::Split, "split"}};
} // namespace

const char *deviceKindName(DeviceKind d) { return nameIn(kDeviceKindNames, d); }

std::optional<DeviceKind> parseDeviceKind(std::string_view name) {
    return valueNamed(kDeviceKindNames, name);
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
