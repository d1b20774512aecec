// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") so that one build runs (on
// the CPU) where no GPU driver is installed. Every call is checked; a failure becomes a Diagnostic
// naming the call and the driver's own error name and text.
#pragma once

#include "ir/result.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace zbddc::cuda {

// Ok when a usable GPU is present; otherwise why not (no libcuda, driver too old, no device...).
Status cudaAvailable();

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    int ccMajor = 0, ccMinor = 0;     // compute capability: sm_<major><minor>
    int multiprocessors = 0;
    int maxThreadsPerBlock = 0;
    int sharedMemPerBlock = 0;        // bytes, without opting in to more
    int l2CacheBytes = 0;
    size_t totalMemory = 0;           // bytes
    bool cooperativeLaunch = false;   // cuLaunchCooperativeKernel supported
    int driverVersion = 0;            // e.g. 13000
    std::string arch() const { return "sm_" + std::to_string(ccMajor) + std::to_string(ccMinor); }
    std::string label() const { return name + " (" + arch() + ")"; } // as reports print it
};

Result<int> deviceCount();
Result<DeviceInfo> deviceInfo(int ordinal);

using DevicePtr = unsigned long long; // CUdeviceptr
using StreamHandle = void *;           // CUstream
using FunctionHandle = void *;         // CUfunction

// The device pool's size classes: powers of two from 256 bytes to 1 MiB, then eight per octave,
// so a large table wastes at most an eighth. (Powers of two throughout wasted up to half: munin's
// junction tree, 51 GB of tables sized to fit an 80 GB H100, asked the driver for more than 80.)
struct PoolBucket {
    size_t index;    // the free list
    size_t capacity; // bytes allocated, >= the bytes asked for
};
PoolBucket poolBucket(size_t bytes);

// A device allocation from the per-device pool; returned to the pool (not freed) on destruction so
// repeated model loads and batch buffers do not pay cuMemAlloc each time.
class DeviceBuffer {
  public:
    DeviceBuffer() = default;
    DeviceBuffer(DeviceBuffer &&o) noexcept { *this = std::move(o); }
    DeviceBuffer &operator=(DeviceBuffer &&o) noexcept;
    DeviceBuffer(const DeviceBuffer &) = delete;
    DeviceBuffer &operator=(const DeviceBuffer &) = delete;
    ~DeviceBuffer();

    DevicePtr ptr() const { return ptr_; }
    size_t bytes() const { return bytes_; }

  private:
    friend class Device;
    DevicePtr ptr_ = 0;
    size_t bytes_ = 0;    // what the caller asked for
    size_t capacity_ = 0; // the pool bucket's size
    int ordinal_ = -1;
};

// Page-locked host memory (cuMemHostAlloc): copies from and to it run asynchronously, so they
// can overlap kernels on another stream.
class PinnedBuffer {
  public:
    PinnedBuffer() = default;
    PinnedBuffer(PinnedBuffer &&o) noexcept { *this = std::move(o); }
    PinnedBuffer &operator=(PinnedBuffer &&o) noexcept;
    PinnedBuffer(const PinnedBuffer &) = delete;
    PinnedBuffer &operator=(const PinnedBuffer &) = delete;
    ~PinnedBuffer();

    unsigned char *data() const { return static_cast<unsigned char *>(ptr_); }
    size_t bytes() const { return bytes_; }

  private:
    friend class Device;
    void *ptr_ = nullptr;
    size_t bytes_ = 0;
};

// cuMemGetInfo, plus what the pool holds idle (free to this process, not to the driver).
struct MemoryInfo {
    size_t freeBytes = 0, totalBytes = 0, pooledBytes = 0;
};

// What a process has asked of one device so far, counted on the host: a warm pass should
// allocate nothing, upload only its inputs and wait once (tests compare two passes' counts).
struct DeviceCounts {
    uint64_t allocations = 0; // allocate() and allocatePinned(), pool hits included
    uint64_t uploads = 0, uploadedBytes = 0; // host-to-device copies
    uint64_t waits = 0;                      // the host waiting on a stream or an event
};

using EventHandle = void *; // CUevent
using GraphHandle = void *; // CUgraphExec

class Module {
  public:
    Module() = default;
    Module(Module &&o) noexcept { *this = std::move(o); }
    Module &operator=(Module &&o) noexcept;
    Module(const Module &) = delete;
    Module &operator=(const Module &) = delete;
    ~Module();

    Result<FunctionHandle> function(const std::string &name) const;

  private:
    friend class Device;
    void *module_ = nullptr; // CUmodule
    int ordinal_ = -1;
};

struct LaunchDims {
    unsigned grid = 1, block = 1, sharedBytes = 0;
    unsigned gridY = 1; // a second grid dimension (fused launches: one op per blockIdx.y)
};

// One GPU: its primary context (made current on the calling thread by every call), memory pool,
// module loading, streams, launches and events. Devices live for the whole process.
class Device {
  public:
    static Result<Device *> open(int ordinal = 0);

    const DeviceInfo &info() const { return info_; }

