#include "backends/tensor/cuda/tensor_gpu_multi.h"

#include "backends/cuda/nccl.h"
#include "backends/tensor/cuda/op_launch.h"
#include "backends/tensor/cuda/tensor_modules.h"
#include "ir/try.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace zbddc::cuda {

namespace {

constexpr size_t kStreams = 4; // per logical device: a level's ops overlap on them

// One logical device: a GPU's context shared, streams, kernels and tables of its own.
class GpuSliceDevice final : public SliceDevice {
  public:
    GpuSliceDevice(Device &d, const TensorProgram &p, const GpuExecOptions &o)
        : d_(d), p_(p), options_(o), tables_(p.tables.size()), held_(p.tables.size()) {
        // A device holds only the input rows its share of output rows reads; a row group
        // (tensor_kernels.h) reaches past the share.
        options_.kernels.rowGroups = false;
    }
    ~GpuSliceDevice() override {
        for (StreamHandle s : streams_)
            (void)d_.destroyStream(s);
    }

    Status open() {
        auto modules = TensorModules::compile(d_, p_, options_.kernels);
        if (!modules)
            return modules.error();
        modules_ = std::move(*modules);
        while (streams_.size() < kStreams) {
            auto s = d_.createStream();
            if (!s)
                return s.error();
            streams_.push_back(*s);
        }
        return Ok{};
    }

    Status reserve(uint32_t t, RowSpan rows) override {
        const RowSpan old = held_[t];
        if (old.rows && rows == old)
            return Ok{};
        if (!rows.contains(old))
            return error("internal error: a reserve of table " + std::to_string(t) +
                         " drops rows the device holds");
        auto buf = d_.allocate(std::max<uint64_t>(rows.rows, 1) * sizeof(double));
        if (!buf)
            return buf.error();
        if (old.rows) { // the rows held so far move into the larger range
            ZBDDC_TRY(d_.copy(buf->ptr() + (old.first - rows.first) * sizeof(double),
                              tables_[t].ptr(), old.rows * sizeof(double), streams_[0]));
            ZBDDC_TRY(d_.synchronize(streams_[0]));
        }
        tables_[t] = std::move(*buf);
        held_[t] = rows;
        return Ok{};
    }
    Status release(uint32_t t) override {
        tables_[t] = DeviceBuffer{}; // back to the pool
        held_[t] = {};
        return Ok{};
    }
    Status upload(uint32_t t, uint64_t first, std::span<const double> v) override {
        return d_.upload(address(t, first), v.data(), v.size() * sizeof(double));
    }
    Status download(uint32_t t, uint64_t first, std::span<double> v) override {
        return d_.download(v.data(), address(t, first), v.size() * sizeof(double));
    }
    // Every input list uploaded (synchronous copies) before any kernel is enqueued.
    Status launch(std::span<const DeviceTask> tasks) override {
        lists_.clear();
        for (const DeviceTask &task : tasks) {
            std::vector<DevicePtr> bases;
            for (uint32_t in : p_.ops[task.op].inputs) // whole-table offsets: the held range's
                bases.push_back(tables_[in].ptr() - held_[in].first * sizeof(double)); // row 0
            auto list = uploadArray(d_, bases);
            if (!list)
                return list.error();
            lists_.push_back(std::move(*list));
        }
        for (size_t i = 0; i < tasks.size(); ++i) {
            const DeviceTask &task = tasks[i];
            ZBDDC_TRY(launchOpRows(d_, modules_, p_, task.op, options_.kernels, options_.chunkRows,
                                   lists_[i].ptr(), address(p_.ops[task.op].output, task.out.first),
                                   task.out.first, task.out.rows, streams_[i % streams_.size()]));
        }
        return Ok{};
    }
    Status wait() override {
        for (StreamHandle s : streams_)
            ZBDDC_TRY(d_.synchronize(s));
        return Ok{};
    }

    DevicePtr address(uint32_t t, uint64_t row) const {
        return tables_[t].ptr() + (row - held_[t].first) * sizeof(double);
    }
    Device &device() const { return d_; }
    StreamHandle copyStream() const { return streams_[0]; }

  private:
    Device &d_;
    const TensorProgram &p_;
    GpuExecOptions options_;
    TensorModules modules_;
    std::vector<DeviceBuffer> tables_; // by table: the rows held_ says
    std::vector<RowSpan> held_;
    std::vector<StreamHandle> streams_;
    std::vector<DeviceBuffer> lists_; // the input lists of the tasks in flight
};

// Rows between logical devices: a copy within one GPU, NCCL or a peer copy between GPUs.
class GpuFabric final : public DeviceFabric {
  public:
    GpuFabric(std::vector<std::unique_ptr<GpuSliceDevice>> &devices, std::span<const int> ordinals,
              NcclComms *nccl, std::map<int, int> rankOf)
        : devices_(devices), ordinals_(ordinals), nccl_(nccl), rankOf_(std::move(rankOf)) {}

