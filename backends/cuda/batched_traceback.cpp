// CudaModel's batched traceback (traceback_kernel.inc): MPE over an evidence batch as one forward
// pass and one walk per case on the device, where decoding from max-product adjoints takes a
// backward pass per round of ties (runtime/mpe_decode.h).
#include "backends/cuda/cuda_model.h"
#include "backends/cuda/plan_traceback.h"

#include <algorithm>

namespace zbddc::cuda {

namespace {

// zb_trace_args as the kernel declares it: nine pointers, then seven words.
struct TraceArgs {
    unsigned long long values, opInfo, slotOperands, producer, codeBegin, code, indicator, states,
        status;
    uint32_t inputBase, numInputs, firstComputed, numVariables, outSlot, lanes, maxSteps;
};

} // namespace

Status CudaModel::uploadTracebackArrays() {
    if (traced_)
        return Ok{};
    auto arrays = tracebackArrays(plan_, circuit_.inputs);
    if (!arrays)
        return arrays.error();
    Device &d = *device_;
    TracebackOnDevice t;
    t.maxSteps = arrays->maxSteps;
    for (auto [dst, src] : {std::pair{&t.producer, &arrays->producer},
                            {&t.codeBegin, &arrays->codeBegin},
                            {&t.code, &arrays->code},
                            {&t.indicator, &arrays->indicator}}) {
        auto buf = uploadArray(d, *src);
        if (!buf)
            return buf.error();
        *dst = std::move(*buf);
    }
    const size_t B = shape_.batch;
    auto states = d.allocate(std::max<size_t>(circuit_.variables.size(), 1) * B * 4);
    if (!states)
        return states.error();
    t.states = std::move(*states);
    auto status = d.allocate(B * 4);
    if (!status)
        return status.error();
    t.status = std::move(*status);
    traced_ = std::move(t);
    return Ok{};
}

Status CudaModel::launchTraceback(uint32_t outSlot, size_t lanes, StreamHandle stream) {
    const TracebackOnDevice &t = *traced_;
    TraceArgs a{values_.ptr(),
                opInfo_.ptr(),
                slotOperands_.ptr(),
                t.producer.ptr(),
                t.codeBegin.ptr(),
                t.code.ptr(),
                t.indicator.ptr(),
                t.states.ptr(),
                t.status.ptr(),
                plan_.inputBase,
                plan_.numInputs,
                plan_.firstComputedSlot,
                static_cast<uint32_t>(circuit_.variables.size()),
                outSlot,
                static_cast<uint32_t>(lanes),
                t.maxSteps};
    void *args[] = {&a};
    constexpr unsigned kThreads = 128;
    const auto blocks = static_cast<unsigned>((lanes + kThreads - 1) / kThreads);
    return device_->launch(traceback_, {blocks, kThreads, 0}, args, stream);
}

void CudaModel::unpackTraced(const uint32_t *words, size_t first, size_t lanes,
                             TracedTerms &t) const {
    const size_t B = shape_.batch, vars = circuit_.variables.size();
    for (size_t l = 0; l < lanes; ++l) {
        const uint32_t status = words[vars * B + l];
        t.traced[first + l] = walkEnded(status);
        if (!t.tied.empty())
            t.tied[first + l] = status == uint32_t(TraceStatus::TracedTied);
        if (!walkEnded(status) && t.untraced.empty())
            t.untraced = traceStatusText(status);
        for (size_t v = 0; v < vars; ++v)
            t.states[(first + l) * vars + v] = words[v * B + l];
    }
}

Result<TracedTerms> CudaModel::tracebackOfVarying(const InputBatch &b, size_t output) {
    if (!traceback_)
        return error("no traceback in " + std::string(semiringName(shape_.semiring)));
    if (output >= circuit_.numOutputs())
        return error("no output " + std::to_string(output));
    if (Status st = b.check(plan_.numInputs); !st)
        return st.error();
    if (Status st = uploadTracebackArrays(); !st)
        return st.error();
    if (Status st = keepShared(b.shared, b.varying); !st)
        return st.error();
    const size_t B = shape_.batch, vars = circuit_.variables.size();
    TracedTerms t;
    t.outputs.resize(b.count * circuit_.numOutputs());
    t.states.resize(b.count * vars);
    t.traced.resize(b.count);
    if (tiesTold())
        t.tied.resize(b.count);
    auto upload = [&](size_t first, size_t n) { return uploadVarying(b, first, n); };
    Status ran = runBatches(b.count, false, upload, [&](size_t first, size_t n) -> Status {
        if (Status st = collectOutputs(first, n, t.outputs); !st)
            return st;
        if (Status st = launchTraceback(plan_.outputSlots[output], n); !st)
            return st;
        // The states' rows, then the statuses.
        const size_t stateWords = vars * B;
        auto host = hostStaging((stateWords + n) * 4);
        if (!host)
            return host.error();
        auto *words = reinterpret_cast<uint32_t *>(*host);
        if (stateWords > 0)
            if (Status st = device_->download(words, traced_->states.ptr(), stateWords * 4); !st)
                return st;
        if (Status st = device_->download(words + stateWords, traced_->status.ptr(), n * 4); !st)
            return st;
        unpackTraced(words, first, n, t);
        return Ok{};
    });
    if (!ran)
        return ran.error();
    return t;
}

} // namespace zbddc::cuda
