// A circuit compiled for one GPU from its Schedule: the generated kernels (NVRTC, cached), the
// DevicePlan's arrays and the value/adjoint buffers on the device, and the launch sequence.
// Latency mode is B = 1; throughput mode is B > 1 lanes, lane-fastest. The library API the
// runtime calls (runtime/cuda_circuit.h builds the schedule of a circuit and compiles it).
#pragma once

#include "backends/cuda/device_plan.h"
#include "backends/cuda/driver.h"
#include "backends/cuda/kernel_source.h"
#include "backends/cuda/nvrtc.h"
#include "backends/cuda/single_launch.h"
#include "ir/circuit.h"
#include "ir/input_batch.h"
#include "ir/schedule.h"
#include "ir/traced_terms.h"
#include "support/gpu_settings.h" // OpTypeKernels

#include <cmath>
#include <cstring>
#include <functional>
#include <future>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace zbddc::cuda {

enum class Precision : uint8_t { Float32, Float64 };

struct CudaOptions {
    std::optional<Semiring> semiring; // default: the circuit's own
    Precision precision = Precision::Float64;
    bool logSpace = false; // natural-log values: no underflow (product semirings)
    uint32_t batch = 1;    // B lanes per launch; larger batches run in chunks of B
    bool backward = true;  // keep every value for adjoints; false: reuse dead slots
    int device = 0;
    uint32_t blockThreads = 1024;
    // A level with at most this many work items (ops × B) runs inside one block (barrier
    // __syncthreads, ~0.04 µs) rather than across the grid (~1-2 µs per grid barrier): what the
    // schedule's phase split is given (cudaPipelineOptions).
    uint32_t narrowWork = 2048;
    // Grid segments use every resident block rather than just enough for their widest level
    // (benchmarks use it to measure a full-grid barrier).
    bool fullGrid = false;
    // One launch per pass (single_launch.h) rather than one per run of levels. Unset: where the
    // circuit fits (planSingleLaunch); true: wherever it can run (slots past shared memory in
    // global memory); false: the level kernels.
    std::optional<bool> singleLaunch;
    // How the op types reach the kernels (support/gpu_settings.h): compiled in; read as data
    // (kernel_source.h, InterpretedTypes) by kernels whose one module serves every circuit of a
    // kernel shape; or, where the disk cache lacks the compiled module (and nvrtc.useCache),
    // interpreted while that module compiles on another thread, the passes taking it up once it
    // is ready. Compiled here; the process's setting, which engines pass, defaults to the third.
    OpTypeKernels opTypes = OpTypeKernels::Compiled;
    NvrtcOptions nvrtc; // arch is taken from the device
};

// One launch: op levels (or backward steps) [first, last) in one block or across the grid.
struct Segment {
    bool grid = false;
    uint32_t first = 0, last = 0;
    uint32_t blocks = 1;
};

// The launches of a plan's phases: each run of one-block levels one launch of one block, each run
// of grid levels one cooperative launch of as many blocks as its largest level has (at most
// `maxGridBlocks`). The backward steps mirror the forward levels, last level first, each of
// `width × B` items over `blockThreads`-thread blocks; then the inputs' two steps (their edges in
// pieces, then each input's pieces summed: InputPieces), which have no level in the schedule: on
// the grid when their items exceed `narrowWork`, the phase split's own rule (a circuit's
// thousands of parameters in one block cost 10× its whole backward pass).
std::vector<Segment> forwardSegments(const DevicePlan &plan, uint32_t maxGridBlocks);
std::vector<Segment> backwardSegments(const DevicePlan &plan, uint32_t batch,
                                      uint32_t blockThreads, uint32_t narrowWork,
                                      uint32_t maxGridBlocks);

struct CudaGradient {
    std::vector<double> values;   // per vector: the output's value
    std::vector<double> adjoints; // per vector, numInputs each: ∂out/∂x[i] (logs in log space)
};

// What a batch enqueued on a caller's stream gives back (CudaModel::enqueue): every output of
// every vector, and where asked the adjoints of one output (logs in log space, as evaluate()).
struct BatchValues {
    std::vector<double> outputs;       // count × numOutputs
    std::vector<double> adjoints;      // count × numInputs, or empty (forward only)
    std::optional<TracedTerms> traced; // where asked: one optimal term per vector (its states)
};

