#include "backends/cuda/driver.h"
#include "ir/loaded_library.h"

#include <cuda.h> // types and prototypes only: nothing is linked, every entry point comes from dlsym

#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

namespace zbddc::cuda {

namespace {

#define ZBDDC_STR2(x) #x
#define ZBDDC_STR(x) ZBDDC_STR2(x)
// cuda.h maps API names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2); expanding the macro in
// ZBDDC_STR yields exactly the symbol the header's prototype describes.
#define ZBDDC_CU_FUNCTIONS(X)                                                                      \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount)      \
    X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)                  \
    X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuMemAlloc) X(cuMemFree) X(cuMemcpyHtoDAsync) \
    X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD8Async) X(cuModuleLoadDataEx)              \
    X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel) X(cuLaunchCooperativeKernel)        \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuStreamCreate) X(cuStreamDestroy)            \
    X(cuStreamSynchronize) X(cuEventCreate) X(cuEventRecord) X(cuEventElapsedTime)                 \
    X(cuEventDestroy) X(cuEventSynchronize) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemGetInfo)     \
    X(cuLaunchHostFunc) X(cuStreamWaitEvent) X(cuStreamBeginCapture)                               \
    X(cuStreamEndCapture) X(cuGraphInstantiate) X(cuGraphLaunch) X(cuGraphExecDestroy)             \
    X(cuGraphDestroy) X(cuMemcpyPeerAsync) X(cuEventQuery) X(cuStreamQuery)                        \
    X(cuDeviceCanAccessPeer) X(cuCtxEnablePeerAccess)

struct Api {
    ZBDDC_CU_FUNCTIONS(ZBDDC_FUNCTION_POINTER)
};

struct Loaded {
    Api api;
    std::string whyNot; // empty when the driver is usable
};

const Loaded &loaded() {
    static const Loaded l = [] {
        Loaded r;
        auto lib = loadFirstLibrary({"libcuda.so.1"});
        if (!lib) {
            r.whyNot = "no CUDA driver: cannot load libcuda.so.1 (" + lib.error().message + ")";
            return r;
        }
#define ZBDDC_LOAD(name)                                                                           \
    if (!bindFunction(*lib, r.api.name, ZBDDC_STR(name), r.whyNot)) {                              \
        r.whyNot = "CUDA driver too old: " + r.whyNot;                                             \
        return r;                                                                                  \
    }
        ZBDDC_CU_FUNCTIONS(ZBDDC_LOAD)
#undef ZBDDC_LOAD
        if (CUresult e = r.api.cuInit(0); e != CUDA_SUCCESS) {
            const char *name = nullptr;
            r.api.cuGetErrorName(e, &name);
            r.whyNot = std::string("CUDA driver present but cuInit failed: ") +
                       (name ? name : "unknown error");
        }
        return r;
    }();
    return l;
}

const Api &api() { return loaded().api; }

// "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
Status check(CUresult e, const char *call) {
    if (e == CUDA_SUCCESS)
        return Ok{};
    const char *name = nullptr, *text = nullptr;
    api().cuGetErrorName(e, &name);
    api().cuGetErrorString(e, &text);
    return error(std::string(call) + " failed: " + (name ? name : "unknown error") + " (" +
                 (text ? text : "no description") + ")");
}

