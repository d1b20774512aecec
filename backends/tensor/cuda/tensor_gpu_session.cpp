#include "backends/tensor/cuda/tensor_gpu_session.h"

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/tensor_modules.h"

#include <algorithm>
#include <chrono>

namespace zbddc::cuda {

struct TensorGpuSession::State {
    const TensorProgram *program = nullptr;
    GpuExecOptions options;
    Device *device = nullptr;
    TensorModules modules;
    std::vector<DeviceBuffer> tables;     // by table id; empty until uploaded or computed
    std::vector<DeviceBuffer> inputLists; // by op: the device array of its inputs' pointers
    std::vector<StreamHandle> streams;
    std::string name;
    double compileMs = 0;

    Result<DevicePtr> table(uint32_t t) {
        if (!tables[t].ptr()) {
            auto buf = device->allocate(std::max<uint64_t>(program->tables[t].entries(), 1) *
                                        sizeof(double));
            if (!buf)
                return buf.error();
            tables[t] = std::move(*buf);
        }
        return tables[t].ptr();
    }
};

TensorGpuSession::TensorGpuSession(std::unique_ptr<State> state) : state_(std::move(state)) {}

TensorGpuSession::~TensorGpuSession() {
    if (state_ && state_->device)
        for (StreamHandle s : state_->streams)
            (void)state_->device->destroyStream(s);
}

Result<std::unique_ptr<TensorGpuSession>> TensorGpuSession::open(const TensorProgram &program,
                                                                 const GpuExecOptions &options) {
    if (Status s = program.verify(); !s)
        return s.error();
    auto device = openDevice();
    if (!device)
        return device.error();
    auto st = std::make_unique<State>();
    st->program = &program;
    st->options = options;
    st->device = *device;
    st->name = st->device->info().label();
    st->tables.resize(program.tables.size());
    st->inputLists.resize(program.ops.size());
    const auto t0 = std::chrono::steady_clock::now();
    auto compiled = TensorModules::compile(*st->device, program, options.kernels);
    if (!compiled)
        return compiled.error();
    st->modules = std::move(*compiled);
    st->compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return std::unique_ptr<TensorGpuSession>(new TensorGpuSession(std::move(st)));
}

Status TensorGpuSession::upload(uint32_t t, std::span<const double> values) {
    State &s = *state_;
    if (values.size() != s.program->tables[t].entries())
        return error("internal error: upload of table " + std::to_string(t) + " has " +
                     std::to_string(values.size()) + " entries");
    auto ptr = s.table(t);
    if (!ptr)
        return ptr.error();
    return s.device->upload(*ptr, values.data(), values.size() * sizeof(double));
}

Status TensorGpuSession::download(uint32_t t, std::span<double> values) {
    State &s = *state_;
    if (!s.tables[t].ptr() || values.size() != s.program->tables[t].entries())
        return error("internal error: download of table " + std::to_string(t) +
                     ", which is not on the device");
    return s.device->download(values.data(), s.tables[t].ptr(), values.size() * sizeof(double));
}

Status TensorGpuSession::launch(std::span<const uint32_t> ops) {
    State &s = *state_;
    Device &d = *s.device;
    const TensorProgram &p = *s.program;
    while (s.streams.size() < std::min<size_t>(ops.size(), 8)) {
        auto stream = d.createStream();
        if (!stream)
            return stream.error();
        s.streams.push_back(*stream);
    }
    // Every allocation and synchronous copy first: a copy on the default stream would wait for
    // the kernels already launched on the other streams, and the host with it.
    std::vector<DevicePtr> outputs;
    for (uint32_t o : ops) {
        const TensorOp &op = p.ops[o];
        std::vector<DevicePtr> ptrs;
        for (uint32_t in : op.inputs) {
            if (!s.tables[in].ptr())
                return error("internal error: op " + std::to_string(o) + " reads table " +
                             std::to_string(in) + ", which is not on the device");
            ptrs.push_back(s.tables[in].ptr());
        }
        if (!s.inputLists[o].ptr()) {
            auto buf = uploadArray(d, ptrs);
            if (!buf)
                return buf.error();
            s.inputLists[o] = std::move(*buf);
        }
        auto out = s.table(op.output);
        if (!out)
            return out.error();
        outputs.push_back(*out);
    }
    const unsigned block = s.options.kernels.blockThreads;
    const unsigned maxGrid = static_cast<unsigned>(d.info().multiprocessors) * 32;
    for (size_t i = 0; i < ops.size(); ++i) {
        const uint32_t o = ops[i];
        auto f = s.modules.function(o);
        if (!f)
            return f.error();
        const bool warp = usesWarpPerRow(p, o, s.options.kernels);
        const uint64_t rows = p.tables[p.ops[o].output].entries();
        for (uint64_t begin = 0; begin < rows; begin += s.options.chunkRows) {
            unsigned long long rowBegin = begin;
            unsigned long long count = std::min(s.options.chunkRows, rows - begin);
            DevicePtr in = s.inputLists[o].ptr();
            DevicePtr out = outputs[i] + begin * sizeof(double);
            void *args[] = {&in, &out, &rowBegin, &count};
            const uint64_t threads = count * (warp ? 32 : 1);
            const unsigned grid = static_cast<unsigned>(
                std::clamp<uint64_t>((threads + block - 1) / block, 1, maxGrid));
            if (Status l = d.launch(*f, {grid, block, 0}, args, s.streams[i % s.streams.size()]);
                !l)
                return l;
        }
    }
    return Ok{};
}

Status TensorGpuSession::wait() {
    for (StreamHandle stream : state_->streams)
        if (Status s = state_->device->synchronize(stream); !s)
            return s;
    return Ok{};
}

const std::string &TensorGpuSession::deviceName() const {
    return state_->name;
}
double TensorGpuSession::compileMs() const {
    return state_->compileMs;
}

} // namespace zbddc::cuda
