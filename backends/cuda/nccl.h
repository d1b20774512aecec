// NCCL, NVIDIA's library of transfers between GPUs, loaded at run time (dlopen) as libcuda is, so
// that a build runs where NCCL is not installed: tables then cross GPUs by peer copies
// (Device::copyFromPeer), and logical devices sharing one GPU never need it. The library is the
// one gpuSettings names (support/gpu_settings.h: a path to libnccl.so.2, e.g. from the
// nvidia-nccl-cu13 Python wheel; ZBDDC_NCCL at the command line), else libnccl.so.2 on the
// loader's path. NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0 is set
// before any communicator exists.
#pragma once

#include "backends/cuda/driver.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace zbddc::cuda {

// Ok where NCCL loads; otherwise why not. Loaded once per process.
Status ncclAvailable();
// "2.27.7" for the NCCL loaded; "" where none is.
std::string ncclVersion();

// Bytes from rank `fromRank`'s `src` to rank `toRank`'s `dst`, each end on its own GPU's stream.
struct PeerTransfer {
    int fromRank = 0, toRank = 0;
    DevicePtr src = 0, dst = 0;
    size_t bytes = 0;
    StreamHandle fromStream = nullptr, toStream = nullptr;
};

// One communicator per GPU, all in this process (ncclCommInitAll): ranks are positions in the
// ordinals given, which must be distinct (NCCL refuses two ranks on one GPU).
class NcclComms {
  public:
    static Result<std::unique_ptr<NcclComms>> open(std::span<const int> ordinals);
    // The same, made by the first call for this list and kept for the whole process (never
    // destroyed, as devices are not): ncclCommInitAll took about half a second on two H200s, and
    // a pair's first transfer sets up its connection, so a run pays neither twice.
    static Result<NcclComms *> shared(std::span<const int> ordinals);
    ~NcclComms();
    NcclComms(const NcclComms &) = delete;
    NcclComms &operator=(const NcclComms &) = delete;

    // Every transfer's send and receive in one NCCL group, enqueued on their streams: returns
    // before they finish (synchronize the streams). A rank may send to itself.
    Status transfer(std::span<const PeerTransfer> transfers);
    size_t ranks() const { return comms_.size(); }

  private:
    NcclComms() = default;
    std::vector<void *> comms_; // ncclComm_t by rank
};

} // namespace zbddc::cuda
