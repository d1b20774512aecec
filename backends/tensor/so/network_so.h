// network.so: a Bayesian network's junction tree emitted as C (emit_network_c.h) and built by the
// system C compiler into a shared object with the C ABI of include/zbdd_network.h, as problem.so
// is (problem_so.h says why C and the system compiler). The output appears atomically or not at
// all.
#pragma once

#include "backends/tensor/so/emit_network_c.h"

#include <string>
#include <vector>

namespace zbddc {

struct NetworkSoOptions {
    std::string compiler = "cc";
    std::vector<std::string> flags{"-O2", "-pthread"};
    uint64_t specialiseWork = kSpecialiseWork; // emit_network_c.h; 0: every op specialised
};

// Returns the compiler's wall time in seconds.
Result<double> writeNetworkSharedObject(const NetworkProgram &sum, const NetworkProgram &max,
                                        uint32_t batch, const std::string &metadata,
                                        const std::string &path,
                                        const NetworkSoOptions &options = {});

} // namespace zbddc
