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

// One module per device for the whole process (devices live as long; never destroyed, so no
// unload runs after the driver's own teardown): the kernel is the same for every program, so only
// the first run pays its load.
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

// A kernel's arrays in one block, so that they cross in one copy each way: every synchronous
// copy is a round trip of tens of microseconds, and the phase made seven of them.
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

// The dynamic shared memory, in words, for a block whose warps' picks take `picks` words (which
// fit: casesThreads), its plan and assignment `walked` more and the tables' arrays `tables` more:
// the picks, then as much of the rest as fits the device's default limit per block, all or the
// first part (the kernel walks its copies there), else none. (SPOT5 404: 7,263 words and 5,672
// more, 52 KB of 48.)
uint32_t stagedWords(const Device &d, uint64_t picks, uint64_t walked, uint64_t tables) {
    const uint64_t room = sharedLimitWords(d) - picks;
    const uint64_t words = walked + tables <= room ? walked + tables : walked <= room ? walked : 0;
    return static_cast<uint32_t>(picks + words);
}

// The block for a batch's plan of `shape`: a warp per op of its widest depth, fewer where their
// picks would not fit the device's shared memory per block.
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
    PackedArrays packed;
    size_t assignAt = 0, optimumAt = 0, tiedAt = 0;
    DeviceBuffer block; // the kernel's arrays, until the assignment is back
    const auto enqueue = [&]() -> Status {
        auto plan = buildValuePhasePlan(program);
        if (!plan)
            return plan.error();
        // The kernel for the tables' entries: int64 costs, floats, or doubles.
        auto f =
            valuePhaseFunction(d, program.semiring == Semiring::MinSumInt64 ? "zb_value_phase_i64"
                                  : float32                                 ? "zb_value_phase_f32"
                                                                            : "zb_value_phase");
        if (!f)
            return f.error();
        const size_t planAt = packed.add(*plan);
        auto tables = packSegments(packed, program, std::move(segments));
        if (!tables)
            return tables.error();
        // The assignment, the optimum and the tie last and adjacent: they come back in one copy.
        assignAt = packed.add(assignment);
        optimumAt = packed.reserve(sizeof(double));
        tiedAt = packed.reserve(sizeof(uint32_t));
        auto uploaded = packed.upload(d, stream, pinned);
        if (!uploaded)
            return uploaded.error();
        block = std::move(*uploaded);
        const DevicePtr base = block.ptr();
        DevicePtr planPtr = base + planAt, atPtr = base + tables->at, rowsPtr = base + tables->rows,
                  ptrPtr = base + tables->ptr, assignPtr = base + assignAt,
                  optimumPtr = base + optimumAt, tiedPtr = base + tiedAt;
        DevicePtr noPins = 0; // one assignment, nothing pinned
        unsigned planWords = static_cast<unsigned>(plan->size());
        unsigned nTables = static_cast<unsigned>(program.tables.size());
        unsigned vars = static_cast<unsigned>(assignment.size());
        unsigned shared = stagedWords(d, 0, uint64_t{planWords} + vars, tables->words);
        int minimize = valuePhaseMinimizes(program.semiring);
        int product = valuePhaseMultiplies(program.semiring);
        void *args[] = {&planPtr,    &planWords, &noPins,    &atPtr,  &rowsPtr,
                        &ptrPtr,     &nTables,   &assignPtr, &vars,   &shared,
                        &optimumPtr, &tiedPtr,   &minimize,  &product};
        return d.launch(*f,
                        {1, valuePhaseThreads(valuePhaseShape(*plan)),
                         shared * static_cast<unsigned>(sizeof(uint32_t))},
                        args, stream);
    };
    // Timed on the device from the call (on `stream`: once the work before it is done) to the
    // kernel's end, so a plan the host builds while that work runs costs nothing.
    if (deviceMs) {
        auto ms = d.time(stream, enqueue);
        if (!ms)
            return ms.error();
        *deviceMs = *ms;
    } else {
        ZBDDC_TRY(enqueue());
    }
    std::vector<unsigned char> back(tiedAt + sizeof(uint32_t) - assignAt);
    ZBDDC_TRY(
        d.download(back.data(), block.ptr() + assignAt, back.size(), stream)); // waits: pageable
    if (!assignment.empty())
        std::memcpy(assignment.data(), back.data(), assignment.size() * sizeof(uint32_t));
    double optimum = 0; // 8 bytes: a double, or an int64 cost's word (ir/semiring.h)
    std::memcpy(&optimum, back.data() + (optimumAt - assignAt), sizeof optimum);
    if (tied) {
        uint32_t word = 0;
        std::memcpy(&word, back.data() + (tiedAt - assignAt), sizeof word);
        *tied = word != 0;
    }
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
    auto plan = buildValuePhasePlan(program);
    if (!plan)
        return plan.error();
    const ValuePhaseShape shape = valuePhaseShape(*plan);
    auto threads = casesThreads(d, shape);
    if (!threads)
        return threads.error();
    auto f = valuePhaseFunction(d, "zb_value_phase_cases");
    if (!f)
        return f.error();
    PackedArrays packed;
    const size_t planAt = packed.add(*plan), pinsAt = packed.add(casePins(pinned, n, cases));
    auto segments = packSegments(packed, program, wholeTables(program, tables));
    if (!segments)
        return segments.error();
    const size_t assignAt = packed.add(assignments);
    // The ties right after the assignments: both come back in one copy.
    const size_t tiedAt = packed.reserve(cases * sizeof(uint32_t));
    const size_t optimaAt = packed.reserve(cases * sizeof(double));
    auto block = packed.upload(d, nullptr);
    if (!block)
        return block.error();
    const DevicePtr base = block->ptr();
    DevicePtr planPtr = base + planAt, pinsPtr = base + pinsAt, atPtr = base + segments->at,
              rowsPtr = base + segments->rows, ptrPtr = base + segments->ptr,
              assignPtr = base + assignAt, optimaPtr = base + optimaAt, tiedPtr = base + tiedAt;
    unsigned planWords = static_cast<unsigned>(plan->size()), casePinWords = pinWords(n);
    unsigned nTables = static_cast<unsigned>(program.tables.size());
    unsigned vars = static_cast<unsigned>(n);
    unsigned shared =
        stagedWords(d, valuePhasePicks(shape, *threads), uint64_t{planWords} + n, segments->words);
    int minimize = valuePhaseMinimizes(program.semiring);
    int product = valuePhaseMultiplies(program.semiring);
    void *args[] = {&planPtr, &planWords, &pinsPtr, &casePinWords, &atPtr,
                    &rowsPtr, &ptrPtr,    &nTables, &assignPtr,    &vars,
                    &shared,  &optimaPtr, &tiedPtr, &minimize,     &product};
    ZBDDC_TRY(
        d.launch(*f, {cases, *threads, shared * static_cast<unsigned>(sizeof(uint32_t))}, args));
    std::vector<uint32_t> back((tiedAt - assignAt) / sizeof(uint32_t) + cases);
    ZBDDC_TRY(d.download(back.data(), assignPtr, back.size() * sizeof(uint32_t)));
    std::copy_n(back.begin(), assignments.size(), assignments.begin());
    for (uint32_t b = 0; b < cases; ++b)
        tied[b] = back[(tiedAt - assignAt) / sizeof(uint32_t) + b] != 0;
    return Ok{};
}

} // namespace zbddc::cuda
