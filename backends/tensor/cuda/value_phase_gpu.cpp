#include "backends/tensor/cuda/value_phase_gpu.h"

#include "backends/cuda/device_module.h"
#include "backends/tensor/cuda/value_phase_plan.h"
#include "ir/try.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string_view>

namespace zbddc::cuda {

namespace {
// Stringizing drops the comments and joins the lines: NVRTC gets the code alone.
#define ZB_VALUE_PHASE_KERNEL(...) #__VA_ARGS__
const char *kSource =
#include "backends/tensor/cuda/value_phase_kernel.inc"
    ;
#undef ZB_VALUE_PHASE_KERNEL

// Whether the kernel folds a joint value's inputs as a tree where the order cannot matter
// (value_phase_kernel.inc, zb_vp_any_order): yes unless ZBDDC_GPU_VALUE_TREE=0, to compare.
bool valuePhaseTree() {
    const char *env = std::getenv("ZBDDC_GPU_VALUE_TREE");
    return !(env && std::string_view(env) == "0");
}

// One module per device and fold for the whole process (devices live as long; never destroyed,
// so no unload runs after the driver's own teardown): the kernel is the same for every program,
// so only the first run pays its load.
Result<FunctionHandle> valuePhaseFunction(Device &d, const char *name) {
    static std::mutex mutex;
    static auto *modules = new std::map<std::pair<Device *, bool>, DeviceModule>;
    std::lock_guard lock(mutex);
    const bool tree = valuePhaseTree();
    auto it = modules->find({&d, tree});
    if (it == modules->end()) {
        auto compiled = compileForDevice(d, valuePhaseKernelSource(tree), "zbddc_value_phase.cu");
        if (!compiled)
            return compiled.error();
        it = modules->emplace(std::pair{&d, tree}, std::move(*compiled)).first;
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
    // Enqueued on `stream` (synchronous without one); the block must outlive the copy.
    Result<DeviceBuffer> upload(Device &d, StreamHandle stream) const {
        auto block = d.allocate(std::max<size_t>(bytes_.size(), 1));
        if (!block)
            return block.error();
        if (Status s = d.upload(block->ptr(), bytes_.data(), bytes_.size(), stream); !s)
            return s.error();
        return block;
    }

  private:
    std::vector<unsigned char> bytes_;
};

// The dynamic shared memory, in words, for a block whose plan and assignment take `walked` words
// and the tables' arrays `tables` more: as much of them as fits the device's default limit per
// block, all or the first part (the kernel walks its copies there), else none; none with
// ZBDDC_GPU_VALUE_SHARED=0, to compare. (SPOT5 404: 7,263 words and 5,672 more, 52 KB of 48.)
uint32_t stagedWords(const Device &d, uint64_t walked, uint64_t tables) {
    const char *env = std::getenv("ZBDDC_GPU_VALUE_SHARED");
    if (env && std::string_view(env) == "0")
        return 0;
    const uint64_t limit = static_cast<uint64_t>(d.info().sharedMemPerBlock) / sizeof(uint32_t);
    const uint64_t words = walked + tables <= limit ? walked + tables
                           : walked <= limit        ? walked
                                                    : 0;
    return static_cast<uint32_t>(words);
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

std::string valuePhaseKernelSource(bool tree) {
    return "// Generated by zbddc: the VALUE phase on the device.\n"
           "#define ZB_VP_TREE " +
           std::string(tree ? "1" : "0") +
           "\n"
           "#define ZB_SHFL_XOR(v, m) __shfl_xor_sync(0xffffffffu, (v), (m))\n"
           "#define ZB_SHFL(v, lane) __shfl_sync(0xffffffffu, (v), (lane))\n"
           "extern __shared__ unsigned int zb_vp_shared[];\n"
           "#define ZB_VP_SHARED zb_vp_shared\n"
           "#define ZB_UNROLL _Pragma(\"unroll\")\n" +
           std::string(kSource) + "\n";
}

Result<double> decodeOnDevice(Device &d, const TensorProgram &program,
                              std::span<const DevicePtr> tables, std::vector<uint32_t> &assignment,
                              bool float32, StreamHandle stream, double *deviceMs) {
    return decodeOnDevice(d, program, wholeTables(program, tables), assignment, float32, stream,
                          deviceMs);
}

Result<double> decodeOnDevice(Device &d, const TensorProgram &program,
                              std::vector<TableSegment> segments, std::vector<uint32_t> &assignment,
                              bool float32, StreamHandle stream, double *deviceMs) {
    if (assignment.size() != program.domainSizes.size())
        return error("internal error: the assignment has " + std::to_string(assignment.size()) +
                     " entries for " + std::to_string(program.domainSizes.size()) + " variables");
    PackedArrays packed;
    size_t assignAt = 0, optimumAt = 0;
    DeviceBuffer block; // the kernel's arrays, until the assignment is back
    const auto enqueue = [&]() -> Status {
        auto plan = buildValuePhasePlan(program);
        if (!plan)
            return plan.error();
        // The kernel for the tables' entries: int64 costs, floats, or doubles.
        auto f = valuePhaseFunction(d, program.semiring == Semiring::MinSumInt64
                                           ? "zb_value_phase_i64"
                                       : float32 ? "zb_value_phase_f32"
                                                 : "zb_value_phase");
        if (!f)
            return f.error();
        const size_t planAt = packed.add(*plan);
        auto tables = packSegments(packed, program, std::move(segments));
        if (!tables)
            return tables.error();
        // The assignment and the optimum last and adjacent: they come back in one copy.
        assignAt = packed.add(assignment);
        optimumAt = packed.reserve(sizeof(double));
        auto uploaded = packed.upload(d, stream);
        if (!uploaded)
            return uploaded.error();
        block = std::move(*uploaded);
        const DevicePtr base = block.ptr();
        DevicePtr planPtr = base + planAt, atPtr = base + tables->at,
                  rowsPtr = base + tables->rows, ptrPtr = base + tables->ptr,
                  assignPtr = base + assignAt, optimumPtr = base + optimumAt;
        unsigned planWords = static_cast<unsigned>(plan->size());
        unsigned nTables = static_cast<unsigned>(program.tables.size());
        unsigned vars = static_cast<unsigned>(assignment.size());
        unsigned shared = stagedWords(d, uint64_t{planWords} + vars, tables->words);
        int minimize = valuePhaseMinimizes(program.semiring);
        int product = valuePhaseMultiplies(program.semiring);
        void *args[] = {&planPtr,   &planWords, &atPtr,  &rowsPtr,    &ptrPtr,   &nTables,
                        &assignPtr, &vars,      &shared, &optimumPtr, &minimize, &product};
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
    std::vector<unsigned char> back(optimumAt + sizeof(double) - assignAt);
    if (Status s = d.download(back.data(), block.ptr() + assignAt, back.size(), stream);
        !s) // waits: pageable
        return s.error();
    if (!assignment.empty())
        std::memcpy(assignment.data(), back.data(), assignment.size() * sizeof(uint32_t));
    double optimum = 0; // 8 bytes: a double, or an int64 cost's word (ir/semiring.h)
    std::memcpy(&optimum, back.data() + (optimumAt - assignAt), sizeof optimum);
    return optimum;
}

Status decodeCasesOnDevice(Device &d, const TensorProgram &program,
                           std::span<const DevicePtr> tables, std::vector<uint32_t> &assignments,
                           const std::vector<uint8_t> &pinned, uint32_t cases) {
    const size_t n = program.domainSizes.size();
    if (assignments.size() != n * cases || pinned.size() != n * cases)
        return error("internal error: " + std::to_string(cases) + " cases of " + std::to_string(n) +
                     " variables, but " + std::to_string(assignments.size()) +
                     " assignment entries");
    if (cases == 0)
        return Ok{};
    // One plan per case, one after another: each leaves out the variables its case pins.
    std::vector<uint32_t> plans;
    std::vector<uint64_t> planAt;
    std::vector<uint8_t> casePinned(n);
    uint32_t threads = 32; // the widest case's block
    uint64_t longest = 0;  // the longest case's plan
    for (uint32_t b = 0; b < cases; ++b) {
        std::copy_n(pinned.begin() + b * n, n, casePinned.begin());
        auto plan = buildValuePhasePlan(program, &casePinned);
        if (!plan)
            return plan.error();
        threads = std::max(threads, valuePhaseThreads(valuePhaseShape(*plan)));
        longest = std::max<uint64_t>(longest, plan->size());
        planAt.push_back(plans.size());
        plans.insert(plans.end(), plan->begin(), plan->end());
    }
    planAt.push_back(plans.size()); // the last case's end
    auto f = valuePhaseFunction(d, "zb_value_phase_cases");
    if (!f)
        return f.error();
    PackedArrays packed;
    const size_t plansAt = packed.add(plans), planAtAt = packed.add(planAt);
    auto segments = packSegments(packed, program, wholeTables(program, tables));
    if (!segments)
        return segments.error();
    const size_t assignAt = packed.add(assignments);
    const size_t optimaAt = packed.reserve(cases * sizeof(double));
    auto block = packed.upload(d, nullptr);
    if (!block)
        return block.error();
    const DevicePtr base = block->ptr();
    DevicePtr planPtr = base + plansAt, planAtPtr = base + planAtAt, atPtr = base + segments->at,
              rowsPtr = base + segments->rows, ptrPtr = base + segments->ptr,
              assignPtr = base + assignAt, optimaPtr = base + optimaAt;
    unsigned nTables = static_cast<unsigned>(program.tables.size());
    unsigned vars = static_cast<unsigned>(n);
    unsigned shared = stagedWords(d, longest + n, segments->words);
    int minimize = valuePhaseMinimizes(program.semiring);
    int product = valuePhaseMultiplies(program.semiring);
    void *args[] = {&planPtr,   &planAtPtr, &atPtr,  &rowsPtr,   &ptrPtr,   &nTables,
                    &assignPtr, &vars,      &shared, &optimaPtr, &minimize, &product};
    if (Status s =
            d.launch(*f, {cases, threads, shared * static_cast<unsigned>(sizeof(uint32_t))}, args);
        !s)
        return s.error();
    if (n == 0)
        return Ok{};
    return d.download(assignments.data(), assignPtr, assignments.size() * sizeof(uint32_t));
}

} // namespace zbddc::cuda