// A batch enqueued by CudaModel::enqueue: the event recorded after its last copy, and where in
// the model's pinned staging its copies read and write. Destroying it waits for that event first
// (the staging is reused by the next batch); it must not outlive its CudaModel.
class EnqueuedBatch {
  public:
    EnqueuedBatch() = default;
    EnqueuedBatch(EnqueuedBatch &&o) noexcept { *this = std::move(o); }
    EnqueuedBatch &operator=(EnqueuedBatch &&o) noexcept;
    EnqueuedBatch(const EnqueuedBatch &) = delete;
    EnqueuedBatch &operator=(const EnqueuedBatch &) = delete;
    ~EnqueuedBatch();

    // Whether the stream has reached the event (never blocks).
    Result<bool> ready() const;

  private:
    friend class CudaModel;
    Device *device_ = nullptr;
    EventHandle done_ = nullptr;
    const unsigned char *out_ = nullptr; // the model's staging, the results' half
    bool *stagingBusy_ = nullptr;        // the model's flag, cleared once the event is reached
    size_t count_ = 0;
    size_t chunkBytes_ = 0; // one launch's results in out_
    bool adjoints_ = false;
    bool traced_ = false;
    void finish(); // waits for the event, frees it and the staging
};

class CudaModel {
  public:
    const DeviceInfo &device() const { return device_->info(); }
    const KernelShape &shape() const { return shape_; }
    const DevicePlan &plan() const { return plan_; }
    const std::vector<Segment> &forwardSegments() const { return forward_; }
    const std::vector<Segment> &backwardSegments() const { return backward_; }
    // The single-launch plan where the passes run that way (CudaOptions::singleLaunch).
    const std::optional<SingleLaunchPlan> &singleLaunch() const { return single_; }
    bool compiledFromCache() const { return fromCache_; }
    // Whether the passes run the interpreted kernels (CudaOptions::opTypes), and waiting
    // for the module compiled for the circuit's types where it is being built, then taking it up.
    bool interpretedTypes() const { return shape_.interpreted; }
    Status awaitCompiledTypes() { return adoptCompiledTypes(true); }
    std::string numericName() const; // "float64", "float32", "log-float64", "log-float32"

    // `xs` holds `count` input vectors, numInputs each (row-major; always linear values). Returns
    // count × numOutputs output values (natural logs in log space).
    Result<std::vector<double>> evaluate(std::span<const double> xs, size_t count);
    // Forward then backward from one output, for each vector.
    Result<CudaGradient> adjoints(std::span<const double> xs, size_t count, size_t output);
    // Forward then backward from one output over a batch of shared and varying inputs
    // (ir/input_batch.h): the shared inputs are packed into every lane and uploaded only when
    // they (or the varying set) differ from the last such batch's, then kept on the device; per
    // launch only the varying inputs' rows go in (one copy and a scatter kernel) and only their
    // adjoints come back (a gather kernel and one copy). `adjoints`: count × varying.size().
    Result<CudaGradient> adjointsOfVarying(const InputBatch &batch, size_t output);
    // evaluate() over such a batch, moving its inputs as adjointsOfVarying does.
    Result<std::vector<double>> evaluateVarying(const InputBatch &batch);
    // After evaluate() of `count` <= B vectors, its forward values still on the device (no call
    // between): inputs [firstInput, firstInput + width) replaced by `rows` (count × width), then
    // the backward pass from `output` alone: count × numInputs adjoints. Right only where no
    // value the backward pass reads depends on those inputs (runtime/engine_host_phases.h: the
    // weights of a seed output, read by nothing but its products).
    Result<std::vector<double>> adjointsAfterForward(std::span<const double> rows,
                                                     uint32_t firstInput, uint32_t width,
                                                     size_t count, size_t output);
    // evaluateVarying, or with `adjointsOf` adjointsOfVarying from that output, over a batch
    // whose varying values are already in this GPU's memory, writing the outputs (and the varying
    // inputs' adjoints) to the caller's device memory (ir/input_batch.h's DeviceInputBatch): per
    // launch of B lanes one kernel moves the values into their rows (zb_rows_from_cases, the log
    // taken there in log space: it may differ from the host's std::log in the last bit, and a
    // negative value gives NaN rather than an error), the passes run and one kernel per result
    // writes it out (zb_cases_from_rows). Nothing is copied from or to the host once the shared
    // inputs are kept (as keepShared keeps them). Enqueued on `stream` (a CUstream of this GPU's
    // primary context) and returning at once, later work on it running after; where `stream` is
    // null, on the legacy default stream and waited for. No other call on this model until the
    // stream has run it: it runs in the model's own device buffers.
    Status passOnDevice(const DeviceInputBatch &batch, std::optional<size_t> adjointsOf,
                        StreamHandle stream = nullptr);
    // Max/min semirings: the inputs on one optimal term of the output for one vector, traced on
    // the host through the forward values computed on the device (plan_traceback.h).
    Result<std::vector<uint32_t>> traceback(std::span<const double> x, size_t output);
    // Max/min semirings, over a batch moved as evaluateVarying moves it: the forward pass, then
    // one lane per case traces an optimal term of `output` on the device (traceback_kernel.inc)
    // and only the variables' states come back: no backward pass, no slot's values.
    Result<TracedTerms> tracebackOfVarying(const InputBatch &batch, size_t output);

