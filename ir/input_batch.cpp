#include "ir/input_batch.h"

#include "ir/try.h"

#include <algorithm>
#include <string>

namespace zbddc {

void InputBatch::add(std::span<const double> varyingValues) {
    values.insert(values.end(), varyingValues.begin(), varyingValues.end());
    ++count;
}

void InputBatch::vectorInto(size_t k, std::span<double> x) const {
    std::copy(shared.begin(), shared.end(), x.begin());
    const double *v = values.data() + k * varying.size();
    for (size_t j = 0; j < varying.size(); ++j)
        x[varying[j]] = v[j];
}

std::vector<double> InputBatch::dense() const {
    const size_t n = numInputs();
    std::vector<double> xs(count * n);
    for (size_t k = 0; k < count; ++k)
        vectorInto(k, std::span(xs).subspan(k * n, n));
    return xs;
}

InputBatch InputBatch::subset(std::span<const size_t> which) const {
    InputBatch part{shared, varying, {}, 0};
    part.values.reserve(which.size() * varying.size());
    for (size_t k : which)
        part.add(std::span(values).subspan(k * varying.size(), varying.size()));
    return part;
}

std::vector<double> InputBatch::varyingColumns(std::span<const double> rows) const {
    const size_t n = numInputs(), m = varying.size();
    std::vector<double> columns(count * m);
    for (size_t k = 0; k < count; ++k)
        for (size_t j = 0; j < m; ++j)
            columns[k * m + j] = rows[k * n + varying[j]];
    return columns;
}

namespace {

// What both batches check alike: the shared vector's length, the varying inputs' order.
Status checkShared(std::span<const double> shared, size_t n) {
    if (shared.size() != n)
        return error("expected " + std::to_string(n) + " shared input values, got " +
                     std::to_string(shared.size()));
    return Ok{};
}

Status checkVarying(std::span<const uint32_t> varying, size_t n) {
    for (size_t j = 0; j < varying.size(); ++j)
        if (varying[j] >= n || (j > 0 && varying[j] <= varying[j - 1]))
            return error("varying inputs must be ascending input indices below " +
                         std::to_string(n));
    return Ok{};
}

} // namespace

Status InputBatch::check(size_t n) const {
    ZBDDC_TRY(checkShared(shared, n));
    if (values.size() != count * varying.size())
        return error("expected " + std::to_string(count * varying.size()) +
                     " varying input values (" + std::to_string(count) + " vectors of " +
                     std::to_string(varying.size()) + "), got " + std::to_string(values.size()));
    return checkVarying(varying, n);
}

Status DeviceInputBatch::check(size_t n, bool backward) const {
    ZBDDC_TRY(checkShared(shared, n));
    ZBDDC_TRY(checkVarying(varying, n));
    if (count > 0 && !varying.empty() && values == 0)
        return error("no device address for the batch's varying input values");
    if (count > 0 && !varying.empty() && backward && adjoints == 0)
        return error("no device address for the adjoints of a backward pass");
    return Ok{};
}

} // namespace zbddc