#define ZBDDC_CHECK(call)                                                                          \
    do {                                                                                           \
        if (Status st_ = check(api().call, #call); !st_)                                           \
            return st_.error();                                                                    \
    } while (0)

std::mutex &deviceMutex() {
    static std::mutex m;
    return m;
}

} // namespace

PoolBucket poolBucket(size_t bytes) {
    bytes = std::max<size_t>(bytes, 256);
    const size_t k = static_cast<size_t>(std::bit_width(bytes - 1)); // 2^(k-1) < bytes <= 2^k
    if (k <= 20)
        return {k, size_t{1} << k};
    const size_t step = size_t{1} << (k - 4), steps = (bytes + step - 1) / step; // 9 .. 16
    return {21 + (k - 21) * 8 + (steps - 9), steps * step};
}

Status cudaAvailable() {
    if (!loaded().whyNot.empty())
        return error(loaded().whyNot);
    int n = 0;
    ZBDDC_CHECK(cuDeviceGetCount(&n));
    if (n == 0)
        return error("CUDA driver loaded but no GPU is visible");
    return Ok{};
}

Result<int> deviceCount() {
    if (Status st = cudaAvailable(); !st)
        return st.error();
    int n = 0;
    ZBDDC_CHECK(cuDeviceGetCount(&n));
    return n;
}

Result<DeviceInfo> deviceInfo(int ordinal) {
    auto n = deviceCount();
    if (!n)
        return n.error();
    if (ordinal < 0 || ordinal >= *n)
        return error("no GPU with ordinal " + std::to_string(ordinal) + " (" + std::to_string(*n) +
                     " visible)");
    CUdevice dev;
    ZBDDC_CHECK(cuDeviceGet(&dev, ordinal));
    DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    ZBDDC_CHECK(cuDeviceGetName(name, sizeof name, dev));
    info.name = name;
    auto attr = [&](CUdevice_attribute a, int &out) {
        return check(api().cuDeviceGetAttribute(&out, a, dev), "cuDeviceGetAttribute");
    };
    int coop = 0;
    for (auto [a, out] :
         {std::pair{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.ccMajor},
          {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.ccMinor},
          {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessors},
          {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.maxThreadsPerBlock},
          {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &info.sharedMemPerBlock},
          {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info.l2CacheBytes},
          {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, &coop}})
        if (Status st = attr(a, *out); !st)
            return st.error();
    info.cooperativeLaunch = coop != 0;
    ZBDDC_CHECK(cuDeviceTotalMem(&info.totalMemory, dev));
    ZBDDC_CHECK(cuDriverGetVersion(&info.driverVersion));
    return info;
}

namespace {
std::vector<std::unique_ptr<Device>> &openedDevices() { // by ordinal; guarded by deviceMutex
    static std::vector<std::unique_ptr<Device>> devices;
    return devices;
}
} // namespace

// A device opened before is found without asking the driver: every DeviceBuffer's release opens
// its device, and deviceInfo's dozen driver calls, a hundred times a solve of SPOT5 404, were
// 1,200 of its 1,800 driver calls (bench/gpu_host_steps on bench/null_cuda).
Result<Device *> Device::open(int ordinal) {
    {
        std::lock_guard lock(deviceMutex());
        const std::vector<std::unique_ptr<Device>> &opened = openedDevices();
        if (ordinal >= 0 && static_cast<size_t>(ordinal) < opened.size() && opened[ordinal])
            return opened[ordinal].get();
    }
    auto info = deviceInfo(ordinal);
    if (!info)
        return info.error();
    std::lock_guard lock(deviceMutex());
    std::vector<std::unique_ptr<Device>> &devices = openedDevices();
    if (devices.size() <= static_cast<size_t>(ordinal))
        devices.resize(ordinal + 1);
    if (!devices[ordinal]) {
        auto d = std::make_unique<Device>();
        d->info_ = *info;
        ZBDDC_CHECK(cuDeviceGet(&d->device_, ordinal));
        CUcontext ctx = nullptr;
        ZBDDC_CHECK(cuDevicePrimaryCtxRetain(&ctx, d->device_));
        d->context_ = ctx;
        devices[ordinal] = std::move(d);
    }
    return devices[ordinal].get();
}

Result<Device *> openDevice(int ordinal) {
    if (Status usable = cudaAvailable(); !usable)
        return usable.error();
    return Device::open(ordinal);
}

Status Device::makeCurrent() const {
    ZBDDC_CHECK(cuCtxSetCurrent(static_cast<CUcontext>(context_)));
    return Ok{};
}

Result<DeviceBuffer> Device::allocate(size_t bytes) {
    if (Status st = makeCurrent(); !st)
        return st.error();
    allocations_.fetch_add(1, std::memory_order_relaxed);
    const auto [bucket, capacity] = poolBucket(bytes);
    DeviceBuffer b;
    b.bytes_ = bytes;
    b.capacity_ = capacity;
    b.ordinal_ = info_.ordinal;
    {
        std::lock_guard lock(deviceMutex());
        if (freeLists_.size() > bucket && !freeLists_[bucket].empty()) {
            b.ptr_ = freeLists_[bucket].back();
            freeLists_[bucket].pop_back();
            pooledBytes_ -= capacity;
            return b;
        }
    }
    CUdeviceptr p = 0;
    CUresult e = api().cuMemAlloc(&p, b.capacity_);
    if (e == CUDA_ERROR_OUT_OF_MEMORY) {
        // Give the pool's idle blocks back to the driver and try once more.
        std::lock_guard lock(deviceMutex());
        for (auto &list : freeLists_) {
            for (DevicePtr q : list)
                api().cuMemFree(q);
            list.clear();
        }
        pooledBytes_ = 0;
        e = api().cuMemAlloc(&p, b.capacity_);
    }
    if (Status st = check(e, "cuMemAlloc"); !st)
        return error(st.error().message + " allocating " + std::to_string(bytes) + " bytes on " +
                     info_.name);
    b.ptr_ = p;
    return b;
}

void Device::release(DevicePtr ptr, size_t capacity) {
    std::lock_guard lock(deviceMutex());
    const size_t bucket = poolBucket(capacity).index;
    if (freeLists_.size() <= bucket)
        freeLists_.resize(bucket + 1);
    freeLists_[bucket].push_back(ptr);
    pooledBytes_ += capacity;
}

size_t Device::pooledBytes() const {
    std::lock_guard lock(deviceMutex());
    return pooledBytes_;
}

DeviceCounts Device::counts() const {
    constexpr auto r = std::memory_order_relaxed;
    return {allocations_.load(r), uploads_.load(r), uploadedBytes_.load(r), waits_.load(r)};
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&o) noexcept {
    if (this != &o) {
        this->~DeviceBuffer();
        ptr_ = std::exchange(o.ptr_, 0);
        bytes_ = std::exchange(o.bytes_, 0);
        capacity_ = std::exchange(o.capacity_, 0);
        ordinal_ = std::exchange(o.ordinal_, -1);
    }
    return *this;
}

DeviceBuffer::~DeviceBuffer() {
    if (ptr_)
        if (auto d = Device::open(ordinal_))
            (*d)->release(ptr_, capacity_);
    ptr_ = 0;
}

Status Device::enqueueUpload(DevicePtr dst, const void *src, size_t bytes, StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuMemcpyHtoDAsync(dst, src, bytes, static_cast<CUstream>(s)));
    uploads_.fetch_add(1, std::memory_order_relaxed);
    uploadedBytes_.fetch_add(bytes, std::memory_order_relaxed);
    return Ok{};
}

