#include "backends/tensor/cuda/run/value_phase_gpu.h"

#include "backends/cuda/device_module.h"
#include "backends/tensor/cuda/plan/value_phase_plan.h"
#include "ir/mpe_tie.h"
#include "ir/try.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

namespace zbddc::cuda {

namespace {
// Stringizing drops the comments and joins the lines: NVRTC gets the code alone.
#define ZB_VALUE_PHASE_KERNEL(...) #__VA_ARGS__
const char *kSource =
#include "backends/tensor/cuda/codegen/value_phase_kernel.inc"
    ;
#undef ZB_VALUE_PHASE_KERNEL

// One module per device for the process (never unloaded: no unload after the driver's teardown):
// the kernel is the same for every program.
Result<FunctionHandle> valuePhaseFunction(Device &d, const char *name) {
    static std::mutex mutex;
    static auto *modules = new std::map<Device *, DeviceModule>;
    std::lock_guard lock(mutex);
    auto it = modules->find(&d);
    if (it == modules->end()) {
        auto compiled = compileForDevice(d, valuePhaseKernelSource(), "zbddc_value_phase.cu");
        if (!compiled)
            return compiled.error();
        it = modules->emplace(&d, std::move(*compiled)).first;
    }
    return it->second.module.function(name);
}

// A table as one segment, at `tables[id]`.
std::vector<TableSegment> wholeTables(const TensorProgram &program,
                                      std::span<const DevicePtr> tables) {
    std::vector<TableSegment> segments;
    for (uint32_t t = 0; t < tables.size() && t < program.tables.size(); ++t)
        if (tables[t])
            segments.push_back({t, 0, program.tables[t].entries(), tables[t]});
    return segments;
}

// A kernel's arrays in one block, one copy each way (each copy a round trip of tens of µs).
class PackedArrays {
  public:
    // Where `values` lie in the block (16-byte aligned, as any of the kernel's words needs).
    template <class V> size_t add(const std::vector<V> &values) {
        const size_t at = reserve(values.size() * sizeof(V));
        if (!values.empty())
            std::memcpy(bytes_.data() + at, values.data(), values.size() * sizeof(V));
        return at;
    }
    size_t reserve(size_t bytes) {
        const size_t at = (bytes_.size() + 15) / 16 * 16;
        bytes_.resize(at + bytes);
        return at;
    }
    // Enqueued on `stream` (synchronous without one), from `pinned` memory where given; the
    // block must outlive the copy.
    Result<DeviceBuffer> upload(Device &d, StreamHandle stream,
                                const PinnedStaging &pinned = {}) const {
        auto block = d.allocate(std::max<size_t>(bytes_.size(), 1));
        if (!block)
            return block.error();
        const unsigned char *from = bytes_.data();
        if (pinned && !bytes_.empty()) {
            auto staged = pinned(bytes_.size());
            if (!staged)
                return staged.error();
            std::memcpy(*staged, bytes_.data(), bytes_.size());
            from = *staged;
        }
        ZBDDC_TRY(d.upload(block->ptr(), from, bytes_.size(), stream));
        return block;
    }

