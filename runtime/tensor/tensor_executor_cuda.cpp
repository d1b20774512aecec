// The table's CUDA entries where the build has the CUDA tensor backend: "cuda" runs the generated
// kernels (backends/tensor/cuda), "split" the host/device split with the GPU's TensorDevice as its
// device. Both run incomplete tables on the CPU executor: the GPU's sparse joins took 768 ms on
// SPOT5 404 against ~1 ms for its complete tables, and were removed (BENCHMARKS.md).
#include "backends/cuda/driver.h"
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/device/op_profile.h"
#include "backends/tensor/cuda/plan/split_reductions.h"
#include "backends/tensor/cuda/run/tensor_gpu.h"
#include "backends/tensor/cuda/run/value_phase_gpu.h"
#include "backends/tensor/devices/multi_device_run.h"
#include "runtime/device_list.h"
#include "runtime/tensor/tensor_executor_entries.h"
#include "support/timer.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace zbddc {

namespace {

Result<IncompleteTables> runIncompleteOnCpu(const TensorProgram &program,
                                            const TensorExecutorOptions &o) {
    auto cpu = cpuTensorExecutor(o);
    if (!cpu)
        return cpu.error();
    return (*cpu)->runIncomplete(program);
}

// The GPU's prepared program: one GpuTensorDevice (module compiled, every table held whole, inputs
// uploaded) for every run, each run inCoreSteps less its HoldAll and downloads (those of the
// tables wanted follow it) through the step runner: its levels prepared once and replayed as one
// CUDA graph.
class CudaPreparedProgram final : public PreparedTensorProgram {
  public:
    static Result<std::unique_ptr<PreparedTensorProgram>> open(const TensorProgram &program,
                                                               const cuda::GpuExecOptions &o) {
        std::unique_ptr<CudaPreparedProgram> p(new CudaPreparedProgram(program, o.switches));
        auto device = cuda::openGpuTensorDevice(p->program_, o);
        if (!device)
            return device.error();
        p->device_ = std::move(*device);
        std::vector<DeviceStep> steps = inCoreSteps(p->program_, true);
        // The ranges every table is held over: the first step's (device 0 holds them all).
        std::vector<TableReserve> ranges;
        for (uint32_t t = 0; t < p->program_.tables.size(); ++t)
            ranges.push_back({t, 0, {0, p->program_.tables[t].entries()}});
        auto inputs = denseInputTables(p->program_);
        if (!inputs)
            return inputs.error();
        const std::vector<std::span<const double>> views(inputs->begin(), inputs->end());
        if (Status s = p->device_->holdAll(ranges, views); !s)
            return s.error();
        std::erase_if(steps, [](const DeviceStep &s) { return s.kind == StepKind::HoldAll; });
        p->steps_ = std::move(steps);
        return std::unique_ptr<PreparedTensorProgram>(std::move(p));
    }
    Status setInput(uint32_t table, std::span<const double> values) override {
        return device_->upload(table, 0, values);
    }
    Status setInputs(std::span<const uint32_t> tables,
                     std::span<const std::span<const double>> values) override {
        return device_->uploadTables(tables, values);
    }
    Result<CompleteTables> run() override {
        std::unique_ptr<std::FILE, int (*)(std::FILE *)> profile(nullptr, std::fclose);
        StepTargets targets;
        TensorDevice *const devices[] = {device_.get()};
        targets.devices = devices;
        std::vector<DeviceStep> profiled;
        if (!switches_.profilePath.empty()) { // a diagnostic: each op alone, timed
            profile.reset(std::fopen(switches_.profilePath.c_str(), "a"));
            profiled = cuda::profileSteps(program_);
            if (profile)
                targets.timed = cuda::profileLines(profile.get(), program_);
        }
        StepTimes times{};
        if (auto ran =
                runDeviceSteps(program_, profiled.empty() ? steps_ : profiled, targets, times);
            !ran)
            return ran.error();
        const auto t0 = std::chrono::steady_clock::now();
        auto out = download();
        if (profile)
            std::fprintf(profile.get(), "download\t-\t-\t-\t-\t%.4f\n", msSince(t0));
        return out;
    }
    Status decodeCases(std::vector<uint32_t> &assignments, const std::vector<uint8_t> &pinned,
                       uint32_t cases, std::vector<uint8_t> &tied) override {
        // The device's program has the caller's variables (splitting adds tables, not variables).
        std::vector<cuda::DevicePtr> tables;
        for (uint32_t t = 0; t < program_.tables.size(); ++t)
            tables.push_back(device_->address(t, 0));
        return cuda::decodeCasesOnDevice(device_->device(), program_, tables, assignments, pinned,
                                         cases, tied);
    }

