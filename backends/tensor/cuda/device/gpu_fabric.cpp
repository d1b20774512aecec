#include "backends/tensor/cuda/device/gpu_fabric.h"

#include "backends/cuda/nccl.h"
#include "ir/try.h"

#include <set>

namespace zbddc::cuda {

std::unique_ptr<GpuFabric> GpuFabric::open(std::vector<std::unique_ptr<GpuTensorDevice>> &devices,
                                           std::span<const int> ordinals, std::string &transport) {
    std::unique_ptr<GpuFabric> f(new GpuFabric(devices, ordinals));
    std::vector<int> distinct; // by NCCL rank
    for (int o : ordinals)
        if (f->rankOf_.emplace(o, static_cast<int>(distinct.size())).second)
            distinct.push_back(o);
    if (distinct.size() == 1) {
        transport = "device-to-device copies (" + std::to_string(ordinals.size()) +
                    " logical devices on one GPU)";
    } else if (Status usable = ncclAvailable(); !usable) {
        transport = "peer copies (" + usable.error().message + ")";
    } else if (auto comms = NcclComms::shared(distinct); !comms) {
        transport = "peer copies (" + comms.error().message + ")";
    } else {
        f->nccl_ = *comms;
        transport = "NCCL " + ncclVersion() + " between GPUs";
    }
    return f;
}

Status GpuFabric::enqueue(std::span<const TableMove> moves) {
    std::vector<PeerTransfer> viaNccl;
    std::set<std::pair<int, int>> waited; // (from, to): the destination waits once
    for (const TableMove &m : moves) {
        GpuTensorDevice &from = *devices_[static_cast<size_t>(m.from)];
        GpuTensorDevice &to = *devices_[static_cast<size_t>(m.to)];
        const DevicePtr src = from.address(m.table, m.rows.first);
        const DevicePtr dst = to.address(m.table, m.rows.first);
        const size_t bytes = m.rows.rows * from.entryBytes();
        const int a = ordinals_[static_cast<size_t>(m.from)];
        const int b = ordinals_[static_cast<size_t>(m.to)];
        if (a != b && nccl_) {
            viaNccl.push_back({rankOf_.at(a), rankOf_.at(b), src, dst, bytes, from.copyStream(),
                               to.copyStream()});
            continue;
        }
        if (waited.insert({m.from, m.to}).second)
            ZBDDC_TRY(from.awaitedBy(to));
        if (a == b)
            ZBDDC_TRY(to.device().copy(dst, src, bytes, to.copyStream()));
        else
            ZBDDC_TRY(to.device().copyFromPeer(from.device(), dst, src, bytes, to.copyStream()));
    }
    if (!viaNccl.empty())
        ZBDDC_TRY(nccl_->transfer(viaNccl));
    return Ok{};
}

Status GpuFabric::copy(std::span<const TableMove> moves) {
    ZBDDC_TRY(enqueue(moves));
    for (auto &d : devices_)
        ZBDDC_TRY(d->device().synchronize(d->copyStream()));
    return Ok{};
}

} // namespace zbddc::cuda