    // Asynchronous forward on one of two stream slots (the runtime API's asynchronous variant):
    // `submit` converts `count` <= batch vectors into the slot's pinned buffer, enqueues the copy
    // in, the kernels and the copies out on the slot's own stream (own value buffer and barrier)
    // and returns at once; `collect` waits for that slot and returns count × numOutputs values.
    // Each slot's value buffer is poisoned (NaN) when it is first made.
    Status submit(unsigned slot, std::span<const double> xs, size_t count);
    Result<std::vector<double>> collect(unsigned slot);
    // The stream a slot's work is enqueued on (created on first use).
    Result<StreamHandle> slotStream(unsigned slot);
    // Any number of vectors (beyond device memory too: only two batches live there) in batches
    // alternating between the two slots: batch i+1's copies and the host's conversion of batch
    // i+2 overlap batch i's kernels. Same results as evaluate().
    Result<std::vector<double>> evaluateStreamed(std::span<const double> xs, size_t count);
    static constexpr unsigned kStreamSlots = 2;

    // On a stream the caller owns (a CUstream of this GPU's primary context; nullptr is the
    // legacy default stream, whose copies block): `count` vectors, any number, converted into
    // pinned memory now, then per launch of B lanes the copy in, the forward kernels (and the
    // backward ones from output `adjointsOf`) and the copies out enqueued, and an event recorded
    // after them; returns at once. Work the caller enqueues later on `stream` runs after it.
    // With `tracebackOf` (max/min semirings, instead of adjoints) each lane walks an optimal term
    // of that output after the forward pass and only the variables' states come back, as
    // tracebackOfVarying does synchronously.
    // It runs in the model's own device buffers: no other call on this model until results().
    // The pinned staging is the model's, kept and grown (allocating or freeing pinned memory may
    // synchronise the device), so one batch at a time is enqueued.
    Result<EnqueuedBatch> enqueue(std::span<const double> xs, size_t count,
                                  std::optional<size_t> adjointsOf, StreamHandle stream,
                                  std::optional<size_t> tracebackOf = std::nullopt);
    // Waits for the batch's event (not the stream's later work) and unpacks its values.
    Result<BatchValues> results(EnqueuedBatch &batch) const;

    // Fills every computed slot and adjoint with NaN, so a test sees any value a kernel skipped.
    Status poisonResults();

    // Device time (ms, median of `reps`) of the forward or forward+backward launches alone, on
    // the inputs last uploaded.
    Result<double> timeForward(int reps);
    Result<double> timeForwardBackward(int reps);

    // Bytes a forward pass must move through device memory at least when every op's result goes
    // through memory: each result written once and read once, each input read once (× B lanes).
    double minimumForwardBytes() const;
    // Likewise for a backward pass: each adjoint (ops' and inputs') written once, each op's read
    // once by the gathers below it, each op's and input's value read once for the coefficients.
    double minimumBackwardBytes() const;
    // Operand traffic as issued (2 or 3 reads and a write per op): what L2 and DRAM serve together.
    double operandBytes() const;