  private:
    Result<CompleteTables> download() {
        CompleteTables out{std::vector<std::vector<double>>(callerTables_),
                           {DeviceReport::Kind::Cuda, device_->device().info().label(), ""}};
        const std::vector<uint32_t> &fetch = program_.fetch;
        std::vector<std::span<double>> into;
        for (uint32_t t : fetch) {
            out.tables[t].resize(program_.tables[t].entries());
            into.emplace_back(out.tables[t]);
        }
        if (Status s = device_->downloadTables(fetch, into); !s)
            return s.error();
        return out;
    }

    // An empty fetch list (every computed table) spelled out, so that the device lays the tables
    // read back side by side (GpuTensorDevice::downloadTables reads them with one copy).
    CudaPreparedProgram(const TensorProgram &program, cuda::GpuSwitches switches)
        : program_(cuda::splitWideReductions(program)), callerTables_(program.tables.size()),
          switches_(std::move(switches)) {
        if (program_.fetch.empty())
            for (uint32_t t = 0; t < callerTables_; ++t)
                if (!program_.tables[t].input)
                    program_.fetch.push_back(t);
    }
    TensorProgram program_; // the device reads it: it lives as long as the device
    size_t callerTables_;   // the tables of the program as given (splitting adds more)
    cuda::GpuSwitches switches_;
    std::unique_ptr<cuda::GpuTensorDevice> device_;
    std::vector<DeviceStep> steps_; // one run's
};

// The generated kernels on one GPU or several logical devices (tensor_gpu.h: one entry point for
// both). One device prepares programs (a batched junction tree's), decodes batches of cases where
// the tables are and sizes batches by its free memory; several run the multi-device plan, the
// VALUE phase on the first over the tables where they were computed.
class CudaExecutor final : public TensorExecutor {
  public:
    CudaExecutor(std::vector<int> ordinals, std::string note, const TensorExecutorOptions &o)
        : options_(o), note_(std::move(note)) {
        gpu_.devices = std::move(ordinals);
        gpu_.multiDevice = o.multiDevice;
        gpu_.memoryBudgetBytes = o.gpuBudgetBytes;
        gpu_.switches = o.gpuSwitches;
    }
    Result<std::unique_ptr<PreparedTensorProgram>> prepare(const TensorProgram &program) override {
        if (several())
            return TensorExecutor::prepare(program);
        cuda::GpuExecOptions o;
        o.devices = gpu_.devices;
        o.switches = gpu_.switches;
        return CudaPreparedProgram::open(program, o);
    }
    bool decodesCases() const override { return !several(); }
    Result<CompleteTables> run(const TensorProgram &program) override {
        cuda::GpuExecStats st;
        auto computed = cuda::runTensorProgramCuda(program, gpu_, &st);
        if (!computed)
            return computed.error();
        return CompleteTables{std::move(*computed), report(st)};
    }
    // The VALUE phase on the device where the tables fit there (no table downloaded).
    Result<SolvedProgram> solve(const TensorProgram &program,
                                std::vector<uint32_t> &assignment) override {
        cuda::GpuExecStats st;
        bool tied = false;
        auto optimum = cuda::solveTensorProgramCuda(program, assignment, gpu_, &st, &tied);
        if (!optimum)
            return optimum.error();
        SolvedProgram out;
        out.optimum = *optimum;
        out.tied = tied;
        out.device = report(st);
        out.times = {st.compileMs,  st.uploadMs,      st.kernelMs, st.downloadMs,
                     st.valueMs,    st.valueOnDevice, st.launches, st.graph,
                     st.tableBytes, st.float32,       st.peerMs,   st.planMs};
        return out;
    }
    Result<IncompleteTables> runIncomplete(const TensorProgram &program) override {
        return runIncompleteOnCpu(program, options_);
    }
    Result<uint64_t> memoryBudgetBytes(uint64_t releasedBytes) override {
        auto device = cuda::openDevice(gpu_.devices.front());
        if (!device)
            return device.error();
        auto memory = (*device)->memoryInfo();
        if (!memory)
            return memory.error();
        return static_cast<uint64_t>(
            0.6 * static_cast<double>(memory->freeBytes + memory->pooledBytes + releasedBytes));
    }

