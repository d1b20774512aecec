// The loader's side of mpi_module.h.
#include "runtime/dpop/mpi_module.h"

#include "ir/loaded_library.h"

#include <atomic>

namespace zbddc {

namespace {
std::atomic<const MpiFunctions *> loaded{nullptr};
} // namespace

Result<const MpiFunctions *> mpiFunctions() {
    static const Result<const MpiFunctions *> table = [] {
        auto t = loadModule<MpiFunctions>(
            moduleCandidates("libzbddc_mpi.so", reinterpret_cast<const void *>(&mpiFunctions),
                             ZBDDC_MPI_MODULE_FROM_BIN, ZBDDC_MPI_MODULE_BUILT,
                             ZBDDC_MPI_MODULE_INSTALLED),
            "zbddc_mpi_module_v1", kMpiModuleAbi, "--distributed's MPI code");
        if (t)
            loaded = *t;
        return t;
    }();
    return table;
}

const MpiFunctions *mpiFunctionsIfLoaded() {
    return loaded;
}

} // namespace zbddc
