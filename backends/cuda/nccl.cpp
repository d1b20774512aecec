#include "backends/cuda/nccl.h"
#include "ir/loaded_library.h"
#include "support/gpu_settings.h"

#include <cstdlib>
#include <map>
#include <mutex>

namespace zbddc::cuda {

namespace {

// nccl.h's ABI, declared here so that no NCCL header is needed to build: ncclResult_t is an int
// enum (0: success), ncclComm_t an opaque pointer, ncclUint8 is data type 1.
using NcclResult = int;
using NcclComm = void *;
constexpr int kNcclUint8 = 1;

struct NcclApi {
    NcclResult (*getVersion)(int *) = nullptr;
    const char *(*getErrorString)(NcclResult) = nullptr;
    NcclResult (*commInitAll)(NcclComm *, int, const int *) = nullptr;
    NcclResult (*commDestroy)(NcclComm) = nullptr;
    NcclResult (*groupStart)() = nullptr;
    NcclResult (*groupEnd)() = nullptr;
    NcclResult (*send)(const void *, size_t, int, int, NcclComm, void *) = nullptr;
    NcclResult (*recv)(void *, size_t, int, int, NcclComm, void *) = nullptr;
    std::string whyNot; // empty when loaded
};

const NcclApi &nccl() {
    static const NcclApi api = [] {
        NcclApi a;
        const std::string &path = gpuSettings.ncclLibrary;
        const std::string name = path.empty() ? "libnccl.so.2" : path;
        auto lib = loadFirstLibrary({name});
        if (!lib) {
            a.whyNot = "no NCCL: cannot load " + name + " (" + lib.error().message +
                       "; ZBDDC_NCCL may name libnccl.so.2)";
            return a;
        }
        auto load = [&](auto &fn, const char *symbol) { bindFunction(*lib, fn, symbol, a.whyNot); };
        load(a.getVersion, "ncclGetVersion");
        load(a.getErrorString, "ncclGetErrorString");
        load(a.commInitAll, "ncclCommInitAll");
        load(a.commDestroy, "ncclCommDestroy");
        load(a.groupStart, "ncclGroupStart");
        load(a.groupEnd, "ncclGroupEnd");
        load(a.send, "ncclSend");
        load(a.recv, "ncclRecv");
        return a;
    }();
    return api;
}

Status check(NcclResult r, const char *call) {
    if (r == 0)
        return Ok{};
    const char *text = nccl().getErrorString ? nccl().getErrorString(r) : nullptr;
    return error(std::string(call) + " failed: " + (text ? text : "error " + std::to_string(r)));
}

} // namespace

Status ncclAvailable() {
    if (!nccl().whyNot.empty())
        return error(nccl().whyNot);
    return Ok{};
}

std::string ncclVersion() {
    int code = 0;
    if (!ncclAvailable() || nccl().getVersion(&code) != 0)
        return "";
    // NCCL 2.9 and later: major * 10000 + minor * 100 + patch.
    return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." +
           std::to_string(code % 100);
}

Result<std::unique_ptr<NcclComms>> NcclComms::open(std::span<const int> ordinals) {
    if (Status s = ncclAvailable(); !s)
        return s.error();
    setenv("NCCL_NVLS_ENABLE", "0", 1); // never NVLink multicast (no cuMulticastCreate)
    std::unique_ptr<NcclComms> c(new NcclComms);
    c->comms_.assign(ordinals.size(), nullptr);
    if (Status s = check(nccl().commInitAll(c->comms_.data(), static_cast<int>(ordinals.size()),
                                            ordinals.data()),
                         "ncclCommInitAll");
        !s) {
        c->comms_.clear();
        return s.error();
    }
    return c;
}

Result<NcclComms *> NcclComms::shared(std::span<const int> ordinals) {
    static std::mutex mutex;
    static auto *comms = new std::map<std::vector<int>, std::unique_ptr<NcclComms>>;
    std::lock_guard lock(mutex);
    const std::vector<int> key(ordinals.begin(), ordinals.end());
    auto it = comms->find(key);
    if (it == comms->end()) {
        auto opened = open(ordinals);
        if (!opened)
            return opened.error();
        it = comms->emplace(key, std::move(*opened)).first;
    }
    return it->second.get();
}

NcclComms::~NcclComms() {
    for (void *comm : comms_)
        if (comm)
            nccl().commDestroy(comm);
}

Status NcclComms::transfer(std::span<const PeerTransfer> transfers) {
    const NcclApi &api = nccl();
    if (Status s = check(api.groupStart(), "ncclGroupStart"); !s)
        return s;
    Status status = Ok{};
    for (const PeerTransfer &t : transfers) {
        if (status)
            status =
                check(api.send(reinterpret_cast<const void *>(t.src), t.bytes, kNcclUint8, t.toRank,
                               comms_[static_cast<size_t>(t.fromRank)], t.fromStream),
                      "ncclSend");
        if (status)
            status = check(api.recv(reinterpret_cast<void *>(t.dst), t.bytes, kNcclUint8,
                                    t.fromRank, comms_[static_cast<size_t>(t.toRank)], t.toStream),
                           "ncclRecv");
    }
    // The group is ended even after a failed call, so NCCL's group state stays balanced.
    const Status ended = check(api.groupEnd(), "ncclGroupEnd");
    return status ? ended : status;
}

} // namespace zbddc::cuda