  private:
    friend Result<CudaModel> compilePlan(const Circuit &, DevicePlan, const CudaOptions &);
    // One stream's private working set; see submit().
    struct StreamSlot {
        StreamSlot() = default;
        StreamSlot(StreamSlot &&o) noexcept { *this = std::move(o); }
        StreamSlot &operator=(StreamSlot &&o) noexcept;
        ~StreamSlot();
        Device *device = nullptr;
        StreamHandle stream = nullptr;
        DeviceBuffer values, barrier;
        PinnedBuffer in, out;
        PlanParams params;
        size_t count = 0; // vectors in flight; 0 when idle
    };
    Result<StreamSlot *> streamSlot(unsigned slot);
    Status uploadConstants(DevicePtr values, StreamHandle stream);
    // Inputs x[first, first+count) in the device layout (lane-fastest, logs in log space).
    Status packInputs(std::span<const double> xs, size_t first, size_t count,
                      unsigned char *host) const;
    // The transposes both ways between case-major vectors of `width` values and the device's
    // rows (B lanes apart), on several threads where they are large: vectors [first, first +
    // count) packed into `host` (the lanes past them repeat vector `first`), returning a column
    // log space cannot take (the least found) or `width`; and `count` lanes of `host` back into
    // vectors [first, first + count).
    size_t packRows(std::span<const double> vectors, size_t width, size_t first, size_t count,
                    unsigned char *host) const;
    void unpackRows(const unsigned char *host, size_t width, size_t first, size_t count,
                    std::span<double> vectors) const;
    double unpack(const unsigned char *host, size_t index) const;
    Status uploadInputs(std::span<const double> xs, size_t first, size_t count);
    // One input value as the device holds it, at `at` (a log in log space); false where log
    // space cannot take it (negative or NaN: badInput says so).
    bool storeInput(double v, unsigned char *at) const {
        if (shape_.logSpace && !(v >= 0))
            return false;
        if (shape_.float64) {
            const double t = toDevice<double>(v, shape_.logSpace);
            std::memcpy(at, &t, sizeof t);
        } else {
            const float t = toDevice<float>(v, shape_.logSpace);
            std::memcpy(at, &t, sizeof t);
        }
        return true;
    }
    static Diagnostic badInput(size_t input);
    template <class T> static T toDevice(double v, bool log) {
        return static_cast<T>(log ? std::log(v) : v);
    }
    // adjointsOfVarying's parts (backends/cuda/varying_inputs.cpp): the shared inputs into every
    // lane, where the device does not hold them already; vectors [first, first + count)'s varying
    // inputs into their rows (copy enqueued, not waited for); the copy of the varying inputs'
    // adjoints of the last `count` lanes into `host` (row j at j × B) enqueued.
    Status keepShared(std::span<const double> shared, std::span<const uint32_t> varying);
    bool holdsShared(std::span<const double> shared, std::span<const uint32_t> varying) const;
    Status uploadVarying(const InputBatch &batch, size_t first, size_t count);
    Status enqueueVaryingAdjoints(size_t count, unsigned char *host);
    Status moveRows(FunctionHandle kernel, DevicePtr to, DevicePtr from, DevicePtr slots,
                    size_t rows);
    // The shared vector into every lane of the input rows: its values copied once, each row
    // filled on the device (all lanes packed on the host were 60 MB for water's 3,646 inputs at
    // 2,048 lanes, tens of milliseconds a batch's first call).
    Status broadcastInputs(std::span<const double> shared);
    Status runForward();
    Status runBackward();
    // The module's kernels (interpreted_types.cpp): compiled for the circuit's types, or the
    // interpreted ones, with the compiled module started on another thread; the passes' kernels
    // of the compiled module once it is ready (or, with `wait`, once it is built); the level
    // kernels' launches for the kernels in use.
    Status loadKernels(const CudaOptions &options);
    Status lookUpKernels(const Module &module, bool passKernelsOnly);
    Status adoptCompiledTypes(bool wait);
    Status planLevelLaunches();
    // One pass's launches over `params` on `stream`: the single-launch kernel where the model
    // has its plan, else the level kernels' segments.
    Status launchForward(PlanParams &params, StreamHandle stream = nullptr);
    Status launchBackward(PlanParams &params, StreamHandle stream = nullptr);
    // The forward pass (then the backward one, with `backward`) over `count` vectors, a batch of
    // at most B at a time: upload(first, n) puts a batch's n vectors in, collect(first, n) reads
    // its results.
    // The launches go on `stream` (the legacy default one where null).
    using BatchStep = std::function<Status(size_t first, size_t n)>;
    Status runBatches(size_t count, bool backward, const BatchStep &upload,
                      const BatchStep &collect, StreamHandle stream = nullptr);
    // The forward pass's outputs over `count` vectors put in by `upload` (count × numOutputs).
    Result<std::vector<double>> forwardOnly(size_t count, const BatchStep &upload);
    // The outputs of the last pass's `n` lanes into rows [first, first + n) of `result`.
    Status collectOutputs(size_t first, size_t n, std::vector<double> &result);
    // A backward pass's results for vectors [first, first + n) into `g`: `rows` rows of adjoints
    // (row j at j × B; their copy enqueued by `enqueueRows` into the pinned buffer it is given)
    // and the output's lanes, both copied, then one wait.
    Status collectGradient(size_t first, size_t n, size_t rows, CudaGradient &g,
                           const std::function<Status(unsigned char *)> &enqueueRows);
    // The batched traceback's arrays (plan_traceback.h's TracebackArrays), uploaded on first
    // use, and its launch over the last pass's `lanes` lanes from `outSlot`.
    Status uploadTracebackArrays();
    Status launchTraceback(uint32_t outSlot, size_t lanes, StreamHandle stream = nullptr);
    // A walk's results as the device leaves them (each variable's row of B lanes, then the
    // lanes' statuses: uint32 words) into rows [first, first + lanes) of `t`.
    void unpackTraced(const uint32_t *words, size_t first, size_t lanes, TracedTerms &t) const;
    // Whether the walks' tie reports hold (TracedTerms::tied): float64 values only, as float32
    // rounds by far more than the tie tolerance.
    bool tiesTold() const { return shape_.float64; }
    Status launchSegments(const std::vector<Segment> &segs, FunctionHandle block,
                          FunctionHandle grid, PlanParams &params, unsigned sharedBytes,
                          StreamHandle stream = nullptr);
    unsigned tileBytes() const; // a forward block's dynamic shared memory: its preloaded tile
    // The synchronous calls' pinned host buffer, grown to `bytes` and kept: a copy from or to
    // pinned memory is one DMA, where pageable memory goes through the driver's own bounce
    // buffer (and a fresh vector per batch was zero-filled first).
    Result<unsigned char *> hostStaging(size_t bytes);
    // Slots [first, first + slots), as the device holds them (B lanes apart), into hostStaging
    // and waited for; or into `host` (pinned, slots × B words), enqueued only.
    Status enqueueRaw(uint32_t first, uint32_t slots, size_t count, bool adjoint,
                      unsigned char *host);
    Result<const unsigned char *> downloadRaw(uint32_t first, uint32_t slots, size_t count,
                                              bool adjoint);
    Result<std::vector<double>> downloadSlot(uint32_t slot, size_t count, bool adjoint);
    // Slots [first, first + slots) in one copy (each B lanes apart): slot-major, `count` lanes
    // each. A copy costs ~10 µs whatever its size, so a circuit's thousands of inputs go at once.
    Result<std::vector<double>> downloadSlots(uint32_t first, uint32_t slots, size_t count,
                                              bool adjoint);