  private:
    bool several() const { return gpu_.devices.size() > 1; }
    DeviceReport report(const cuda::GpuExecStats &st) const {
        if (!several())
            return {DeviceReport::Kind::Cuda, st.device, note_};
        std::string list;
        for (int o : gpu_.devices)
            list += (list.empty() ? "" : ",") + std::to_string(o);
        std::string notes = std::to_string(gpu_.devices.size()) + " devices " + list + ", " +
                            std::to_string(st.slicedOps) + " ops sliced (" +
                            std::to_string(st.relaidOutputs) + " outputs relaid), " + st.transport;
        notes += st.ordered ? ", levels in stream order" : ", a host wait per level";
        if (st.float32)
            notes += ", float tables";
        return {DeviceReport::Kind::Cuda, st.device, std::move(notes)};
    }

    TensorExecutorOptions options_;
    cuda::GpuExecOptions gpu_; // on gpu_.devices (the caller's budget, switches)
    std::string note_;         // said in the report: why one GPU ran where --devices asked
};

class SplitExecutor final : public TensorExecutor {
  public:
    explicit SplitExecutor(const TensorExecutorOptions &o) : options_(o) {}

    Result<CompleteTables> run(const TensorProgram &program) override {
        const SplitPlan plan = planHostDeviceSplit(program, options_.splitThresholdEntries);
        std::unique_ptr<cuda::GpuTensorDevice> gpu;
        if (plan.deviceOps > 0) { // an all-host plan needs no GPU (nor a kernel compile)
            cuda::GpuExecOptions o;
            o.switches = options_.gpuSwitches;
            auto opened = cuda::openGpuTensorDevice(program, o);
            if (!opened)
                return opened.error();
            gpu = std::move(*opened);
        }
        auto computed = runTensorProgramSplit(program, plan, gpu.get(), options_.threads);
        if (!computed)
            return computed.error();
        const std::string name = gpu ? gpu->device().info().label() : "";
        DeviceReport device{DeviceReport::Kind::Split, name, ""};
        device.notes =
            "threshold " + std::to_string(plan.thresholdEntries) + " entries: " +
            (gpu ? std::to_string(plan.hostOps) + " ops on the host, " +
                       std::to_string(plan.deviceOps) + " on cuda: " + device.name
                 : "all " + std::to_string(plan.hostOps) + " ops on the host (none reaches it)");
        return CompleteTables{std::move(*computed), std::move(device)};
    }
    Result<IncompleteTables> runIncomplete(const TensorProgram &program) override {
        return runIncompleteOnCpu(program, options_);
    }

  private:
    TensorExecutorOptions options_;
};

} // namespace

Result<std::vector<int>> resolveGpuRequest(std::string_view text) {
    auto request = parseDeviceRequest(text);
    if (!request)
        return request.error();
    std::vector<std::string> names;
    if (cuda::cudaAvailable())
        if (auto count = cuda::deviceCount())
            for (int i = 0; i < *count; ++i) {
                auto info = cuda::deviceInfo(i);
                names.push_back(info ? info->label() : "(" + info.error().message + ")");
            }
    return resolveDevices(*request, names);
}

// A GPU that is missing shows when the executor runs: cuda::openDevice says why. `--devices`
// resolving to one GPU runs the single-GPU executor, saying so; several the multi-device one.
Result<std::unique_ptr<TensorExecutor>> cudaTensorExecutor(const TensorExecutorOptions &o) {
    if (o.devices.empty())
        return std::unique_ptr<TensorExecutor>(new CudaExecutor({o.gpu}, "", o));
    auto ordinals = resolveGpuRequest(o.devices);
    if (!ordinals)
        return ordinals.error();
    const std::string note =
        ordinals->size() == 1 ? "--devices " + o.devices + ": one device, the single-GPU path" : "";
    return std::unique_ptr<TensorExecutor>(new CudaExecutor(std::move(*ordinals), note, o));
}

Result<std::unique_ptr<TensorExecutor>> splitTensorExecutor(const TensorExecutorOptions &o) {
    if (!gpuUsable())
        return cpuTensorExecutor(o);
    return std::unique_ptr<TensorExecutor>(new SplitExecutor(o));
}

} // namespace zbddc