    Result<DeviceBuffer> allocate(size_t bytes);
    Result<PinnedBuffer> allocatePinned(size_t bytes);
    // With no stream: synchronous. With a stream: enqueued only (asynchronous from pinned memory).
    Status upload(DevicePtr dst, const void *src, size_t bytes, StreamHandle stream = nullptr);
    Status download(void *dst, DevicePtr src, size_t bytes, StreamHandle stream = nullptr);
    // The same two enqueued on `stream` (the legacy default one where null) without waiting, from
    // or into pinned memory that must stay as it is until a later wait: a pass's copies in and
    // out then cost the host one wait, after its last copy.
    Status enqueueUpload(DevicePtr dst, const void *src, size_t bytes,
                         StreamHandle stream = nullptr);
    Status enqueueDownload(void *dst, DevicePtr src, size_t bytes, StreamHandle stream = nullptr);
    Status copy(DevicePtr dst, DevicePtr src, size_t bytes, StreamHandle stream = nullptr);
    // From another GPU's memory into this one's (cuMemcpyPeerAsync, enqueued on this device's
    // `stream`): how tables cross GPUs where NCCL is not there.
    Status copyFromPeer(const Device &source, DevicePtr dst, DevicePtr src, size_t bytes,
                        StreamHandle stream = nullptr);
    Status fill(DevicePtr dst, uint8_t byte, size_t bytes, StreamHandle stream = nullptr);
    // Kernels on this GPU may then read `peer`'s memory (cuCtxEnablePeerAccess; a no-op for this
    // GPU itself); fails where the two cannot (cuDeviceCanAccessPeer).
    Status enablePeerAccess(const Device &peer);

    // PTX text or a cubin image.
    Result<Module> loadModule(const std::string &image);
    // How many blocks of `block` threads of this kernel can be resident at once on the whole GPU
    // (the largest grid a cooperative launch accepts).
    Result<unsigned> maxResidentBlocks(FunctionHandle f, unsigned block, unsigned sharedBytes);

    Status launch(FunctionHandle f, LaunchDims dims, void **args, StreamHandle stream = nullptr);
    Status launchCooperative(FunctionHandle f, LaunchDims dims, void **args,
                             StreamHandle stream = nullptr);

    Result<MemoryInfo> memoryInfo();
    // Runs `work` on a driver thread once the work enqueued on `s` before it has finished; the
    // work enqueued on `s` after it waits for it (cuLaunchHostFunc). `work` must not call CUDA.
    Status enqueueHostWork(StreamHandle s, std::function<void()> work);

    // Events order work across streams (copy engines vs kernels) without blocking the host.
    Result<EventHandle> createEvent(bool timing = true);
    Status record(EventHandle event, StreamHandle s);
    Status waitEvent(StreamHandle s, EventHandle event); // later work on s waits for event
    Result<float> elapsed(EventHandle start, EventHandle stop); // ms; waits for stop
    void destroyEvent(EventHandle event);
    // Whether the work enqueued before `event` has finished (cuEventQuery: never blocks), and
    // waiting for it alone (cuEventSynchronize: not the stream's later work, nor the context's).
    Result<bool> reached(EventHandle event);
    Status waitFor(EventHandle event);

    // CUDA graphs: between beginCapture and endCapture the work enqueued on `s`, and on streams
    // forked from it by waiting on an event recorded in it (joined back the same way before the
    // end), is recorded instead of run; endCapture returns it instantiated, to be launched whole,
    // any number of times, for one launch's host cost.
    Status beginCapture(StreamHandle s);
    Result<GraphHandle> endCapture(StreamHandle s);
    Status launchGraph(GraphHandle g, StreamHandle s);
    void destroyGraph(GraphHandle g);

    Result<StreamHandle> createStream();
    Status destroyStream(StreamHandle s);
    Status synchronize(StreamHandle s = nullptr);
    Result<bool> idle(StreamHandle s); // all work on `s` has finished (cuStreamQuery: never blocks)

    // Milliseconds of device time taken by `body` (enqueued on `stream`), measured with events.
    template <class F> Result<float> time(StreamHandle stream, F &&body);

    size_t pooledBytes() const;
    DeviceCounts counts() const;

  private:
    friend class DeviceBuffer;
    friend class Module;
    Status makeCurrent() const;
    void release(DevicePtr ptr, size_t capacity);

    DeviceInfo info_;
    int device_ = 0;      // CUdevice
    void *context_ = nullptr;
    std::vector<std::vector<DevicePtr>> freeLists_; // by poolBucket's index
    size_t pooledBytes_ = 0;                        // their capacities together
    std::atomic<uint64_t> allocations_{0}, uploads_{0}, uploadedBytes_{0}, waits_{0};
};

// The one way an executor gets its GPU: device `ordinal`, opened once per process, where a GPU
// is usable; otherwise cudaAvailable's reason (no libcuda, driver too old, no device...).
Result<Device *> openDevice(int ordinal = 0);

template <class F> Result<float> Device::time(StreamHandle stream, F &&body) {
    auto start = createEvent();
    if (!start)
        return start.error();
    auto stop = createEvent();
    if (!stop) {
        destroyEvent(*start);
        return stop.error();
    }
    Status st = record(*start, stream);
    if (st)
        st = body();
    if (st)
        st = record(*stop, stream);
    Result<float> ms = st ? elapsed(*start, *stop) : Result<float>(st.error());
    destroyEvent(*start);
    destroyEvent(*stop);
    return ms;
}

// A new device buffer holding `values` (room for one at least, so its pointer is never null).
template <class V> Result<DeviceBuffer> uploadArray(Device &device, const std::vector<V> &values) {
    auto buf = device.allocate(std::max<size_t>(values.size(), 1) * sizeof(V));
    if (!buf)
        return buf.error();
    if (!values.empty())
        if (Status st = device.upload(buf->ptr(), values.data(), values.size() * sizeof(V)); !st)
            return st.error();
    return buf;
}

} // namespace zbddc::cuda
