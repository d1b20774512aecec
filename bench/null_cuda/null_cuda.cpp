// A CUDA driver with no GPU behind it, loaded in place of libcuda.so.1
// (LD_LIBRARY_PATH=build/bench/null_cuda): kernels and events do nothing, device memory is host
// memory, copies are memcpy. A GPU run on it costs only its host work — planning, packing,
// launches' argument lists, the driver calls themselves at no cost — so that the host's share of a
// run can be timed and profiled where there is no GPU (bench/gpu_host_steps, perf). Its results
// are meaningless; nothing checks them. With NULL_CUDA_COUNTS set, each entry point's calls are
// counted and printed at exit (a run's driver calls, to compare two builds). NULL_CUDA_TRACE=FILE
// writes one line per launch (kernel, grid, block, shared bytes, stream), copy, allocation (device
// or pinned), event
// record and stream wait: two builds' sequences, diffed.
#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace {
struct Counts {
    static constexpr int kMax = 64;
    const char *names[kMax] = {};
    unsigned long long calls[kMax] = {};
    bool on = std::getenv("NULL_CUDA_COUNTS") != nullptr;
    ~Counts() {
        for (int i = 0; i < kMax && on; ++i)
            if (names[i])
                std::fprintf(stderr, "null driver: %-40s %llu\n", names[i], calls[i]);
    }
} counts;
std::mutex countsMutex;
void count(const char *name) {
    if (!counts.on)
        return;
    std::lock_guard lock(countsMutex);
    for (int i = 0; i < Counts::kMax; ++i)
        if (counts.names[i] == name || !counts.names[i]) {
            counts.names[i] = name;
            ++counts.calls[i];
            return;
        }
}
#define COUNTED count(__func__)
std::FILE *traceFile() {
    static std::FILE *f = [] {
        const char *path = std::getenv("NULL_CUDA_TRACE");
        return path ? std::fopen(path, "w") : nullptr;
    }();
    return f;
}
std::mutex traceMutex;
std::vector<std::pair<void *, std::string>> functionNames;
template <class... Args> void trace(const char *format, Args... args) {
    if (!traceFile())
        return;
    std::lock_guard lock(traceMutex);
    std::fprintf(traceFile(), format, args...);
}
const char *functionName(void *f) {
    std::lock_guard lock(traceMutex);
    for (auto &[handle, name] : functionNames)
        if (handle == f)
            return name.c_str();
    return "?";
}
std::atomic<uintptr_t> nextHandle{1}; // modules load on several threads
void *handle() {
    return reinterpret_cast<void *>(0x1000 * nextHandle++);
}
} // namespace

