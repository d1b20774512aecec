// A GPU timeline for machines without Nsight Systems: a CUDA injection library that records every
// kernel, copy, memset, synchronisation and driver call of a process through CUPTI's activity API
// and writes one tab-separated line per record when the process exits.
//   CUDA_INJECTION64_PATH=build/bench/gpu_trace/libgpu_trace.so GPU_TRACE_FILE=run.tsv zbddc ...
// Columns: kind, start ns, end ns, stream (or thread for driver calls), bytes or grid, name.
// bench/gpu_trace/summarise.py reads them.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

constexpr size_t kBufferBytes = 8u << 20;

std::mutex outputMutex;
FILE *output = nullptr;

void CUPTIAPI bufferRequested(uint8_t **buffer, size_t *size, size_t *maxRecords) {
    *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, kBufferBytes));
    *size = kBufferBytes;
    *maxRecords = 0;
}

const char *copyKindName(uint8_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
        return "DtoD";
    default:
        return "other";
    }
}

bool pinned(uint8_t memoryKind) {
    return memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
}

void writeRecord(const CUpti_Activity *record) {
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto *k = reinterpret_cast<const CUpti_ActivityKernel10 *>(record);
        std::fprintf(output, "kernel\t%llu\t%llu\t%u\t%dx%d\t%s\n", (unsigned long long)k->start,
                     (unsigned long long)k->end, k->streamId, k->gridX, k->blockX, k->name);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto *m = reinterpret_cast<const CUpti_ActivityMemcpy6 *>(record);
        bool hostPinned = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD ? pinned(m->srcKind)
                                                                         : pinned(m->dstKind);
        std::fprintf(output, "copy\t%llu\t%llu\t%u\t%llu\t%s%s\n", (unsigned long long)m->start,
                     (unsigned long long)m->end, m->streamId, (unsigned long long)m->bytes,
                     copyKindName(m->copyKind), hostPinned ? " pinned" : "");
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto *m = reinterpret_cast<const CUpti_ActivityMemset4 *>(record);
        std::fprintf(output, "memset\t%llu\t%llu\t%u\t%llu\tmemset\n", (unsigned long long)m->start,
                     (unsigned long long)m->end, m->streamId, (unsigned long long)m->bytes);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        auto *s = reinterpret_cast<const CUpti_ActivitySynchronization2 *>(record);
        std::fprintf(output, "sync\t%llu\t%llu\t%u\t0\ttype%d\n", (unsigned long long)s->start,
                     (unsigned long long)s->end, s->streamId, static_cast<int>(s->type));
        break;
    }
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        auto *a = reinterpret_cast<const CUpti_ActivityAPI *>(record);
        const char *name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, a->cbid, &name) != CUPTI_SUCCESS)
            name = "?";
        std::fprintf(output, "driver\t%llu\t%llu\t%u\t0\t%s\n", (unsigned long long)a->start,
                     (unsigned long long)a->end, a->threadId, name);
        break;
    }
    default:
        break;
    }
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t *buffer, size_t, size_t validSize) {
    std::lock_guard lock(outputMutex);
    CUpti_Activity *record = nullptr;
    while (output && cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS)
        writeRecord(record);
    std::free(buffer);
}

void flushAtExit() {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    std::lock_guard lock(outputMutex);
    if (output)
        std::fclose(output);
    output = nullptr;
}

} // namespace

// The driver calls this once, at cuInit, in every process started with CUDA_INJECTION64_PATH.
extern "C" int InitializeInjection() {
    const char *path = std::getenv("GPU_TRACE_FILE");
    output = std::fopen(path ? path : "gpu_trace.tsv", "w");
    if (!output)
        return 0;
    cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
    for (CUpti_ActivityKind kind :
         {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
          CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
          CUPTI_ACTIVITY_KIND_DRIVER})
        cuptiActivityEnable(kind);
    std::atexit(flushAtExit);
    return 1;
}