Status Device::enqueueDownload(void *dst, DevicePtr src, size_t bytes, StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuMemcpyDtoHAsync(dst, src, bytes, static_cast<CUstream>(s)));
    return Ok{};
}

Status Device::upload(DevicePtr dst, const void *src, size_t bytes, StreamHandle s) {
    if (Status st = enqueueUpload(dst, src, bytes, s); !st)
        return st;
    return s ? Status(Ok{}) : synchronize(s);
}

Status Device::download(void *dst, DevicePtr src, size_t bytes, StreamHandle s) {
    if (Status st = enqueueDownload(dst, src, bytes, s); !st)
        return st;
    return s ? Status(Ok{}) : synchronize(s);
}

Status Device::copy(DevicePtr dst, DevicePtr src, size_t bytes, StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuMemcpyDtoDAsync(dst, src, bytes, static_cast<CUstream>(s)));
    return Ok{};
}

Status Device::copyFromPeer(const Device &source, DevicePtr dst, DevicePtr src, size_t bytes,
                            StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuMemcpyPeerAsync(dst, static_cast<CUcontext>(context_), src,
                                  static_cast<CUcontext>(source.context_), bytes,
                                  static_cast<CUstream>(s)));
    return s ? Status(Ok{}) : synchronize(s);
}

Status Device::enablePeerAccess(const Device &peer) {
    if (&peer == this)
        return Ok{};
    int can = 0;
    ZBDDC_CHECK(cuDeviceCanAccessPeer(&can, device_, peer.device_));
    if (!can)
        return error("GPU " + std::to_string(info_.ordinal) + " cannot read the memory of GPU " +
                     std::to_string(peer.info_.ordinal) + " (no peer access between them)");
    if (Status st = makeCurrent(); !st)
        return st;
    const CUresult e = api().cuCtxEnablePeerAccess(static_cast<CUcontext>(peer.context_), 0);
    if (e == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        return Ok{};
    return check(e, "cuCtxEnablePeerAccess");
}

Status Device::fill(DevicePtr dst, uint8_t byte, size_t bytes, StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuMemsetD8Async(dst, byte, bytes, static_cast<CUstream>(s)));
    return Ok{};
}

