#include "backends/tensor/cuda/plan/narrow_costs.h"

#include <cmath>
#include <limits>
#include <vector>

namespace zbddc::cuda {

double narrowedMagnitudeBound(const TensorProgram &program) {
    constexpr double kNo = std::numeric_limits<double>::infinity();
    if (program.semiring != Semiring::MinSum && program.semiring != Semiring::MaxSum)
        return kNo;
    std::vector<double> bound(program.tables.size(), 0);
    double largest = 0;
    for (size_t t = 0; t < program.tables.size(); ++t) {
        const Table &tab = program.tables[t];
        if (!tab.input)
            continue;
        auto add = [&](double v) {
            if (std::isinf(v))
                return true;
            if (std::isnan(v) || v != std::floor(v))
                return false;
            bound[t] = std::max(bound[t], std::abs(v));
            return true;
        };
        for (double v : tab.values)
            if (!add(v))
                return kNo;
        if (tab.sparse && !add(tab.defaultValue))
            return kNo;
        largest = std::max(largest, bound[t]);
    }
    for (const TensorOp &op : program.ops) { // topological order
        if (op.kind == TensorOpKind::InverseMax || isMessageOp(op.kind))
            return kNo;
        double sum = 0;
        for (uint32_t in : op.inputs)
            sum += bound[in];
        bound[op.output] = sum;
        largest = std::max(largest, sum);
    }
    double result = 0;
    for (uint32_t r : program.results)
        result += bound[r];
    return std::max(largest, result);
}

bool fitsFloat32(const TensorProgram &program) {
    return narrowedMagnitudeBound(program) < double(1 << 24);
}

} // namespace zbddc::cuda