  private:
    std::vector<unsigned char> bytes_;
};

// The device's default limit of dynamic shared memory per block, in words.
uint64_t sharedLimitWords(const Device &d) {
    return static_cast<uint64_t>(d.info().sharedMemPerBlock) / sizeof(uint32_t);
}

// The dynamic shared memory, in words: the warps' `picks`, then the plan and assignment (`walked`)
// and the tables' arrays (`tables`), all or the first part, as far as the block's limit allows.
uint32_t stagedWords(const Device &d, uint64_t picks, uint64_t walked, uint64_t tables) {
    const uint64_t room = sharedLimitWords(d) - picks;
    const uint64_t words = walked + tables <= room ? walked + tables : walked <= room ? walked : 0;
    return static_cast<uint32_t>(picks + words);
}

// The block for a batch's plan: a warp per op of its widest depth, fewer where their picks would
// not fit the shared memory.
Result<uint32_t> casesThreads(const Device &d, ValuePhaseShape shape) {
    for (uint32_t threads = valuePhaseThreads(shape); threads >= 32; threads -= 32)
        if (valuePhasePicks(shape, threads) <= sharedLimitWords(d))
            return threads;
    return error("an op eliminating " + std::to_string(shape.vars) +
                 " variables: its traceback needs more shared memory than a block has");
}

// zb_vp_tables' arrays, at their offsets in a PackedArrays block, and the words they take.
struct PackedSegments {
    size_t at = 0, rows = 0, ptr = 0;
    uint64_t words = 0; // in the kernel's shared memory (segmentArrayWords)
};
Result<PackedSegments> packSegments(PackedArrays &packed, const TensorProgram &program,
                                    std::vector<TableSegment> segments) {
    auto arrays = segmentArrays(program, std::move(segments));
    if (!arrays)
        return arrays.error();
    return PackedSegments{packed.add(arrays->at), packed.add(arrays->rows), packed.add(arrays->ptr),
                          segmentArrayWords(*arrays)};
}

// Kernel `name` over the program's plan, a block per case (its pinWords of `pins`; empty: none),
// reading `segments`, into `assignments`, `tied` and `optima` (8 bytes a case), on `stream`, its
// arrays from `pinned` where given. `deviceMs`: the device's time to the kernel's end.
Status launchValuePhase(Device &d, const TensorProgram &program, const char *name,
                        const std::vector<uint32_t> &pins, uint32_t cases,
                        std::vector<TableSegment> segments, std::vector<uint32_t> &assignments,
                        std::vector<uint32_t> &tied, std::vector<uint64_t> &optima,
                        StreamHandle stream, double *deviceMs, const PinnedStaging &pinned) {
    const size_t n = program.domainSizes.size();
    size_t assignAt = 0, tiedAt = 0, optimaAt = 0; // adjacent: they come back in one copy
    DeviceBuffer block; // the kernel's arrays, until the results are back
    const auto enqueue = [&]() -> Status {
        auto walked = buildValuePhasePlan(program);
        if (!walked)
            return walked.error();
        const ValuePhaseShape shape = valuePhaseShape(*walked);
        auto threads =
            pins.empty() ? Result<uint32_t>(valuePhaseThreads(shape)) : casesThreads(d, shape);
        if (!threads)
            return threads.error();
        auto f = valuePhaseFunction(d, name);
        if (!f)
            return f.error();
        PackedArrays packed;
        const size_t planAt = packed.add(*walked), pinsAt = packed.add(pins);
        auto tables = packSegments(packed, program, std::move(segments));
        if (!tables)
            return tables.error();
        assignAt = packed.add(assignments);
        tiedAt = packed.reserve(cases * sizeof(uint32_t));
        optimaAt = packed.reserve(cases * sizeof(uint64_t));
        auto uploaded = packed.upload(d, stream, pinned);
        if (!uploaded)
            return uploaded.error();
        block = std::move(*uploaded);
        const DevicePtr base = block.ptr();
        DevicePtr planPtr = base + planAt, pinsPtr = pins.empty() ? 0 : base + pinsAt,
                  atPtr = base + tables->at, rowsPtr = base + tables->rows,
                  ptrPtr = base + tables->ptr, assignPtr = base + assignAt,
                  optimaPtr = base + optimaAt, tiedPtr = base + tiedAt;
        unsigned planWords = static_cast<unsigned>(walked->size()), casePinWords = pinWords(n);
        unsigned nTables = static_cast<unsigned>(program.tables.size());
        unsigned vars = static_cast<unsigned>(n);
        const uint64_t picks = pins.empty() ? 0 : valuePhasePicks(shape, *threads);
        unsigned shared = stagedWords(d, picks, uint64_t{planWords} + n, tables->words);
        int minimize = valuePhaseMinimizes(program.semiring);
        int product = valuePhaseMultiplies(program.semiring);
        void *args[] = {&planPtr, &planWords, &pinsPtr, &casePinWords, &atPtr,
                        &rowsPtr, &ptrPtr,    &nTables, &assignPtr,    &vars,
                        &shared,  &optimaPtr, &tiedPtr, &minimize,     &product};
        return d.launch(*f, {cases, *threads, shared * static_cast<unsigned>(sizeof(uint32_t))},
                        args, stream);
    };
    if (deviceMs) {
        auto ms = d.time(stream, enqueue);
        if (!ms)
            return ms.error();
        *deviceMs = *ms;
    } else {
        ZBDDC_TRY(enqueue());
    }
    std::vector<unsigned char> back(optimaAt + cases * sizeof(uint64_t) - assignAt);
    ZBDDC_TRY(
        d.download(back.data(), block.ptr() + assignAt, back.size(), stream)); // waits: pageable
    tied.resize(cases);
    optima.resize(cases);
    if (!assignments.empty())
        std::memcpy(assignments.data(), back.data(), assignments.size() * sizeof(uint32_t));
    std::memcpy(tied.data(), back.data() + (tiedAt - assignAt), cases * sizeof(uint32_t));
    std::memcpy(optima.data(), back.data() + (optimaAt - assignAt), cases * sizeof(uint64_t));
    return Ok{};
}
} // namespace

std::string valuePhaseKernelSource() {
    return "// Generated by zbddc: the VALUE phase on the device.\n"
           "#define ZB_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))\n"
           "#define ZB_SHFL(v, lane) __shfl_sync(0xffffffffu, (v), (lane))\n"
           "#define ZB_SYNCWARP() __syncwarp()\n"
           "extern __shared__ unsigned int zb_vp_shared[];\n"
           "#define ZB_VP_SHARED zb_vp_shared\n"
           "#define ZB_UNROLL _Pragma(\"unroll\")\n" +
           std::string(mpeTieRuleKernelSource()) + kSource + "\n";
}

Result<double> decodeOnDevice(Device &d, const TensorProgram &program,
                              std::vector<TableSegment> segments, std::vector<uint32_t> &assignment,
                              bool float32, StreamHandle stream, double *deviceMs, bool *tied,
                              const PinnedStaging &pinned) {
    if (assignment.size() != program.domainSizes.size())
        return error("internal error: the assignment has " + std::to_string(assignment.size()) +
                     " entries for " + std::to_string(program.domainSizes.size()) + " variables");
    // The kernel for the tables' entries: int64 costs, floats, or doubles.
    const char *name = program.semiring == Semiring::MinSumInt64 ? "zb_value_phase_i64"
                       : float32                                 ? "zb_value_phase_f32"
                                                                 : "zb_value_phase";
    std::vector<uint32_t> tiedWords;
    std::vector<uint64_t> optima;
    ZBDDC_TRY(launchValuePhase(d, program, name, {}, 1, std::move(segments), assignment, tiedWords,
                               optima, stream, deviceMs, pinned));
    if (tied)
        *tied = tiedWords[0] != 0;
    double optimum = 0; // 8 bytes: a double, or an int64 cost's word (ir/semiring.h)
    std::memcpy(&optimum, &optima[0], sizeof optimum);
    return optimum;
}

Status decodeCasesOnDevice(Device &d, const TensorProgram &program,
                           std::span<const DevicePtr> tables, std::vector<uint32_t> &assignments,
                           const std::vector<uint8_t> &pinned, uint32_t cases,
                           std::vector<uint8_t> &tied) {
    const size_t n = program.domainSizes.size();
    if (assignments.size() != n * cases || pinned.size() != n * cases)
        return error("internal error: " + std::to_string(cases) + " cases of " + std::to_string(n) +
                     " variables, but " + std::to_string(assignments.size()) +
                     " assignment entries");
    tied.assign(cases, 1); // until the kernel says
    if (cases == 0)
        return Ok{};
    // One plan for every case; each case's pins a few words (a bit per variable).
    std::vector<uint32_t> tiedWords;
    std::vector<uint64_t> optima;
    ZBDDC_TRY(launchValuePhase(d, program, "zb_value_phase", casePins(pinned, n, cases), cases,
                               wholeTables(program, tables), assignments, tiedWords, optima,
                               nullptr, nullptr, {}));
    for (uint32_t b = 0; b < cases; ++b)
        tied[b] = tiedWords[b] != 0;
    return Ok{};
}

} // namespace zbddc::cuda
