#include "backends/cuda/cuda_model.h"

#include "backends/cuda/device_module.h"
#include "backends/cuda/plan_traceback.h"
#include "backends/cuda/schedule/gpu_passes.h" // kCudaTileBytes
#include "support/threads.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

namespace zbddc::cuda {

namespace {

// Runs of levels of one kind (grid or one block), each a launch wanting `blocks[i]` blocks for its
// level i (the most over its levels, at most maxGridBlocks).
std::vector<Segment> segmentsOf(const std::vector<uint8_t> &grid,
                                const std::vector<uint64_t> &blocks, uint32_t maxGridBlocks) {
    std::vector<Segment> segs;
    for (size_t i = 0; i < grid.size();) {
        size_t j = i;
        uint64_t most = 1;
        while (j < grid.size() && grid[j] == grid[i])
            most = std::max(most, blocks[j++]);
        segs.push_back(
            {grid[i] != 0, static_cast<uint32_t>(i), static_cast<uint32_t>(j),
             grid[i] ? static_cast<uint32_t>(std::clamp<uint64_t>(most, 1, maxGridBlocks)) : 1u});
        i = j;
    }
    return segs;
}

bool onGrid(const DevicePlan &p, uint32_t level) {
    return p.levelPhase[level] == static_cast<uint32_t>(Phase::Grid);
}

} // namespace

std::vector<Segment> forwardSegments(const DevicePlan &p, uint32_t maxGridBlocks) {
    const uint32_t levels = p.numLevels();
    std::vector<uint8_t> grid(levels);
    std::vector<uint64_t> blocks(levels);
    for (uint32_t L = 0; L < levels; ++L) {
        grid[L] = onGrid(p, L);
        blocks[L] = p.levelBlockBegin[L + 1] - p.levelBlockBegin[L];
    }
    return segmentsOf(grid, blocks, maxGridBlocks);
}

std::vector<Segment> backwardSegments(const DevicePlan &p, uint32_t batch, uint32_t blockThreads,
                                      uint32_t narrowWork, uint32_t maxGridBlocks) {
    const uint32_t levels = p.numLevels();
    std::vector<uint8_t> grid(levels + 2);
    std::vector<uint64_t> blocks(levels + 2);
    auto blocksFor = [&](uint64_t items) {
        return (items * batch + blockThreads - 1) / blockThreads;
    };
    for (uint32_t L = 0; L < levels; ++L) {
        grid[levels - 1 - L] = onGrid(p, L);
        blocks[levels - 1 - L] = blocksFor(p.levelWidth(L));
    }
    // The inputs' two steps sized for every input (a batch wanting fewer runs fewer items).
    const uint64_t items[2] = {allInputPieces(p).numPieces(), p.numInputs};
    for (int k = 0; k < 2; ++k) {
        grid[levels + k] = items[k] * batch > narrowWork;
        blocks[levels + k] = blocksFor(items[k]);
    }
    return segmentsOf(grid, blocks, maxGridBlocks);
}

Result<KernelShape> kernelShapeFor(Semiring semiring, const DevicePlan &plan,
                                   const CudaOptions &o) {
    KernelShape s;
    s.semiring = o.semiring.value_or(semiring);
    s.typeCode = plan.typeCode;
    s.float64 = o.precision == Precision::Float64;
    s.logSpace = o.logSpace;
    s.batch = o.batch;
    s.blockThreads = o.blockThreads;
    s.singleLaunch = o.singleLaunch.value_or(false); // compilePlan decides where it is unset
    if (s.logSpace && s.semiring != Semiring::SumProduct && s.semiring != Semiring::MaxProduct)
        return error("log space applies to product semirings; " +
                     std::string(semiringName(s.semiring)) + " is already additive");
    if (s.batch == 0)
        return error("batch size must be at least 1");
    for (size_t t = 0; t < plan.typeCode.size(); ++t)
        if (plan.arity(static_cast<uint32_t>(t)) >= 64)
            return error("op type " + plan.typeName[t] + " has " +
                         std::to_string(plan.arity(static_cast<uint32_t>(t))) +
                         " operands; the CUDA backend takes at most 63");
    if (s.blockThreads == 0 || s.blockThreads > 1024 || s.blockThreads % 32 != 0)
        return error("block size must be a multiple of 32 up to 1024, got " +
                     std::to_string(s.blockThreads));
    return s;
}

Result<std::string> emitCudaSource(const Schedule &schedule, const CudaOptions &o) {
    auto plan = buildDevicePlan(schedule);
    if (!plan)
        return plan.error();
    auto shape = kernelShapeFor(schedule.semiring, *plan, o);
    if (!shape)
        return shape.error();
    return generateKernelSource(*shape);
}

Result<std::string> emitPtx(const Schedule &schedule, const CudaOptions &o) {
    auto src = emitCudaSource(schedule, o);
    if (!src)
        return src.error();
    auto ptx = compileToPtx(*src, "zbddc_model.cu", o.nvrtc);
    if (!ptx)
        return ptx.error();
    return ptx->ptx;
}

std::string CudaModel::numericName() const {
    return std::string(shape_.logSpace ? "log-" : "") + (shape_.float64 ? "float64" : "float32");
}

double CudaModel::minimumForwardBytes() const {
    const double word = shape_.float64 ? 8 : 4;
    return (2.0 * plan_.numOps() + plan_.numInputs) * word * shape_.batch;
}

double CudaModel::minimumBackwardBytes() const {
    const double word = shape_.float64 ? 8 : 4;
    return (3.0 * plan_.numOps() + 2.0 * plan_.numInputs) * word * shape_.batch;
}

double CudaModel::operandBytes() const {
    const double word = shape_.float64 ? 8 : 4;
    return double(plan_.operands.size() + plan_.numOps()) * word * shape_.batch;
}

Result<CudaModel> compileCuda(const Circuit &c, const Schedule &schedule, const CudaOptions &o) {
    auto plan = buildDevicePlan(schedule);
    if (!plan)
        return plan.error();
    if (plan->numInputs != c.numInputs() || plan->outputSlots.size() != c.numOutputs())
        return error("schedule does not match the circuit (inputs or outputs differ)");
    if (o.backward && plan->reusesSlots)
        return error("the schedule reuses slots; the backward pass needs every value kept "
                     "(PipelineOptions::keepValues, or CudaOptions::backward = false)");
    return compilePlan(c, std::move(*plan), o);
}

Result<CudaModel> compilePlan(const Circuit &c, DevicePlan plan, const CudaOptions &o) {
    if (c.outputs.empty())
        return error("circuit has no outputs");
    auto shape = kernelShapeFor(c.semiring, plan, o);
    if (!shape)
        return shape.error();
    if (const size_t tile = size_t{plan.maxTileLoads} * o.batch * (shape->float64 ? 8 : 4);
        tile > kCudaTileBytes)
        return error("the schedule's shared-memory tiles take " + std::to_string(tile) +
                     " bytes at " + std::to_string(o.batch) + " lanes, more than " +
                     std::to_string(kCudaTileBytes) + " (build it for these lanes)");
    auto dev = Device::open(o.device);
    if (!dev)
        return dev.error();

    CudaModel m;
    m.device_ = *dev;
    m.shape_ = *shape;
    m.circuit_ = c;
    m.plan_ = std::move(plan);
    const size_t word = m.shape_.float64 ? 8 : 4;
    // The passes' kernels are chosen before the compile: the module holds that set alone.
    if (o.singleLaunch.value_or(true)) {
        const DeviceInfo &info = m.device_->info();
        SingleLaunchLimits limits;
        limits.batch = m.shape_.batch;
        limits.wordBytes = static_cast<uint32_t>(word);
        limits.multiprocessors = static_cast<uint32_t>(std::max(info.multiprocessors, 1));
        limits.sharedBytes =
            std::min<uint32_t>(limits.sharedBytes, static_cast<uint32_t>(info.sharedMemPerBlock));
        limits.maxThreads = m.shape_.blockThreads;
        m.single_ = planSingleLaunch(m.plan_, limits, o.singleLaunch.value_or(false));
    }
    m.shape_.singleLaunch = m.single_.has_value();

    m.narrowWork_ = o.narrowWork;
    m.fullGrid_ = o.fullGrid;
    if (Status st = m.loadKernels(o); !st)
        return st.error();

    Device &d = *m.device_;
    const DevicePlan &p = m.plan_;
    const size_t B = m.shape_.batch;
    auto values = d.allocate(size_t{p.numSlots} * B * word);
    if (!values)
        return values.error();
    m.values_ = std::move(*values);
    if (!p.reusesSlots) {
        auto adj = d.allocate(size_t{p.numSlots} * B * word);
        if (!adj)
            return adj.error();
        m.adjoints_ = std::move(*adj);
    }
    // Per edge, what the kernel would otherwise look up through the reader op.
    std::vector<uint32_t> edgeOut(p.edgeOp.size()), edgeOperands(p.edgeOp.size()),
        edgeCode(p.edgeOp.size());
    for (size_t e = 0; e < p.edgeOp.size(); ++e) {
        edgeOut[e] = p.opOut[p.edgeOp[e]];
        edgeOperands[e] = p.opOperandBegin[p.edgeOp[e]];
        edgeCode[e] = p.opType[p.edgeOp[e]] * 64 + p.edgePos[e];
    }
    // Per op one 16-byte record (result slot, type, operand offset) the forward kernel loads at
    // once, and a sentinel whose operand offset ends the last op's operands; per level its first
    // op (groups are contiguous, so the kernel needs no group table).
    std::vector<uint32_t> opInfo(size_t{p.numOps() + 1} * 4, 0), levelOpBegin(p.numLevels() + 1);
    for (uint32_t k = 0; k <= p.numOps(); ++k) {
        opInfo[size_t{k} * 4 + 0] = k < p.numOps() ? p.opOut[k] : 0;
        opInfo[size_t{k} * 4 + 1] = k < p.numOps() ? p.opType[k] : 0;
        opInfo[size_t{k} * 4 + 2] = p.opOperandBegin[k];
    }
    for (uint32_t L = 0; L <= p.numLevels(); ++L)
        levelOpBegin[L] = p.groupOpBegin[p.levelGroupBegin[L]];
    // The single-launch backward gathers the ops in pieces, the level kernels' the inputs: each
    // model keeps its own set's tables (empty where slots are reused: no edges).
    const OpPieces opPieceLists = m.single_ ? opPieces(p) : OpPieces{};
    for (auto [dst, src] :
         {std::pair<DeviceBuffer *, const std::vector<uint32_t> *>{&m.opInfo_, &opInfo},
          {&m.opOut_, &p.opOut},
          {&m.operands_, &p.operands},
          {&m.slotOperands_, &p.slotOperands},
          {&m.levelOpBegin_, &levelOpBegin},
          {&m.levelBlockBegin_, &p.levelBlockBegin},
          {&m.blockOpBegin_, &p.blockOpBegin},
          {&m.blockLoadBegin_, &p.blockLoadBegin},
          {&m.blockLoads_, &p.blockLoads},
          {&m.edgeStart_, &p.edgeStart},
          {&m.edgeOut_, &edgeOut},
          {&m.edgeOperands_, &edgeOperands},
          {&m.edgeCode_, &edgeCode},
          {&m.opPieces_.edges, &opPieceLists.edges},
          {&m.opPieces_.levelPieceBegin, &opPieceLists.levelPieceBegin},
          {&m.opPieces_.levelSplitBegin, &opPieceLists.levelSplitBegin},
          {&m.opPieces_.splitOp, &opPieceLists.splitOp},
          {&m.opPieces_.splitPieceBegin, &opPieceLists.splitPieceBegin},
          {&m.outputSlots_, &p.outputSlots}}) {
        auto buf = uploadArray(d, *src);
        if (!buf)
            return buf.error();
        *dst = std::move(*buf);
    }
    if (!p.reusesSlots) {
        const InputPieces all = m.single_ ? InputPieces{} : allInputPieces(p);
        auto pieces = m.uploadPieces(all);
        if (!pieces)
            return pieces.error();
        m.allPieces_ = std::move(*pieces);
        for (auto [rows, dst] : {std::pair{all.numPieces(), &m.partials_},
                                 {opPieceLists.numPieces(), &m.opPieces_.partials}}) {
            auto buf = d.allocate(size_t{std::max(rows, 1u)} * B * word);
            if (!buf)
                return buf.error();
            *dst = std::move(*buf);
        }
    }
    auto outputRows = d.allocate(std::max<size_t>(p.outputSlots.size(), 1) * B * word);
    if (!outputRows)
        return outputRows.error();
    m.outputRows_ = std::move(*outputRows);
    auto barrier = uploadArray(d, std::vector<uint32_t>{0, 0});
    if (!barrier)
        return barrier.error();
    m.barrier_ = std::move(*barrier);

    if (Status st = m.uploadConstants(m.values_.ptr(), nullptr); !st)
        return st.error();

    PlanParams &pp = m.params_;
    pp.values = m.values_.ptr();
    pp.adjoints = m.adjoints_.ptr();
    pp.opInfo = m.opInfo_.ptr();
    pp.opOut = m.opOut_.ptr();
    pp.operands = m.operands_.ptr();
    pp.slotOperands = m.slotOperands_.ptr();
    pp.levelOpBegin = m.levelOpBegin_.ptr();
    pp.levelBlockBegin = m.levelBlockBegin_.ptr();
    pp.blockOpBegin = m.blockOpBegin_.ptr();
    pp.blockLoadBegin = m.blockLoadBegin_.ptr();
    pp.blockLoads = m.blockLoads_.ptr();
    pp.edgeStart = m.edgeStart_.ptr();
    pp.edgeOut = m.edgeOut_.ptr();
    pp.edgeOperands = m.edgeOperands_.ptr();
    pp.edgeCode = m.edgeCode_.ptr();
    pp.barrier = m.barrier_.ptr();
    pp.numOps = p.numOps();
    pp.numInputs = p.numInputs;
    pp.inputBase = p.inputBase;
    pp.numLevels = p.numLevels();
    pp.outSlot = p.outputSlots[0];
    pp.partials = m.partials_.ptr();
    m.usePieces(m.allPieces_);
    pp.opPieceEdges = m.opPieces_.edges.ptr();
    pp.levelPieceBegin = m.opPieces_.levelPieceBegin.ptr();
    pp.levelSplitBegin = m.opPieces_.levelSplitBegin.ptr();
    pp.splitOp = m.opPieces_.splitOp.ptr();
    pp.splitPieceBegin = m.opPieces_.splitPieceBegin.ptr();
    pp.opPartials = m.opPieces_.partials.ptr();

    if (Status st = m.planLevelLaunches(); !st)
        return st.error();
    return m;
}

// The level kernels' launches, for the kernels in use (their registers set how many blocks fit).
Status CudaModel::planLevelLaunches() {
    if (single_)
        return Ok{};
    Device &d = *device_;
    auto fwdMax = d.maxResidentBlocks(fwdGrid_, shape_.blockThreads, tileBytes());
    auto bwdMax = d.maxResidentBlocks(bwdGrid_, shape_.blockThreads, 0);
    if (!fwdMax)
        return fwdMax.error();
    if (!bwdMax)
        return bwdMax.error();
    if (*fwdMax == 0 || *bwdMax == 0)
        return error("generated kernels cannot run " + std::to_string(shape_.blockThreads) +
                     "-thread blocks on " + d.info().name);
    forward_ = zbddc::cuda::forwardSegments(plan_, *fwdMax);
    if (!plan_.reusesSlots)
        backward_ = zbddc::cuda::backwardSegments(plan_, shape_.batch, shape_.blockThreads,
                                                  narrowWork_, *bwdMax);
    if (fullGrid_) {
        for (Segment &s : forward_)
            s.blocks = s.grid ? *fwdMax : 1;
        for (Segment &s : backward_)
            s.blocks = s.grid ? *bwdMax : 1;
    }
    return Ok{};
}

Result<CudaModel::PiecesOnDevice> CudaModel::uploadPieces(const InputPieces &q) {
    PiecesOnDevice on;
    on.pieces = q.numPieces();
    on.count = static_cast<uint32_t>(q.inputs.size());
    // Empty arrays still get a buffer: the kernel's pointers are never null.
    static const std::vector<uint32_t> kPlaceholder{0};
    for (auto [dst, src] : {std::pair{&on.edges, &q.edges},
                            {&on.begin, &q.pieceBegin},
                            {&on.inputs, &q.inputs}}) {
        auto buf = uploadArray(*device_, src->empty() ? kPlaceholder : *src);
        if (!buf)
            return buf.error();
        *dst = std::move(*buf);
    }
    return on;
}

void CudaModel::usePieces(const PiecesOnDevice &q) {
    params_.pieceEdges = q.edges.ptr();
    params_.pieceBegin = q.begin.ptr();
    params_.pieceInputs = q.inputs.ptr();
    params_.numPieces = q.pieces;
    params_.numPieceInputs = q.count;
}

// Constants live in their slots for the model's lifetime, B copies each.
Status CudaModel::uploadConstants(DevicePtr values, StreamHandle stream) {
    const DevicePlan &p = plan_;
    const size_t B = shape_.batch, word = shape_.float64 ? 8 : 4;
    if (p.constantValues.empty())
        return Ok{};
    std::vector<unsigned char> host(p.constantValues.size() * B * word);
    for (size_t k = 0; k < p.constantValues.size(); ++k)
        for (size_t l = 0; l < B; ++l) {
            const size_t at = (k * B + l) * word;
            if (shape_.float64) {
                const double v = toDevice<double>(p.constantValues[k], shape_.logSpace);
                std::memcpy(&host[at], &v, word);
            } else {
                const float v = toDevice<float>(p.constantValues[k], shape_.logSpace);
                std::memcpy(&host[at], &v, word);
            }
        }
    if (Status st = device_->upload(values + size_t{p.constantBase} * B * word, host.data(),
                                    host.size(), stream);
        !st)
        return st;
    return device_->synchronize(stream); // `host` dies here
}

unsigned CudaModel::tileBytes() const {
    return plan_.maxTileLoads * shape_.batch * (shape_.float64 ? 8 : 4);
}

Status CudaModel::launchSegments(const std::vector<Segment> &segs, FunctionHandle block,
                                 FunctionHandle grid, PlanParams &params, unsigned sharedBytes,
                                 StreamHandle stream) {
    for (const Segment &s : segs) {
        unsigned first = s.first, last = s.last;
        void *args[] = {&params, &first, &last};
        const LaunchDims dims{s.blocks, shape_.blockThreads, sharedBytes};
        Status st = s.grid ? device_->launchCooperative(grid, dims, args, stream)
                           : device_->launch(block, dims, args, stream);
        if (!st)
            return st;
    }
    return Ok{};
}

Status CudaModel::launchForward(PlanParams &params, StreamHandle stream) {
    if (Status st = adoptCompiledTypes(false); !st)
        return st;
    if (!single_)
        return launchSegments(forward_, fwdBlock_, fwdGrid_, params, tileBytes(), stream);
    SingleLaunchParams single = single_->params;
    void *args[] = {&params, &single};
    return device_->launch(fwdSingle_, {single_->blocks, single_->threads, single_->sharedBytes},
                           args, stream);
}

Status CudaModel::launchBackward(PlanParams &params, StreamHandle stream) {
    if (plan_.reusesSlots)
        return error("this model was compiled without backward support (CudaOptions::backward)");
    if (Status st = adoptCompiledTypes(false); !st)
        return st;
    if (!single_)
        return launchSegments(backward_, bwdBlock_, bwdGrid_, params, 0, stream);
    SingleLaunchParams single = single_->params;
    void *args[] = {&params, &single};
    return device_->launch(bwdSingle_, {single_->blocks, single_->threads, single_->sharedBytes},
                           args, stream);
}

Status CudaModel::runForward() {
    return launchForward(params_);
}

Status CudaModel::runBackward() {
    return launchBackward(params_);
}

Diagnostic CudaModel::badInput(size_t input) {
    return error("input x[" + std::to_string(input) +
                 "] is negative or NaN; log space needs x >= 0");
}

namespace {

// Threads for a transpose of `values` values, over ranges of lanes: one per 2^17 values (a
// thread's start costs about what 10^4 values do), at most one per core. Pathfinder's 448
// indicators × 2,048 lanes each way were microseconds a case on one thread. Where each value's
// log is taken on the way (log space), one per 2^14: std::log made packing 128,000 values 6×
// slower on one core (496 µs against 78 µs), most of the host's cost of a circuit's warm pass.
unsigned transposeThreads(size_t values, bool logs = false) {
    return threadsFor(values, size_t{1} << (logs ? 14 : 17));
}

} // namespace

size_t CudaModel::packRows(std::span<const double> vectors, size_t width, size_t first,
                           size_t count, unsigned char *host) const {
    const size_t B = shape_.batch, word = shape_.float64 ? 8 : 4;
    const unsigned threads = transposeThreads(width * B, shape_.logSpace);
    std::vector<size_t> bad(threads, width); // per thread, the first column it could not take
    onThreads(threads, [&](size_t t) {
        const size_t l0 = B * t / threads, l1 = B * (t + 1) / threads;
        for (size_t j0 = 0; j0 < width; j0 += kPackTile) {
            const size_t j1 = std::min(width, j0 + kPackTile);
            for (size_t l = l0; l < l1; ++l) {
                // Lanes past the batch's end repeat its first vector: computed, never read back.
                const double *row = &vectors[(first + (l < count ? l : 0)) * width];
                for (size_t j = j0; j < j1; ++j)
                    if (!storeInput(row[j], &host[(j * B + l) * word])) {
                        bad[t] = j;
                        return;
                    }
            }
        }
    });
    return *std::min_element(bad.begin(), bad.end());
}

void CudaModel::unpackRows(const unsigned char *host, size_t width, size_t first, size_t count,
                           std::span<double> vectors) const {
    const size_t B = shape_.batch;
    inRanges(transposeThreads(width * count), count, [&](size_t l0, size_t l1) {
        for (size_t j0 = 0; j0 < width; j0 += kPackTile) // tiled as packRows
            for (size_t l = l0; l < l1; ++l) {
                double *row = &vectors[(first + l) * width];
                for (size_t j = j0; j < std::min(width, j0 + kPackTile); ++j)
                    row[j] = unpack(host, j * B + l);
            }
    });
}

Status CudaModel::packInputs(std::span<const double> xs, size_t first, size_t count,
                             unsigned char *host) const {
    const size_t n = plan_.numInputs;
    if (const size_t bad = packRows(xs, n, first, count, host); bad < n)
        return badInput(bad);
    return Ok{};
}

double CudaModel::unpack(const unsigned char *host, size_t index) const {
    if (shape_.float64) {
        double d;
        std::memcpy(&d, host + index * 8, 8);
        return d;
    }
    float f;
    std::memcpy(&f, host + index * 4, 4);
    return f;
}

Result<unsigned char *> CudaModel::hostStaging(size_t bytes) {
    if (syncStaging_.bytes() < bytes) {
        // A copy enqueued from the old buffer may still be reading it.
        if (Status st = device_->synchronize(); !st)
            return st.error();
        // One row more than asked: a gradient pass's download is one row (the output's) longer
        // than its upload, and growing by it cost each batch a pinned allocation and free. Not
        // rounded up to a power of two: on an H100 (driver 580, bench/gpu_trace) a 1.7 MB
        // allocation after the first small one took 15-20 µs, a 2 MiB one 1.3-1.4 ms and the
        // small one's free then 0.5 ms (alarm's batched MAR through the command line 1.1x
        // b00d041's, which asked the exact size).
        const size_t row = shape_.batch * (shape_.float64 ? 8 : 4);
        auto grown = device_->allocatePinned(bytes + row);
        if (!grown)
            return grown.error();
        syncStaging_ = std::move(*grown);
    }
    return syncStaging_.data();
}

Status CudaModel::uploadInputs(std::span<const double> xs, size_t first, size_t count) {
    const size_t n = plan_.numInputs, B = shape_.batch, word = shape_.float64 ? 8 : 4;
    if (n == 0)
        return Ok{};
    auto host = hostStaging(n * B * word);
    if (!host)
        return host.error();
    if (Status st = packInputs(xs, first, count, *host); !st)
        return st;
    inputsHoldShared_ = false;
    // Not waited for: the pass's download after it, on the same stream, waits for both.
    return device_->enqueueUpload(values_.ptr() + size_t{plan_.inputBase} * B * word, *host,
                                  n * B * word);
}

Result<std::vector<double>> CudaModel::downloadSlot(uint32_t slot, size_t count, bool adjoint) {
    return downloadSlots(slot, 1, count, adjoint);
}

Status CudaModel::enqueueRaw(uint32_t first, uint32_t slots, size_t count, bool adjoint,
                             unsigned char *host) {
    const size_t B = shape_.batch, word = shape_.float64 ? 8 : 4;
    // The last slot's lanes past `count` are not needed; the ones between slots are.
    const size_t lanes = slots == 0 ? 0 : (size_t{slots} - 1) * B + count;
    const DevicePtr base = (adjoint ? adjoints_ : values_).ptr() + size_t{first} * B * word;
    if (lanes == 0)
        return Ok{};
    return device_->enqueueDownload(host, base, lanes * word);
}

Result<const unsigned char *> CudaModel::downloadRaw(uint32_t first, uint32_t slots, size_t count,
                                                     bool adjoint) {
    const size_t B = shape_.batch, word = shape_.float64 ? 8 : 4;
    auto host = hostStaging(std::max<size_t>(size_t{slots} * B * word, 1));
    if (!host)
        return host.error();
    if (Status st = enqueueRaw(first, slots, count, adjoint, *host); !st)
        return st.error();
    if (Status st = device_->synchronize(); !st)
        return st.error();
    return *host;
}

Result<std::vector<double>> CudaModel::downloadSlots(uint32_t first, uint32_t slots, size_t count,
                                                     bool adjoint) {
    auto host = downloadRaw(first, slots, count, adjoint);
    if (!host)
        return host.error();
    std::vector<double> out(size_t{slots} * count);
    for (size_t s = 0; s < slots; ++s)
        for (size_t l = 0; l < count; ++l)
            out[s * count + l] = unpack(*host, s * shape_.batch + l);
    return out;
}

Status checkBatch(std::span<const double> xs, size_t count, size_t numInputs) {
    if (xs.size() != count * numInputs)
        return error("expected " + std::to_string(count) + " vectors of " +
                     std::to_string(numInputs) + " inputs (" + std::to_string(count * numInputs) +
                     " values), got " + std::to_string(xs.size()));
    return Ok{};
}

Status CudaModel::runBatches(size_t count, bool backward, const BatchStep &upload,
                             const BatchStep &collect, StreamHandle stream) {
    for (size_t first = 0; first < count; first += shape_.batch) {
        const size_t n = std::min<size_t>(shape_.batch, count - first);
        if (Status st = upload(first, n); !st)
            return st;
        if (Status st = launchForward(params_, stream); !st)
            return st;
        if (backward)
            if (Status st = launchBackward(params_, stream); !st)
                return st;
        if (Status st = collect(first, n); !st)
            return st;
    }
    return Ok{};
}

Result<std::vector<double>> CudaModel::forwardOnly(size_t count, const BatchStep &upload) {
    const size_t outs = circuit_.numOutputs();
    std::vector<double> result(count * outs);
    Status ran = runBatches(count, false, upload, [&](size_t first, size_t n) {
        return collectOutputs(first, n, result);
    });
    if (!ran)
        return ran.error();
    return result;
}

Status CudaModel::collectOutputs(size_t first, size_t n, std::vector<double> &result) {
    const size_t outs = circuit_.numOutputs(), B = shape_.batch, word = shape_.float64 ? 8 : 4;
    if (outs == 0)
        return Ok{};
    if (outs == 1) {
        auto v = downloadSlot(plan_.outputSlots[0], n, false);
        if (!v)
            return v.error();
        std::copy(v->begin(), v->end(), result.begin() + first);
        return Ok{};
    }
    // Gathered into consecutive rows and copied at once: a copy costs ~10 µs whatever its size,
    // and a host phase's cut has a hundred outputs.
    if (Status st = moveRows(gatherRows_, outputRows_.ptr(), values_.ptr(), outputSlots_.ptr(),
                             outs);
        !st)
        return st;
    auto host = hostStaging(outs * B * word);
    if (!host)
        return host.error();
    if (Status st = device_->download(*host, outputRows_.ptr(), ((outs - 1) * B + n) * word); !st)
        return st;
    unpackRows(*host, outs, first, n, result);
    return Ok{};
}

Status CudaModel::collectGradient(size_t first, size_t n, size_t rows, CudaGradient &g,
                                  const std::function<Status(unsigned char *)> &enqueueRows) {
    const size_t B = shape_.batch, word = shape_.float64 ? 8 : 4;
    auto host = hostStaging((rows + 1) * B * word);
    if (!host)
        return host.error();
    unsigned char *outputLanes = *host + rows * B * word;
    if (Status st = enqueueRows(*host); !st)
        return st;
    if (Status st = enqueueRaw(params_.outSlot, 1, n, false, outputLanes); !st)
        return st;
    if (Status st = device_->synchronize(); !st)
        return st;
    for (size_t l = 0; l < n; ++l)
        g.values[first + l] = unpack(outputLanes, l);
    unpackRows(*host, rows, first, n, g.adjoints);
    return Ok{};
}

Result<std::vector<double>> CudaModel::evaluate(std::span<const double> xs, size_t count) {
    if (Status st = checkBatch(xs, count, plan_.numInputs); !st)
        return st.error();
    return forwardOnly(count, [&](size_t first, size_t n) { return uploadInputs(xs, first, n); });
}

Result<CudaGradient> CudaModel::adjoints(std::span<const double> xs, size_t count, size_t output) {
    if (Status st = checkBatch(xs, count, plan_.numInputs); !st)
        return st.error();
    if (output >= circuit_.numOutputs())
        return error("no output " + std::to_string(output));
    params_.outSlot = plan_.outputSlots[output];
    CudaGradient g;
    g.values.resize(count);
    g.adjoints.resize(count * plan_.numInputs);
    auto upload = [&](size_t first, size_t n) { return uploadInputs(xs, first, n); };
    Status ran = runBatches(count, true, upload, [&](size_t first, size_t n) {
        return collectGradient(first, n, plan_.numInputs, g, [&](unsigned char *host) {
            return enqueueRaw(plan_.inputBase, plan_.numInputs, n, true, host);
        });
    });
    if (!ran)
        return ran.error();
    return g;
}

Result<std::vector<double>> CudaModel::adjointsAfterForward(std::span<const double> rows,
                                                          uint32_t firstInput, uint32_t width,
                                                          size_t count, size_t output) {
    const size_t B = shape_.batch, word = shape_.float64 ? 8 : 4;
    if (plan_.reusesSlots)
        return error("this model was compiled without backward support (CudaOptions::backward)");
    if (output >= circuit_.numOutputs())
        return error("no output " + std::to_string(output));
    if (count == 0 || count > B)
        return error("a backward pass on kept values takes 1 to " + std::to_string(B) +
                     " vectors, not " + std::to_string(count));
    if (size_t{firstInput} + width > plan_.numInputs || rows.size() != count * width)
        return error("inputs out of range");
    if (width > 0) {
        auto host = hostStaging(width * B * word);
        if (!host)
            return host.error();
        if (const size_t bad = packRows(rows, width, 0, count, *host); bad < width)
            return badInput(firstInput + bad);
        if (Status st = device_->upload(values_.ptr() + (size_t{plan_.inputBase} + firstInput) *
                                                            B * word,
                                        *host, width * B * word);
            !st)
            return st.error();
    }
    params_.outSlot = plan_.outputSlots[output];
    if (Status st = runBackward(); !st)
        return st.error();
    auto a = downloadRaw(plan_.inputBase, plan_.numInputs, count, true);
    if (!a)
        return a.error();
    std::vector<double> adj(count * plan_.numInputs);
    unpackRows(*a, plan_.numInputs, 0, count, adj);
    return adj;
}

Result<std::vector<uint32_t>> CudaModel::traceback(std::span<const double> x, size_t output) {
    if (plan_.reusesSlots)
        return error("traceback needs every forward value (compile with CudaOptions::backward)");
    if (output >= circuit_.numOutputs())
        return error("no output " + std::to_string(output));
    if (Status st = checkBatch(x, 1, plan_.numInputs); !st)
        return st.error();
    if (Status st = uploadInputs(x, 0, 1); !st)
        return st.error();
    if (Status st = runForward(); !st)
        return st.error();
    auto slotValue = downloadSlots(0, plan_.numSlots, 1, false); // lane 0 of every slot
    if (!slotValue)
        return slotValue.error();
    return tracebackPlan(plan_, shape_.semiring, shape_.logSpace, *slotValue,
                         plan_.outputSlots[output]);
}

Status CudaModel::poisonResults() {
    const size_t B = shape_.batch, word = shape_.float64 ? 8 : 4;
    const size_t firstOp = plan_.firstComputedSlot;
    // All-ones bytes are a NaN in float32 and float64 alike.
    if (plan_.numSlots > firstOp)
        if (Status st = device_->fill(values_.ptr() + firstOp * B * word, 0xff,
                                      (plan_.numSlots - firstOp) * B * word);
            !st)
            return st;
    if (adjoints_.ptr())
        if (Status st = device_->fill(adjoints_.ptr(), 0xff, size_t{plan_.numSlots} * B * word);
            !st)
            return st;
    return device_->synchronize();
}

static Result<double> medianTime(Device &d, int reps, const std::function<Status()> &body) {
    std::vector<double> ms;
    for (int r = 0; r < std::max(reps, 1); ++r) {
        auto t = d.time(nullptr, body);
        if (!t)
            return t.error();
        ms.push_back(*t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

Result<double> CudaModel::timeForward(int reps) {
    if (Status st = runForward(); !st) // warm-up
        return st.error();
    return medianTime(*device_, reps, [&] { return runForward(); });
}

Result<double> CudaModel::timeForwardBackward(int reps) {
    auto both = [&]() -> Status {
        if (Status st = runForward(); !st)
            return st;
        return runBackward();
    };
    if (Status st = both(); !st)
        return st.error();
    return medianTime(*device_, reps, both);
}

} // namespace zbddc::cuda
