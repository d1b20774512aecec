// The out-of-core path's host tables (Bistaffa et al. 2017 §V-B: every table lives on the host,
// the device holds one op's slices at a time). Complete input tables are read where the program
// holds them and sparse ones are made complete once; a computed table is allocated when its op
// starts and left uninitialised (its op writes every row), so its pages are first touched by the
// staged copies' threads that fill it (staged_copies.h), not by a zero fill of every table up
// front.
#pragma once

#include "ir/tensor_program.h"

#include <memory>
#include <vector>

namespace zbddc::cuda {

class HostTables {
  public:
    explicit HostTables(const TensorProgram &program);

    const double *data(uint32_t id) const { return at_[id]; }
    // Computed table `id`'s storage, allocated on the first call (uninitialised).
    double *allocate(uint32_t id);
    // Row `row` of table `id` (the VALUE phase's reader).
    double value(uint32_t id, uint64_t row) const { return at_[id][row]; }
    // The computed tables as the executors return them (input tables empty), each table's storage
    // freed once copied, so the host holds at most one table twice.
    std::vector<std::vector<double>> takeComputed();

  private:
    const TensorProgram &program_;
    std::vector<std::unique_ptr<double[]>> computed_;
    std::vector<std::vector<double>> completed_; // sparse inputs made complete
    std::vector<const double *> at_;
};

} // namespace zbddc::cuda