    // Case-major vectors to the device's lane-fastest slots is a transpose: in tiles of kPackTile
    // inputs, so a lane's row is read in runs and the tile's destination lines stay in cache (an
    // input at a time read every row at a stride of all the inputs: ~20 ns a value on 3,646).
    static constexpr size_t kPackTile = 64;

    Circuit circuit_; // outputs, inputs and kinds, for output slots and traceback
    KernelShape shape_;
    DevicePlan plan_;
    Device *device_ = nullptr;
    Module module_;
    // The module compiled for the circuit's types while the interpreted one runs (its result, on
    // another thread), then that module: module_ stays loaded, as its row and traceback kernels
    // stay in use and passes launched from it may still be in flight.
    std::future<Result<CompiledImage>> compiling_;
    Module compiledModule_;
    DeviceBuffer typeBegin_, coefBegin_, typeSteps_; // InterpretedTypes, for interpreted kernels
    uint32_t narrowWork_ = 0;                        // CudaOptions' for planLevelLaunches
    bool fullGrid_ = false;
    FunctionHandle fwdBlock_ = nullptr, fwdGrid_ = nullptr, bwdBlock_ = nullptr, bwdGrid_ = nullptr;
    FunctionHandle scatterRows_ = nullptr, gatherRows_ = nullptr, broadcastRows_ = nullptr;
    FunctionHandle rowsFromCases_ = nullptr, casesFromRows_ = nullptr; // passOnDevice's
    FunctionHandle traceback_ = nullptr; // max/min semirings only
    FunctionHandle fwdSingle_ = nullptr, bwdSingle_ = nullptr;
    std::optional<SingleLaunchPlan> single_;
    DeviceBuffer values_, adjoints_, opInfo_, opOut_, operands_, slotOperands_, levelOpBegin_,
        levelBlockBegin_, blockOpBegin_, blockLoadBegin_, blockLoads_, edgeStart_, edgeOut_,
        edgeOperands_, edgeCode_, barrier_;
    DeviceBuffer outputSlots_, outputRows_; // the outputs' slots, and their rows gathered
    PlanParams params_;
    std::vector<Segment> forward_, backward_;
    std::vector<StreamSlot> slots_;
    PinnedBuffer staging_;     // enqueue()'s inputs then outputs, one batch at a time
    PinnedBuffer syncStaging_; // the synchronous calls' copies (hostStaging)
    bool stagingBusy_ = false;
    bool fromCache_ = false;
    // The varying-input batches' state: the shared inputs the device's input rows hold (false
    // once any other call writes those rows), the varying inputs' slots on the device, and the
    // packed rows that carry their values in and their adjoints back.
    bool inputsHoldShared_ = false;
    std::vector<double> keptShared_;
    std::vector<uint32_t> keptVarying_;
    // The varying inputs are consecutive (a circuit's literal weights): their rows go in and come
    // back as the device holds them, with no scatter or gather.
    bool varyingInPlace_ = false;
    DeviceBuffer varyingSlots_, varyingRows_, sharedRow_;
    // The inputs' backward step in pieces (InputPieces): for every input, and for the inputs a
    // varying batch varies (what adjointsOfVarying reads back), with one partial row per piece
    // of the first (the most there can be). params_ points at the first between calls.
    struct PiecesOnDevice {
        DeviceBuffer edges, begin, inputs;
        uint32_t pieces = 0, count = 0;
    };
    Result<PiecesOnDevice> uploadPieces(const InputPieces &pieces);
    void usePieces(const PiecesOnDevice &pieces);
    PiecesOnDevice allPieces_, varyingPieces_;
    DeviceBuffer partials_;
    // The levels' gathers in pieces for the single-launch backward (OpPieces), a partial row per
    // piece.
    struct OpPiecesOnDevice {
        DeviceBuffer edges, levelPieceBegin, levelSplitBegin, splitOp, splitPieceBegin, partials;
    };
    OpPiecesOnDevice opPieces_;
    struct TracebackOnDevice {
        DeviceBuffer producer, codeBegin, code, indicator, states, status;
        uint32_t maxSteps = 0;
    };
    std::optional<TracebackOnDevice> traced_;
};

