// Lowers a cost network read from probabilities (UAI: costs -ln p) into the sum-product
// TensorProgram of its partition function Z(e) = Σ_x Π_f p_f(x), with every table scaled so that
// no entry overflows or underflows a double however far Z is beyond one (Grids: log10 Z in the
// thousands). Each input table is divided by its largest entry, and each bucket's message is
// followed by an InverseMax op whose scalar its readers multiply in, as junction-tree messages are
// (lower_junction_tree.h); the logs of both scales are kept apart and added back at the end.
#pragma once

#include "compiler/frontends/wcsp/cost_network.h"
#include "ir/tensor_program.h"

#include <vector>

namespace zbddc {

struct PartitionProgram {
    TensorProgram program; // Semiring::SumProduct
    // ln of the factor every input table was divided by, summed, plus ln d of every free
    // variable in no table (each multiplies Z by its domain size).
    double logScale = 0;
    std::vector<uint32_t> scales; // scalar InverseMax tables: Z is divided by each
};

// `order` a permutation of the variables; `evidence` empty or one entry per variable (a value, or
// UINT32_MAX where free). The network's costs must be -ln of weights (not integer WCSP costs).
Result<PartitionProgram> buildPartitionProgram(const CostNetwork &network,
                                               const std::vector<uint32_t> &order,
                                               const std::vector<uint32_t> &evidence = {});

// ln Z(e) from the program's computed tables (complete values by table id, as executors return
// them); -infinity where Z(e) = 0.
double partitionLog(const PartitionProgram &p, const std::vector<std::vector<double>> &computed);

} // namespace zbddc
