// C source of a network.so (route jt): a Bayesian network's junction tree lowered twice with a
// fixed batch of cases (compiler/junction_tree/lower_junction_tree.h) — sum-product with every
// marginal for PR and MAR, max-product for MPE — emitted op by op through emit_tensor_ops_c.h,
// with the driver network_so_driver.c behind the C ABI of include/zbdd_network.h. The fixed input
// tables (the CPTs) go into one blob included by .incbin; the evidence indicators are filled per
// run in the message tables.
#pragma once

#include "ir/result.h"
#include "ir/tensor_program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zbddc {

// One lowered program and the tables its driver reads; variable `numVariables` is the case.
struct NetworkProgram {
    TensorProgram program;
    std::vector<uint32_t>
        evidenceTable;            // by variable: its indicator table (every variable has one)
    uint32_t normaliser = 0;      // the root's scaled value
    std::vector<uint32_t> scales; // InverseMax tables of the collect messages
    std::vector<uint32_t> marginalTable; // by variable (sum program); empty for the max program
};

struct NetworkSource {
    std::string c;            // includes zbdd_network.h and zbdd_network_so_driver.c
    std::vector<double> blob; // both programs' fixed input tables
};

// Ops of at least this much work (entries read) get specialised C; smaller ones run through the
// driver's generic loop (network_so_driver.c's generic_op). Measured on a 1,500-clique chain: gcc
// -O2 spent 80 s on its 10^4 ops as specialised functions, 0.5 s with this threshold.
inline constexpr uint64_t kSpecialiseWork = uint64_t{1} << 15;

// `sum`: sum-product with marginals; `max`: max-product, collect only. Both over the same
// variables with the case variable (domain `batch`) last, case slowest in every table.
Result<NetworkSource> emitNetworkC(const NetworkProgram &sum, const NetworkProgram &max,
                                   uint32_t batch, const std::string &metadata,
                                   const std::string &blobPath,
                                   uint64_t specialiseWork = kSpecialiseWork);

} // namespace zbddc
