// CudaModel over batches of shared and varying inputs (ir/input_batch.h): evidence cases share a
// network's parameters, which are most of its circuit's inputs (water: 3,530 of 3,646), so they
// stay on the device and a launch moves only the indicators in and their adjoints back. Where the
// varying values are in device memory already (DeviceInputBatch: a PyTorch tensor of weights), they
// and the results move between the caller's memory and the rows on the device alone.
#include "backends/cuda/cuda_model.h"

#include <algorithm>

namespace zbddc::cuda {

bool CudaModel::holdsShared(std::span<const double> shared,
                            std::span<const uint32_t> varying) const {
    return inputsHoldShared_ && std::ranges::equal(keptVarying_, varying) &&
           std::ranges::equal(keptShared_, shared);
}

Status CudaModel::keepShared(std::span<const double> shared, std::span<const uint32_t> varying) {
    if (holdsShared(shared, varying))
        return Ok{};
    Device &d = *device_;
    const size_t m = varying.size(), B = shape_.batch, word = shape_.float64 ? 8 : 4;
    // Every input row gets the shared vector in each lane; the varying rows are overwritten by
    // each launch.
    if (Status st = broadcastInputs(shared); !st)
        return st;
    std::vector<uint32_t> slots(m);
    for (size_t j = 0; j < m; ++j)
        slots[j] = plan_.inputBase + varying[j];
    auto onDevice = uploadArray(d, slots);
    if (!onDevice)
        return onDevice.error();
    varyingSlots_ = std::move(*onDevice);
    if (varyingRows_.bytes() < std::max<size_t>(m, 1) * B * word) {
        auto rows = d.allocate(std::max<size_t>(m, 1) * B * word);
        if (!rows)
            return rows.error();
        varyingRows_ = std::move(*rows);
    }
    if (!plan_.reusesSlots && !single_) { // the level kernels' input pieces (compilePlan)
        auto pieces = uploadPieces(inputPieces(plan_, {varying.begin(), varying.end()}));
        if (!pieces)
            return pieces.error();
        varyingPieces_ = std::move(*pieces);
    }
    keptShared_.assign(shared.begin(), shared.end());
    keptVarying_.assign(varying.begin(), varying.end());
    // Ascending and distinct, so consecutive where the last is m - 1 past the first.
    varyingInPlace_ = m > 0 && varying.back() - varying.front() == m - 1;
    inputsHoldShared_ = true;
    return Ok{};
}

namespace {

// A grid-stride launch over rows × B lanes.
LaunchDims rowsDims(size_t rows, size_t lanes) {
    constexpr unsigned kThreads = 256, kMaxBlocks = 4096;
    const size_t items = rows * lanes;
    return {static_cast<unsigned>(std::min<size_t>(kMaxBlocks, (items + kThreads - 1) / kThreads)),
            kThreads, 0};
}

} // namespace

// zb_scatter_rows or zb_gather_rows.
Status CudaModel::moveRows(FunctionHandle kernel, DevicePtr to, DevicePtr from, DevicePtr slots,
                           size_t rows) {
    auto count = static_cast<unsigned>(rows);
    void *args[] = {&to, &from, &slots, &count};
    return device_->launch(kernel, rowsDims(rows, shape_.batch), args);
}

Status CudaModel::broadcastInputs(std::span<const double> shared) {
    const size_t n = plan_.numInputs, B = shape_.batch, word = shape_.float64 ? 8 : 4;
    if (n == 0)
        return Ok{};
    auto host = hostStaging(n * word);
    if (!host)
        return host.error();
    for (size_t i = 0; i < n; ++i)
        if (!storeInput(shared[i], *host + i * word))
            return badInput(i);
    if (sharedRow_.bytes() < n * word) {
        auto row = device_->allocate(n * word);
        if (!row)
            return row.error();
        sharedRow_ = std::move(*row);
    }
    if (Status st = device_->upload(sharedRow_.ptr(), *host, n * word); !st)
        return st;
    DevicePtr rows = values_.ptr() + size_t{plan_.inputBase} * B * word, row = sharedRow_.ptr();
    auto count = static_cast<unsigned>(n);
    void *args[] = {&rows, &row, &count};
    return device_->launch(broadcastRows_, rowsDims(n, B), args);
}

// The copy is not waited for: the pass's download after it, on the same stream, waits for both.
Status CudaModel::uploadVarying(const InputBatch &b, size_t first, size_t count) {
    const size_t m = b.varying.size(), B = shape_.batch, word = shape_.float64 ? 8 : 4;
    if (m == 0)
        return Ok{};
    auto host = hostStaging(m * B * word);
    if (!host)
        return host.error();
    if (const size_t bad = packRows(b.values, m, first, count, *host); bad < m)
        return badInput(b.varying[bad]);
    if (varyingInPlace_) // straight into their rows: no scatter
        return device_->enqueueUpload(
            values_.ptr() + (size_t{plan_.inputBase} + b.varying[0]) * B * word, *host,
            m * B * word);
    if (Status st = device_->enqueueUpload(varyingRows_.ptr(), *host, m * B * word); !st)
        return st;
    return moveRows(scatterRows_, values_.ptr(), varyingRows_.ptr(), varyingSlots_.ptr(), m);
}

Status CudaModel::enqueueVaryingAdjoints(size_t count, unsigned char *host) {
    const size_t m = keptVarying_.size(), B = shape_.batch, word = shape_.float64 ? 8 : 4;
    if (m == 0)
        return Ok{};
    if (varyingInPlace_) // their rows as they are: no gather
        return enqueueRaw(plan_.inputBase + keptVarying_[0], static_cast<uint32_t>(m), count, true,
                          host);
    if (Status st = moveRows(gatherRows_, varyingRows_.ptr(), adjoints_.ptr(), varyingSlots_.ptr(), m);
        !st)
        return st;
    // The last row's lanes past `count` are not needed; the ones between rows are.
    return device_->enqueueDownload(host, varyingRows_.ptr(), ((m - 1) * B + count) * word);
}

Result<std::vector<double>> CudaModel::evaluateVarying(const InputBatch &b) {
    if (Status st = b.check(plan_.numInputs); !st)
        return st.error();
    if (Status st = keepShared(b.shared, b.varying); !st)
        return st.error();
    return forwardOnly(b.count, [&](size_t first, size_t n) { return uploadVarying(b, first, n); });
}

Result<CudaGradient> CudaModel::adjointsOfVarying(const InputBatch &b, size_t output) {
    if (plan_.reusesSlots)
        return error("this model was compiled without backward support (CudaOptions::backward)");
    if (output >= circuit_.numOutputs())
        return error("no output " + std::to_string(output));
    if (Status st = b.check(plan_.numInputs); !st)
        return st.error();
    if (Status st = keepShared(b.shared, b.varying); !st)
        return st.error();
    params_.outSlot = plan_.outputSlots[output];
    const size_t m = b.varying.size();
    CudaGradient g;
    g.values.resize(b.count);
    g.adjoints.resize(b.count * m);
    auto upload = [&](size_t first, size_t n) { return uploadVarying(b, first, n); };
    usePieces(varyingPieces_); // only the varying inputs' adjoints are read back
    Status ran = runBatches(b.count, true, upload, [&](size_t first, size_t n) {
        return collectGradient(first, n, m, g, [&](unsigned char *host) {
            return enqueueVaryingAdjoints(n, host);
        });
    });
    usePieces(allPieces_);
    if (!ran)
        return ran.error();
    return g;
}

namespace {

// zb_rows_from_cases or zb_cases_from_rows over `width` rows of `lanes` lanes, on `stream`.
Status launchCaseRows(Device &d, FunctionHandle kernel, DevicePtr to, DevicePtr from,
                      DevicePtr slots, size_t width, size_t count, size_t lanes,
                      StreamHandle stream) {
    if (width == 0)
        return Ok{};
    auto w = static_cast<unsigned>(width), n = static_cast<unsigned>(count);
    void *args[] = {&to, &from, &slots, &w, &n};
    return d.launch(kernel, rowsDims(width, lanes), args, stream);
}

} // namespace

Status CudaModel::passOnDevice(const DeviceInputBatch &b, std::optional<size_t> adjointsOf,
                               StreamHandle stream) {
    if (Status st = b.check(plan_.numInputs, adjointsOf.has_value()); !st)
        return st;
    if (adjointsOf && plan_.reusesSlots)
        return error("this model was compiled without backward support (CudaOptions::backward)");
    if (adjointsOf && *adjointsOf >= circuit_.numOutputs())
        return error("no output " + std::to_string(*adjointsOf));
    const bool kept = holdsShared(b.shared, b.varying);
    if (Status st = keepShared(b.shared, b.varying); !st)
        return st;
    // The shared rows were filled on the legacy default stream, which a non-blocking stream of
    // the caller's does not wait for.
    if (!kept && stream)
        if (Status st = device_->synchronize(); !st)
            return st;
    Device &d = *device_;
    const size_t m = b.varying.size(), outs = circuit_.numOutputs(), B = shape_.batch;
    constexpr size_t kWord = sizeof(double); // the caller's values and results
    auto upload = [&](size_t first, size_t n) {
        return launchCaseRows(d, rowsFromCases_, values_.ptr(), b.values + first * m * kWord,
                              varyingSlots_.ptr(), m, n, B, stream);
    };
    auto collect = [&](size_t first, size_t n) -> Status {
        if (b.outputs)
            if (Status st = launchCaseRows(d, casesFromRows_, b.outputs + first * outs * kWord,
                                           values_.ptr(), outputSlots_.ptr(), outs, n, n, stream);
                !st)
                return st;
        if (!adjointsOf)
            return Ok{};
        return launchCaseRows(d, casesFromRows_, b.adjoints + first * m * kWord, adjoints_.ptr(),
                              varyingSlots_.ptr(), m, n, n, stream);
    };
    if (adjointsOf) {
        params_.outSlot = plan_.outputSlots[*adjointsOf];
        usePieces(varyingPieces_); // only the varying inputs' adjoints are written out
    }
    Status ran = runBatches(b.count, adjointsOf.has_value(), upload, collect, stream);
    usePieces(allPieces_); // the kernels took their parameters by value when enqueued
    if (!ran)
        return ran;
    return stream ? Ok{} : d.synchronize();
}

} // namespace zbddc::cuda
