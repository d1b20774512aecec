// solveDpop in a build without MPI: --distributed says so.
#include "runtime/dpop/solve_dpop.h"

namespace zbddc {

Status distributedRunAvailable() {
    return error("--distributed needs a zbddc built with MPI (install libopenmpi-dev, configure "
                 "again, rebuild)");
}

Result<DpopRun> solveDpop(const CostNetwork &, const DpopOptions &) {
    return distributedRunAvailable().error();
}

void abortDistributedRun(int) {}

} // namespace zbddc