Result<PinnedBuffer> Device::allocatePinned(size_t bytes) {
    if (Status st = makeCurrent(); !st)
        return st.error();
    allocations_.fetch_add(1, std::memory_order_relaxed);
    void *p = nullptr;
    if (Status st = check(api().cuMemHostAlloc(&p, std::max<size_t>(bytes, 1), 0), "cuMemHostAlloc");
        !st)
        return error(st.error().message + " allocating " + std::to_string(bytes) +
                     " bytes of pinned host memory");
    PinnedBuffer b;
    b.ptr_ = p;
    b.bytes_ = bytes;
    return b;
}

PinnedBuffer &PinnedBuffer::operator=(PinnedBuffer &&o) noexcept {
    if (this != &o) {
        this->~PinnedBuffer();
        ptr_ = std::exchange(o.ptr_, nullptr);
        bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
}

PinnedBuffer::~PinnedBuffer() {
    if (ptr_)
        api().cuMemFreeHost(ptr_);
    ptr_ = nullptr;
}

Result<Module> Device::loadModule(const std::string &image) {
    if (Status st = makeCurrent(); !st)
        return st.error();
    // The JIT's log explains a PTX the driver rejects (e.g. PTX newer than the driver).
    char log[4096] = {};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, reinterpret_cast<void *>(sizeof log)};
    CUmodule m = nullptr;
    if (Status st = check(api().cuModuleLoadDataEx(&m, image.c_str(), 2, opts, vals),
                          "cuModuleLoadDataEx");
        !st)
        return error(st.error().message + (log[0] ? std::string(": ") + log : ""));
    Module mod;
    mod.module_ = m;
    mod.ordinal_ = info_.ordinal;
    return mod;
}

Module &Module::operator=(Module &&o) noexcept {
    if (this != &o) {
        this->~Module();
        module_ = std::exchange(o.module_, nullptr);
        ordinal_ = std::exchange(o.ordinal_, -1);
    }
    return *this;
}

Module::~Module() {
    if (module_)
        api().cuModuleUnload(static_cast<CUmodule>(module_));
    module_ = nullptr;
}

Result<FunctionHandle> Module::function(const std::string &name) const {
    CUfunction f = nullptr;
    if (Status st = check(api().cuModuleGetFunction(&f, static_cast<CUmodule>(module_),
                                                    name.c_str()),
                          "cuModuleGetFunction");
        !st)
        return error(st.error().message + " for kernel " + name);
    return static_cast<FunctionHandle>(f);
}

Result<unsigned> Device::maxResidentBlocks(FunctionHandle f, unsigned block, unsigned shared) {
    int perSm = 0;
    ZBDDC_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, static_cast<CUfunction>(f),
                                                            static_cast<int>(block), shared));
    return static_cast<unsigned>(perSm) * static_cast<unsigned>(info_.multiprocessors);
}

Status Device::launch(FunctionHandle f, LaunchDims d, void **args, StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuLaunchKernel(static_cast<CUfunction>(f), d.grid, d.gridY, 1, d.block, 1, 1,
                               d.sharedBytes, static_cast<CUstream>(s), args, nullptr));
    return Ok{};
}

Status Device::launchCooperative(FunctionHandle f, LaunchDims d, void **args, StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuLaunchCooperativeKernel(static_cast<CUfunction>(f), d.grid, d.gridY, 1, d.block,
                                          1, 1, d.sharedBytes, static_cast<CUstream>(s), args));
    return Ok{};
}

Result<StreamHandle> Device::createStream() {
    if (Status st = makeCurrent(); !st)
        return st.error();
    CUstream s = nullptr;
    ZBDDC_CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    return static_cast<StreamHandle>(s);
}

Status Device::destroyStream(StreamHandle s) {
    ZBDDC_CHECK(cuStreamDestroy(static_cast<CUstream>(s)));
    return Ok{};
}

Status Device::synchronize(StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    waits_.fetch_add(1, std::memory_order_relaxed);
    // Kernel faults surface here; name them as such so a bad kernel is not blamed on the copy.
    return check(api().cuStreamSynchronize(static_cast<CUstream>(s)),
                 "cuStreamSynchronize (kernel or copy on this stream)");
}