extern "C" {

CUresult cuInit(unsigned) {
    COUNTED;
    return CUDA_SUCCESS;
}
// NVRTC asks the driver for its private tables where one is loaded; there are none here.
CUresult cuGetExportTable(const void **table, const CUuuid *) {
    COUNTED;
    *table = nullptr;
    return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuDriverGetVersion(int *v) {
    COUNTED;
    *v = 13000;
    return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult, const char **s) {
    COUNTED;
    *s = "CUDA_ERROR_NULL_DRIVER";
    return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char **s) {
    COUNTED;
    *s = "not on the null driver";
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int *n) {
    COUNTED;
    *n = 1;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    COUNTED;
    *d = ordinal;
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice) {
    COUNTED;
    std::strncpy(name, "null driver", static_cast<size_t>(len));
    return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice) {
    COUNTED; // an H100's
    switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        *v = 9;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        *v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        *v = 132;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *v = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        *v = 49152;
        break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
        *v = 50 << 20;
        break;
    default:
        *v = 0;
    }
    return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice) {
    COUNTED;
    *bytes = size_t{4} << 30;
    return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice) {
    COUNTED;
    *c = static_cast<CUcontext>(handle());
    return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuCtxEnablePeerAccess(CUcontext, unsigned) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuDeviceCanAccessPeer(int *can, CUdevice, CUdevice) {
    COUNTED;
    *can = 1;
    return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) {
    COUNTED;
    trace("alloc %zu bytes\n", bytes);
    void *m = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *p = reinterpret_cast<CUdeviceptr>(m);
    return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) {
    COUNTED;
    std::free(reinterpret_cast<void *>(p));
    return CUDA_SUCCESS;
}
CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned) {
    COUNTED;
    trace("pinned alloc %zu bytes\n", bytes);
    *p = std::malloc(bytes);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFreeHost(void *p) {
    COUNTED;
    std::free(p);
    return CUDA_SUCCESS;
}
CUresult cuMemGetInfo(size_t *free, size_t *total) {
    COUNTED;
    *free = *total = size_t{4} << 30;
    return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream stream) {
    COUNTED;
    trace("upload %zu bytes stream %p\n", n, static_cast<void *>(stream));
    std::memcpy(reinterpret_cast<void *>(d), s, n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream stream) {
    COUNTED;
    trace("download %zu bytes stream %p\n", n, static_cast<void *>(stream));
    std::memcpy(d, reinterpret_cast<const void *>(s), n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) {
    COUNTED;
    std::memmove(reinterpret_cast<void *>(d), reinterpret_cast<const void *>(s), n);
    return CUDA_SUCCESS;
}
CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext, CUdeviceptr s, CUcontext, size_t n, CUstream) {
    COUNTED;
    std::memmove(reinterpret_cast<void *>(d), reinterpret_cast<const void *>(s), n);
    return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char b, size_t n, CUstream) {
    COUNTED;
    std::memset(reinterpret_cast<void *>(d), b, n);
    return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *, unsigned, CUjit_option *, void **) {
    COUNTED;
    *m = static_cast<CUmodule>(handle());
    return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule, const char *name) {
    COUNTED;
    *f = static_cast<CUfunction>(handle());
    if (traceFile()) {
        std::lock_guard lock(traceMutex);
        functionNames.emplace_back(*f, name);
    }
    return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, CUstream stream, void **, void **) {
    COUNTED;
    trace("launch %s grid %u,%u,%u block %u,%u,%u shared %u stream %p\n", functionName(f), gx, gy, gz,
          bx, by, bz, shared, static_cast<void *>(stream));
    return CUDA_SUCCESS;
}
CUresult cuLaunchCooperativeKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   unsigned, unsigned, CUstream, void **) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction, int, size_t) {
    COUNTED;
    *n = 2;
    return CUDA_SUCCESS;
}
CUresult cuLaunchHostFunc(CUstream, CUhostFn fn, void *data) {
    COUNTED;
    fn(data);
    return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *s, unsigned) {
    COUNTED;
    *s = static_cast<CUstream>(handle());
    return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuStreamSynchronize(CUstream) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuStreamQuery(CUstream) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned) {
    COUNTED;
    trace("wait stream %p event %p\n", static_cast<void *>(stream), static_cast<void *>(event));
    return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *e, unsigned) {
    COUNTED;
    *e = static_cast<CUevent>(handle());
    return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent event, CUstream stream) {
    COUNTED;
    trace("record event %p stream %p\n", static_cast<void *>(event), static_cast<void *>(stream));
    return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime(float *ms, CUevent, CUevent) {
    COUNTED;
    *ms = 0;
    return CUDA_SUCCESS;
}
// No graphs: a capture is refused, and the runs enqueue directly (gpu_tensor_device.h).
CUresult cuStreamBeginCapture(CUstream, CUstreamCaptureMode) {
    COUNTED;
    return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuStreamEndCapture(CUstream, CUgraph *) {
    COUNTED;
    return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuGraphInstantiate(CUgraphExec *, CUgraph, unsigned long long) {
    COUNTED;
    return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuGraphLaunch(CUgraphExec, CUstream) {
    COUNTED;
    return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuGraphExecDestroy(CUgraphExec) {
    COUNTED;
    return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph) {
    COUNTED;
    return CUDA_SUCCESS;
}

} // extern "C"