// Ok when `xs` holds `count` vectors of `numInputs` values each; otherwise what it holds.
Status checkBatch(std::span<const double> xs, size_t count, size_t numInputs);

// Compiles a Schedule from the passes (cudaPipelineOptions: merged op types, levels and their
// phases, blocks, shared-memory tiles, slots) — the backend's one plan. `circuit` is the one it
// was built from (outputs and inputs). Backward needs a schedule without slot reuse
// (PipelineOptions::keepValues).
Result<CudaModel> compileCuda(const Circuit &circuit, const Schedule &schedule,
                              const CudaOptions &options);
// Compiles a ready DevicePlan.
Result<CudaModel> compilePlan(const Circuit &circuit, DevicePlan plan, const CudaOptions &options);

// The kernel shape these options give for a plan (its type catalogue), or why they are invalid.
Result<KernelShape> kernelShapeFor(Semiring semiring, const DevicePlan &plan,
                                   const CudaOptions &options);
// --emit=cu and --emit=ptx for a schedule: no GPU needed (PTX for options.nvrtc.arch).
Result<std::string> emitCudaSource(const Schedule &schedule, const CudaOptions &options = {});
Result<std::string> emitPtx(const Schedule &schedule, const CudaOptions &options = {});

} // namespace zbddc::cuda