Result<void *> Device::createEvent(bool timing) {
    if (Status st = makeCurrent(); !st)
        return st.error();
    CUevent e = nullptr;
    ZBDDC_CHECK(cuEventCreate(&e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING));
    return static_cast<void *>(e);
}

Status Device::waitEvent(StreamHandle s, void *event) {
    ZBDDC_CHECK(cuStreamWaitEvent(static_cast<CUstream>(s), static_cast<CUevent>(event), 0));
    return Ok{};
}

Result<MemoryInfo> Device::memoryInfo() {
    if (Status st = makeCurrent(); !st)
        return st.error();
    MemoryInfo m;
    ZBDDC_CHECK(cuMemGetInfo(&m.freeBytes, &m.totalBytes));
    m.pooledBytes = pooledBytes();
    return m;
}

namespace {
void runHostWork(void *work) {
    std::unique_ptr<std::function<void()>> owned(static_cast<std::function<void()> *>(work));
    (*owned)();
}
} // namespace

Status Device::enqueueHostWork(StreamHandle s, std::function<void()> work) {
    if (Status st = makeCurrent(); !st)
        return st;
    auto owned = std::make_unique<std::function<void()>>(std::move(work));
    ZBDDC_CHECK(cuLaunchHostFunc(static_cast<CUstream>(s), runHostWork, owned.get()));
    owned.release(); // runHostWork deletes it
    return Ok{};
}

Status Device::record(void *event, StreamHandle s) {
    ZBDDC_CHECK(cuEventRecord(static_cast<CUevent>(event), static_cast<CUstream>(s)));
    return Ok{};
}

Result<float> Device::elapsed(void *start, void *stop) {
    ZBDDC_CHECK(cuEventSynchronize(static_cast<CUevent>(stop)));
    float ms = 0;
    ZBDDC_CHECK(cuEventElapsedTime(&ms, static_cast<CUevent>(start), static_cast<CUevent>(stop)));
    return ms;
}

void Device::destroyEvent(void *event) { api().cuEventDestroy(static_cast<CUevent>(event)); }

namespace {
// A query's answer: done (CUDA_SUCCESS), not yet (CUDA_ERROR_NOT_READY), or the call's error.
Result<bool> finished(CUresult e, const char *call) {
    if (e == CUDA_ERROR_NOT_READY)
        return false;
    if (Status st = check(e, call); !st)
        return st.error();
    return true;
}
} // namespace

Result<bool> Device::reached(EventHandle event) {
    if (Status st = makeCurrent(); !st) // a handle may be polled from another thread
        return st.error();
    return finished(api().cuEventQuery(static_cast<CUevent>(event)), "cuEventQuery");
}

Status Device::waitFor(EventHandle event) {
    if (Status st = makeCurrent(); !st)
        return st;
    waits_.fetch_add(1, std::memory_order_relaxed);
    return check(api().cuEventSynchronize(static_cast<CUevent>(event)),
                 "cuEventSynchronize (kernel or copy before this event)");
}

Result<bool> Device::idle(StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st.error();
    return finished(api().cuStreamQuery(static_cast<CUstream>(s)), "cuStreamQuery");
}

Status Device::beginCapture(StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    // Relaxed: other threads may allocate meanwhile (the pool), which global mode forbids.
    ZBDDC_CHECK(cuStreamBeginCapture(static_cast<CUstream>(s), CU_STREAM_CAPTURE_MODE_RELAXED));
    return Ok{};
}

Result<GraphHandle> Device::endCapture(StreamHandle s) {
    CUgraph graph = nullptr;
    ZBDDC_CHECK(cuStreamEndCapture(static_cast<CUstream>(s), &graph));
    CUgraphExec exec = nullptr;
    const CUresult e = api().cuGraphInstantiate(&exec, graph, 0);
    api().cuGraphDestroy(graph); // the executable graph keeps what it needs
    if (Status st = check(e, "cuGraphInstantiate"); !st)
        return st.error();
    return static_cast<GraphHandle>(exec);
}

Status Device::launchGraph(GraphHandle g, StreamHandle s) {
    if (Status st = makeCurrent(); !st)
        return st;
    ZBDDC_CHECK(cuGraphLaunch(static_cast<CUgraphExec>(g), static_cast<CUstream>(s)));
    return Ok{};
}

void Device::destroyGraph(GraphHandle g) { api().cuGraphExecDestroy(static_cast<CUgraphExec>(g)); }

} // namespace zbddc::cuda
