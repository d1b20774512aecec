#include "backends/tensor/cuda/device/host_tables.h"

#include "support/memory.h"

namespace zbddc::cuda {

HostTables::HostTables(const TensorProgram &program)
    : program_(program), computed_(program.tables.size()), completed_(program.tables.size()),
      at_(program.tables.size(), nullptr) {
    for (size_t t = 0; t < program.tables.size(); ++t) {
        const Table &tab = program.tables[t];
        if (!tab.input)
            continue;
        if (tab.sparse)
            completed_[t] = tab.denseValues();
        at_[t] = tab.sparse ? completed_[t].data() : tab.values.data();
    }
}

double *HostTables::allocate(uint32_t id) {
    if (!computed_[id]) {
        computed_[id] = std::make_unique_for_overwrite<double[]>(program_.tables[id].entries());
        adviseHugePages(computed_[id].get(), program_.tables[id].entries() * sizeof(double));
        at_[id] = computed_[id].get();
    }
    return computed_[id].get();
}

std::vector<std::vector<double>> HostTables::takeComputed() {
    std::vector<std::vector<double>> computed(program_.tables.size());
    for (size_t t = 0; t < program_.tables.size(); ++t) {
        if (!computed_[t])
            continue;
        reserveOnHugePages(computed[t], program_.tables[t].entries());
        computed[t].assign(at_[t], at_[t] + program_.tables[t].entries());
        computed_[t].reset();
        at_[t] = nullptr;
    }
    return computed;
}

} // namespace zbddc::cuda
