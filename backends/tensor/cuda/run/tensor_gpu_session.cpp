#include "backends/tensor/cuda/run/tensor_gpu_session.h"

#include "backends/cuda/driver.h"
#include "backends/tensor/cuda/device/level_launch.h"
#include "backends/tensor/cuda/device/op_launch.h"
#include "backends/tensor/cuda/codegen/tensor_modules.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"

#include <algorithm>
#include <chrono>

namespace zbddc::cuda {

struct TensorGpuSession::State {
    const TensorProgram *program = nullptr;
    GpuExecOptions options;
    Device *device = nullptr;
    TensorModules modules;
    std::vector<DeviceBuffer> tables;     // by table id; empty until uploaded or computed
    // By arrangement (swapTables flips it), by op: the device array of its inputs' pointers.
    std::vector<DeviceBuffer> inputLists[2];
    uint8_t arrangement = 0;
    std::vector<std::pair<uint32_t, uint32_t>> swapped; // swapTables' pairs
    std::vector<StreamHandle> streams;
    std::string name;
    double compileMs = 0;
    std::unique_ptr<LevelLauncher> launcher; // runAll's streams and events, made on first use

    Status place(uint32_t op);
    Status enqueue(uint32_t op, StreamHandle stream);

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
    if (state_)
        state_->launcher.reset(); // its streams before the device's
    if (state_ && state_->device)
        for (StreamHandle s : state_->streams)
            (void)state_->device->destroyStream(s);
}

Result<std::unique_ptr<TensorGpuSession>> TensorGpuSession::open(const TensorProgram &program,
                                                                 const GpuExecOptions &options) {
    if (Status s = program.verify(); !s)
        return s.error();
    auto device = openDevice(options.device);
    if (!device)
        return device.error();
    auto st = std::make_unique<State>();
    st->program = &program;
    st->options = options;
    st->device = *device;
    st->name = st->device->info().label();
    st->tables.resize(program.tables.size());
    st->inputLists[0].resize(program.ops.size());
    st->inputLists[1].resize(program.ops.size());
    const auto t0 = std::chrono::steady_clock::now();
    auto compiled = TensorModules::compile(*st->device, program, options.kernels);
    if (!compiled)
        return compiled.error();
    st->modules = std::move(*compiled);
    st->compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return std::unique_ptr<TensorGpuSession>(new TensorGpuSession(std::move(st)));
}

Status TensorGpuSession::reserve(uint32_t t, RowSpan rows) {
    State &s = *state_;
    if (rows.end() > s.program->tables[t].entries())
        return error("internal error: reserve past the end of table " + std::to_string(t));
    auto ptr = s.table(t);
    if (!ptr)
        return ptr.error();
    return Ok{};
}

Status TensorGpuSession::release(uint32_t t) {
    State &s = *state_;
    if (Status st = wait(); !st)
        return st;
    s.tables[t] = DeviceBuffer{};
    for (std::vector<DeviceBuffer> &lists : s.inputLists) // rebuilt by place() where read again
        for (uint32_t o = 0; o < s.program->ops.size(); ++o)
            if (std::ranges::find(s.program->ops[o].inputs, t) != s.program->ops[o].inputs.end())
                lists[o] = DeviceBuffer{};
    return Ok{};
}

Status TensorGpuSession::upload(uint32_t t, uint64_t first, std::span<const double> values) {
    State &s = *state_;
    if (first + values.size() > s.program->tables[t].entries())
        return error("internal error: upload of table " + std::to_string(t) + " has " +
                     std::to_string(values.size()) + " entries from row " + std::to_string(first));
    auto ptr = s.table(t);
    if (!ptr)
        return ptr.error();
    return s.device->upload(*ptr + first * sizeof(double), values.data(),
                            values.size() * sizeof(double));
}

Status TensorGpuSession::download(uint32_t t, uint64_t first, std::span<double> values) {
    State &s = *state_;
    if (!s.tables[t].ptr() || first + values.size() > s.program->tables[t].entries())
        return error("internal error: download of table " + std::to_string(t) +
                     ", which is not on the device");
    return s.device->download(values.data(), s.tables[t].ptr() + first * sizeof(double),
                              values.size() * sizeof(double));
}

// Every allocation and synchronous copy an op needs (its output table, its input-address list):
// done before any launch, since a copy on the default stream would wait for the kernels already
// launched on the other streams, and the host with it.
Status TensorGpuSession::State::place(uint32_t o) {
    const TensorOp &op = program->ops[o];
    std::vector<DeviceBuffer> &lists = inputLists[arrangement];
    if (!lists[o].ptr()) {
        std::vector<DevicePtr> ptrs;
        for (uint32_t in : op.inputs) {
            if (!tables[in].ptr())
                return error("internal error: op " + std::to_string(o) + " reads table " +
                             std::to_string(in) + ", which is not on the device");
            ptrs.push_back(tables[in].ptr());
        }
        auto buf = uploadArray(*device, ptrs);
        if (!buf)
            return buf.error();
        lists[o] = std::move(*buf);
    }
    auto out = table(op.output);
    if (!out)
        return out.error();
    return Ok{};
}

// Op o's kernel over its output's rows, chunk by chunk, on `stream`.
Status TensorGpuSession::State::enqueue(uint32_t o, StreamHandle stream) {
    const TensorProgram &p = *program;
    const uint32_t out = p.ops[o].output;
    return launchOpRows(*device, modules, p, o, options.kernels, options.chunkRows,
                        inputLists[arrangement][o].ptr(), tables[out].ptr(), 0,
                        p.tables[out].entries(), stream);
}

Status TensorGpuSession::launch(std::span<const DeviceTask> tasks) {
    std::vector<uint32_t> ops;
    for (const DeviceTask &task : tasks) {
        if (!(task.out == wholeOpTask(*state_->program, task.op).out))
            return error("internal error: the GPU session launches whole ops, op " +
                         std::to_string(task.op) + " was given part of its rows");
        ops.push_back(task.op);
    }
    return launchOps(ops);
}

Status TensorGpuSession::launchOps(std::span<const uint32_t> ops) {
    State &s = *state_;
    while (s.streams.size() < std::min<size_t>(ops.size(), 8)) {
        auto stream = s.device->createStream();
        if (!stream)
            return stream.error();
        s.streams.push_back(*stream);
    }
    for (uint32_t o : ops)
        if (Status st = s.place(o); !st)
            return st;
    for (size_t i = 0; i < ops.size(); ++i)
        if (Status st = s.enqueue(ops[i], s.streams[i % s.streams.size()]); !st)
            return st;
    return Ok{};
}

Status TensorGpuSession::runAll() {
    State &s = *state_;
    for (const auto &level : s.program->levels)
        for (uint32_t o : level)
            if (Status st = s.place(o); !st)
                return st;
    if (!s.launcher)
        s.launcher = std::make_unique<LevelLauncher>(*s.device);
    return s.launcher->run(
        s.program->levels, [&s](uint32_t o, StreamHandle stream) { return s.enqueue(o, stream); },
        s.options.switches.graphs.value_or(true));
}

Status TensorGpuSession::swapTables(std::span<const std::pair<uint32_t, uint32_t>> pairs) {
    State &s = *state_;
    if (s.swapped.empty())
        s.swapped.assign(pairs.begin(), pairs.end());
    else if (!std::equal(pairs.begin(), pairs.end(), s.swapped.begin(), s.swapped.end()))
        return error("internal error: swapTables with other pairs than before");
    for (const auto &[a, b] : pairs) {
        if (a >= s.tables.size() || b >= s.tables.size() || !s.tables[a].ptr() ||
            !s.tables[b].ptr() || s.program->tables[a].entries() != s.program->tables[b].entries())
            return error("internal error: swapTables of tables " + std::to_string(a) + " and " +
                         std::to_string(b) + ", not both on the device with one size");
        std::swap(s.tables[a], s.tables[b]);
    }
    s.arrangement ^= 1;
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

Status TensorGpuSession::decodeCases(std::vector<uint32_t> &assignments,
                                     const std::vector<uint8_t> &pinned, uint32_t cases) {
    State &s = *state_;
    std::vector<DevicePtr> tables;
    for (const DeviceBuffer &t : s.tables)
        tables.push_back(t.ptr()); // 0 where absent: the plan reads only tables the ops wrote
    return decodeCasesOnDevice(*s.device, *s.program, tables, assignments, pinned, cases);
}

} // namespace zbddc::cuda