    Status copy(std::span<const TableMove> moves) override {
        std::vector<PeerTransfer> viaNccl;
        for (const TableMove &m : moves) {
            GpuSliceDevice &from = *devices_[static_cast<size_t>(m.from)];
            GpuSliceDevice &to = *devices_[static_cast<size_t>(m.to)];
            const DevicePtr src = from.address(m.table, m.rows.first);
            const DevicePtr dst = to.address(m.table, m.rows.first);
            const size_t bytes = m.rows.rows * sizeof(double);
            const int a = ordinals_[static_cast<size_t>(m.from)];
            const int b = ordinals_[static_cast<size_t>(m.to)];
            if (a == b)
                ZBDDC_TRY(to.device().copy(dst, src, bytes, to.copyStream()));
            else if (nccl_)
                viaNccl.push_back({rankOf_.at(a), rankOf_.at(b), src, dst, bytes, from.copyStream(),
                                   to.copyStream()});
            else
                ZBDDC_TRY(
                    to.device().copyFromPeer(from.device(), dst, src, bytes, to.copyStream()));
        }
        if (!viaNccl.empty())
            ZBDDC_TRY(nccl_->transfer(viaNccl));
        for (auto &d : devices_)
            ZBDDC_TRY(d->device().synchronize(d->copyStream()));
        return Ok{};
    }

  private:
    std::vector<std::unique_ptr<GpuSliceDevice>> &devices_;
    std::span<const int> ordinals_;
    NcclComms *nccl_;
    std::map<int, int> rankOf_; // GPU ordinal -> NCCL rank
};

// Bytes of tables one logical device may hold: `fraction` of its GPU's free memory (the pool's
// idle blocks counted), shared by the logical devices on that GPU; the least over the GPUs.
Result<uint64_t> deviceBudget(std::span<const int> ordinals, double fraction) {
    uint64_t least = UINT64_MAX;
    for (int o : ordinals) {
        auto d = openDevice(o);
        if (!d)
            return d.error();
        auto memory = (*d)->memoryInfo();
        if (!memory)
            return memory.error();
        const auto shares = static_cast<double>(std::count(ordinals.begin(), ordinals.end(), o));
        least = std::min(
            least,
            static_cast<uint64_t>(
                fraction * static_cast<double>(memory->freeBytes + memory->pooledBytes) / shares));
    }
    return least;
}

} // namespace

Result<std::vector<std::vector<double>>>
runTensorProgramMultiGpu(const TensorProgram &program, std::span<const int> ordinals,
                         const MultiDeviceOptions &planOptions, const GpuExecOptions &options,
                         MultiGpuStats *stats) {
    MultiGpuStats local;
    MultiGpuStats &st = stats ? *stats : local;
    if (ordinals.empty())
        return error("internal error: a multi-GPU run with no device");
    if (Status s = program.verify(); !s)
        return s.error();
    // Slices by output variables would cut a message's normalisation group.
    if (Status s = refuseMessageOps(program, "the multi-GPU executor"); !s)
        return s.error();
    st.ordinals.assign(ordinals.begin(), ordinals.end());
    // Inputs the kernels stage whole in shared memory must be whole on every device.
    MultiDeviceOptions planned = planOptions;
    planned.wholeInputMaxEntries =
        std::max<uint64_t>(planned.wholeInputMaxEntries, options.kernels.sharedInputMaxEntries);
    if (!planned.deviceBudgetBytes) { // a share of the GPU whose logical devices have least room
        auto budget = deviceBudget(ordinals, options.memoryFraction);
        if (!budget)
            return budget.error();
        planned.deviceBudgetBytes = *budget;
    }
    st.deviceBudgetBytes = planned.deviceBudgetBytes;
    auto plan = planMultiDevice(program, static_cast<uint32_t>(ordinals.size()), planned);
    if (!plan)
        return plan.error();
    st.slicedOps = plan->slicedOps;
    st.uploadBytes = plan->uploadBytes;
    st.peerBytes = plan->peerBytes;
    st.downloadBytes = plan->downloadBytes;
    st.work = plan->work;

    // Distinct GPUs, each an NCCL rank where NCCL is there and there are two GPUs or more.
    std::map<int, int> rankOf;
    std::vector<int> distinct;
    st.gpus.clear();
    for (int o : ordinals)
        if (rankOf.emplace(o, static_cast<int>(distinct.size())).second) {
            distinct.push_back(o);
            auto d = openDevice(o);
            if (!d)
                return d.error();
            st.gpus += (st.gpus.empty() ? "" : ", ") + (*d)->info().label();
        }
    std::unique_ptr<NcclComms> nccl;
    if (distinct.size() == 1) {
        st.transport = "device-to-device copies (" + std::to_string(ordinals.size()) +
                       " logical devices on one GPU)";
    } else if (Status usable = ncclAvailable(); !usable) {
        st.transport = "peer copies (" + usable.error().message + ")";
    } else {
        auto comms = NcclComms::open(distinct);
        if (!comms) {
            st.transport = "peer copies (" + comms.error().message + ")";
        } else {
            nccl = std::move(*comms);
            st.nccl = true;
            st.transport = "NCCL " + ncclVersion() + " between GPUs";
        }
    }

    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::unique_ptr<GpuSliceDevice>> devices;
    std::vector<SliceDevice *> view;
    for (int o : ordinals) {
        auto d = openDevice(o);
        if (!d)
            return d.error();
        devices.push_back(std::make_unique<GpuSliceDevice>(**d, program, options));
        ZBDDC_TRY(devices.back()->open());
        view.push_back(devices.back().get());
    }
    st.compileMs = msSince(t0);
    GpuFabric fabric(devices, ordinals, nccl.get(), rankOf);
    return runTensorProgramMultiDevice(program, *plan, view, fabric, &st.times);
}

} // namespace zbddc::cuda
