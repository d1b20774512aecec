#include "backends/tensor/cuda/device/gpu_tensor_device.h"

#include "backends/tensor/cuda/device/op_launch.h"
#include "backends/tensor/cuda/device/packed_inputs.h"
#include "backends/tensor/cuda/device/staged_copies.h"
#include "ir/try.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>

namespace zbddc::cuda {

namespace {

std::mutex resourcesMutex;
std::map<Device *, std::vector<GpuDeviceResources>> &freeResources() {
    static auto *lists = new std::map<Device *, std::vector<GpuDeviceResources>>; // never freed
    return *lists;
}
GpuDeviceResources takeResources(Device &d) {
    std::lock_guard lock(resourcesMutex);
    std::vector<GpuDeviceResources> &list = freeResources()[&d];
    if (list.empty())
        return {};
    GpuDeviceResources r = std::move(list.back());
    list.pop_back();
    return r;
}
void giveResources(Device &d, GpuDeviceResources r) {
    std::lock_guard lock(resourcesMutex);
    freeResources()[&d].push_back(std::move(r));
}

bool sameLevels(std::span<const std::vector<DeviceTask>> a,
                std::span<const std::vector<DeviceTask>> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto &x, const auto &y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const auto &s, const auto &t) {
            return s.op == t.op && s.device == t.device && s.out == t.out;
        });
    });
}

} // namespace

GpuTensorDevice::GpuTensorDevice(Device &d, const TensorProgram &p, const GpuDeviceOptions &o,
                                 TensorModules modules)
    : d_(d), p_(p), options_(o), modules_(std::move(modules)), at_(p.tables.size(), 0),
      owned_(p.tables.size()), held_(p.tables.size()),
      entryBytes_(o.kernels.float32 ? sizeof(float) : sizeof(double)), kept_(takeResources(d)) {
    if (!kept_.launcher)
        kept_.launcher = std::make_unique<LevelLauncher>(d);
}

Result<std::unique_ptr<GpuTensorDevice>> GpuTensorDevice::open(Device &d,
                                                               const TensorProgram &program,
                                                               const GpuDeviceOptions &options,
                                                               TensorModules modules) {
    std::unique_ptr<GpuTensorDevice> g(
        new GpuTensorDevice(d, program, options, std::move(modules)));
    auto entry = g->kept_.launcher->entry(options.streams);
    if (!entry)
        return entry.error();
    g->entry_ = *entry;
    if (!g->kept_.ready) {
        auto e = d.createEvent(false);
        if (!e)
            return e.error();
        g->kept_.ready = *e;
    }
    return g;
}

// Waited for first (a failed run may leave work in flight), so the next run's tables and staging
// are its own.
GpuTensorDevice::~GpuTensorDevice() {
    (void)kept_.launcher->synchronizeAll();
    prepared_.reset(); // its graph with it
    giveResources(d_, std::move(kept_));
}

Status GpuTensorDevice::reserve(uint32_t t, RowSpan rows) {
    const RowSpan old = held_[t];
    if (old.rows && old.contains(rows)) // an ordered run holds every widest range already
        return Ok{};
    if (!rows.contains(old))
        return error("internal error: a reserve of table " + std::to_string(t) +
                     " drops rows the device holds");
    auto buf = d_.allocate(std::max<uint64_t>(rows.rows, 1) * entryBytes_);
    if (!buf)
        return buf.error();
    if (old.rows) { // the rows held so far move into the larger range
        ZBDDC_TRY(d_.copy(buf->ptr() + (old.first - rows.first) * entryBytes_, at_[t],
                          old.rows * entryBytes_, entry_));
        ZBDDC_TRY(d_.synchronize(entry_));
    }
    at_[t] = buf->ptr();
    owned_[t] = std::move(*buf);
    held_[t] = rows;
    forgetPrepared();
    return Ok{};
}

// Back to the pool at once: what is enqueued later on the entry stream runs after what read it.
Status GpuTensorDevice::release(uint32_t t) {
    owned_[t] = DeviceBuffer{};
    at_[t] = 0;
    held_[t] = {};
    forgetPrepared();
    return Ok{};
}

// Enqueued from pinned staging (converted to floats there where the tables are floats).
Status GpuTensorDevice::upload(uint32_t t, uint64_t first, std::span<const double> v) {
    ZBDDC_TRY(checkHeld("an upload", t, {first, v.size()}));
    if (options_.stagedUploads && !options_.kernels.float32) {
        auto staging = StagedCopies::of(d_);
        if (!staging)
            return staging.error();
        return (*staging)->upload(address(t, first), v.data(), v.size() * sizeof(double), entry_);
    }
    auto staged = stage(v.size() * entryBytes_);
    if (!staged)
        return staged.error();
    writeTableImage(v, options_.kernels.float32, *staged);
    return d_.upload(address(t, first), *staged, v.size() * entryBytes_, entry_);
}

Status GpuTensorDevice::uploadTables(std::span<const uint32_t> tables,
                                     std::span<const std::span<const double>> values) {
    const auto padded = [&](size_t i) { return packedPieceBytes(values[i].size() * entryBytes_); };
    DevicePtr lo = ~DevicePtr{0}, hi = 0;
    uint64_t bytes = 0;
    bool sideBySide = !tables.empty() && packed_.bytes() && !options_.stagedUploads;
    for (size_t i = 0; i < tables.size() && sideBySide; ++i) {
        const uint32_t t = tables[i];
        ZBDDC_TRY(checkHeld("an upload", t, {0, values[i].size()}));
        sideBySide = held_[t].first == 0 && packed_.ptr() <= at_[t] &&
                     at_[t] + padded(i) <= packed_.ptr() + packed_.bytes();
        lo = std::min(lo, at_[t]);
        hi = std::max(hi, at_[t] + padded(i));
        bytes += padded(i);
    }
    if (!sideBySide || hi - lo != bytes) { // apart, or some table twice
        for (size_t i = 0; i < tables.size(); ++i)
            ZBDDC_TRY(upload(tables[i], 0, values[i]));
        return Ok{};
    }
    auto staged = stage(hi - lo);
    if (!staged)
        return staged.error();
    for (size_t i = 0; i < tables.size(); ++i)
        writeTableImage(values[i], options_.kernels.float32, *staged + (at_[tables[i]] - lo));
    return d_.upload(lo, *staged, hi - lo, entry_);
}

Status GpuTensorDevice::download(uint32_t t, uint64_t first, std::span<double> v) {
    ZBDDC_TRY(checkHeld("a download", t, {first, v.size()}));
    const auto copy = [&](void *dst, size_t bytes) -> Status {
        if (!options_.stagedDownloads) // complete on return, in the entry stream's order
            return d_.download(dst, address(t, first), bytes, entry_);
        auto staging = StagedCopies::of(d_);
        if (!staging)
            return staging.error();
        return (*staging)->download(dst, address(t, first), bytes, entry_);
    };
    if (!options_.kernels.float32) {
        ZBDDC_TRY(copy(v.data(), v.size() * sizeof(double)));
        return d_.synchronize(entry_);
    }
    std::vector<float> narrow(v.size());
    ZBDDC_TRY(copy(narrow.data(), narrow.size() * sizeof(float)));
    ZBDDC_TRY(d_.synchronize(entry_));
    std::copy(narrow.begin(), narrow.end(), v.begin()); // exact: integers below 2^24
    return Ok{};
}

Status GpuTensorDevice::downloadTables(std::span<const uint32_t> tables,
                                       std::span<const std::span<double>> out) {
    const auto batched = [&](size_t i) {
        return out[i].size() * entryBytes_ <= kBatchedDownloadBytes;
    };
    // The fetched block (holdFetched) comes back in one copy, other tables one copy each.
    bool block = false;
    size_t bytes = 0;
    for (size_t i = 0; i < tables.size(); ++i) {
        if (!batched(i))
            continue;
        ZBDDC_TRY(checkHeld("a download", tables[i], {0, out[i].size()}));
        if (inFetchedBlock(tables[i]))
            block = true;
        else
            bytes += stagedBytes(out[i].size() * entryBytes_);
    }
    const size_t blockBytes = block ? stagedBytes(fetched_.bytes()) : 0;
    // Carved below as stage() would: one call, so the staging cannot move under the copies.
    auto staged = stage(blockBytes + bytes);
    if (!staged)
        return staged.error();
    if (block)
        ZBDDC_TRY(d_.download(*staged, fetched_.ptr(), fetched_.bytes(), entry_));
    std::vector<unsigned char *> at(tables.size(), nullptr);
    unsigned char *next = *staged + blockBytes;
    for (size_t i = 0; i < tables.size(); ++i) {
        if (!batched(i))
            continue;
        if (inFetchedBlock(tables[i])) {
            at[i] = *staged + (at_[tables[i]] - fetched_.ptr());
            continue;
        }
        at[i] = next;
        ZBDDC_TRY(d_.download(next, address(tables[i], 0), out[i].size() * entryBytes_, entry_));
        next += stagedBytes(out[i].size() * entryBytes_);
    }
    ZBDDC_TRY(d_.synchronize(entry_));
    for (size_t i = 0; i < tables.size(); ++i) {
        if (!at[i]) {
            ZBDDC_TRY(download(tables[i], 0, out[i]));
        } else if (options_.kernels.float32) { // exact: integers below 2^24
            const auto *narrow = reinterpret_cast<const float *>(at[i]);
            std::copy(narrow, narrow + out[i].size(), out[i].begin());
        } else {
            std::memcpy(out[i].data(), at[i], out[i].size() * sizeof(double));
        }
    }
    return Ok{};
}

// The small inputs' ranges in one block filled by one copy (packed_inputs.h), the small tables
// read back after every run (the program's fetch list) in another, each other range a block of its
// own.
Status GpuTensorDevice::holdAll(std::span<const TableReserve> ranges,
                                std::span<const std::span<const double>> inputs) {
    forgetPrepared();
    std::vector<uint64_t> bytes;
    for (const TableReserve &r : ranges)
        bytes.push_back(r.rows.rows * entryBytes_);
    const PackedInputs packed =
        packSmallInputs(bytes, [&](size_t i) { return !inputs[ranges[i].table].empty(); });
    if (packed.bytes) { // enqueued before any other staging, which may reuse the buffer
        auto block = d_.allocate(packed.bytes);
        if (!block)
            return block.error();
        packed_ = std::move(*block);
        auto image = stage(packed.bytes);
        if (!image)
            return image.error();
        for (size_t i = 0; i < ranges.size(); ++i)
            if (const TableReserve &r = ranges[i]; packed.at[i] != kUnpacked) {
                at_[r.table] = packed_.ptr() + packed.at[i];
                held_[r.table] = r.rows;
                writeTableImage(inputs[r.table].subspan(r.rows.first, r.rows.rows),
                                options_.kernels.float32, *image + packed.at[i]);
            }
        ZBDDC_TRY(d_.upload(packed_.ptr(), *image, packed.bytes, entry_));
    }
    ZBDDC_TRY(holdFetched(ranges, inputs));
    for (size_t i = 0; i < ranges.size(); ++i)
        if (const TableReserve &r = ranges[i];
            packed.at[i] == kUnpacked && !inFetchedBlock(r.table)) {
            ZBDDC_TRY(reserve(r.table, r.rows));
            if (!inputs[r.table].empty())
                ZBDDC_TRY(upload(r.table, r.rows.first,
                                 inputs[r.table].subspan(r.rows.first, r.rows.rows)));
        }
    return Ok{};
}

// The computed tables of the program's fetch list that `ranges` holds whole and that downloadTables
// reads together, in one block in fetch order, laid out once: downloadTables reads them with one
// copy, not one a table (a Markov network's one case reads back hundreds of marginals and scales,
// each copy a few microseconds).
Status GpuTensorDevice::holdFetched(std::span<const TableReserve> ranges,
                                    std::span<const std::span<const double>> inputs) {
    if (fetched_.bytes())
        return Ok{};
    std::vector<int64_t> rangeOf(p_.tables.size(), -1);
    for (size_t i = 0; i < ranges.size(); ++i)
        rangeOf[ranges[i].table] = static_cast<int64_t>(i);
    std::vector<uint32_t> tables;
    std::vector<uint64_t> bytes;
    for (uint32_t t : p_.fetch) {
        const int64_t i = rangeOf[t];
        if (i < 0 || !inputs[t].empty() || held_[t].rows || ranges[i].rows.first != 0 ||
            ranges[i].rows.rows != p_.tables[t].entries() ||
            ranges[i].rows.rows * entryBytes_ > kBatchedDownloadBytes)
            continue;
        tables.push_back(t);
        bytes.push_back(ranges[i].rows.rows * entryBytes_);
    }
    const PackedInputs packed = packSmallInputs(bytes, [](size_t) { return true; });
    if (!packed.bytes)
        return Ok{};
    auto block = d_.allocate(packed.bytes);
    if (!block)
        return block.error();
    fetched_ = std::move(*block);
    for (size_t k = 0; k < tables.size(); ++k)
        if (packed.at[k] != kUnpacked) {
            at_[tables[k]] = fetched_.ptr() + packed.at[k];
            held_[tables[k]] = ranges[rangeOf[tables[k]]].rows;
        }
    return Ok{};
}

// Every level's input lists in one array, and each level's whole ops of one generic kernel as one
// fused launch (where the modules have fused entry points), uploaded once.
Status GpuTensorDevice::prepareLevels(std::span<const std::vector<DeviceTask>> levels) {
    std::optional<Prepared> &slot = prepared_;
    if (slot && sameLevels(slot->levels, levels)) {
        slot->launchedLevels = 0;
        return Ok{};
    }
    slot.reset();
    Prepared pr;
    pr.levels.assign(levels.begin(), levels.end());
    pr.levelOf.assign(p_.ops.size(), UINT32_MAX);
    pr.listAt.assign(p_.ops.size(), 0);
    std::vector<DevicePtr> bases;
    std::vector<std::vector<uint32_t>> whole(levels.size()); // by level: ops run whole here
    for (size_t l = 0; l < levels.size(); ++l) {
        pr.nonEmptyLevels += !levels[l].empty();
        for (const DeviceTask &task : levels[l]) {
            pr.levelOf[task.op] = static_cast<uint32_t>(l);
            pr.listAt[task.op] = bases.size() * sizeof(DevicePtr);
            appendInputList(task.op, bases);
            if (computesWhole(task))
                whole[l].push_back(task.op);
        }
    }
    auto lists = uploadArray(d_, bases);
    if (!lists)
        return lists.error();
    pr.lists = std::move(*lists);
    auto fused = FusedLaunches::upload(
        d_, p_, modules_, launchUnits(modules_, whole),
        [&](uint32_t op) { return pr.lists.ptr() + pr.listAt[op]; },
        [&](uint32_t op) { return address(p_.ops[op].output, 0); });
    if (!fused)
        return fused.error();
    pr.fused = std::move(*fused);
    slot = std::move(pr);
    return Ok{};
}

// A prepared level: its fused and single whole ops, then its shares. Else the tasks' input lists
// in one array, uploaded on the entry stream before the level forks, kept until wait().
Status GpuTensorDevice::launch(std::span<const DeviceTask> tasks) {
    if (tasks.empty())
        return Ok{};
    if (std::optional<Prepared> &pr = prepared_; pr && pr->levelOf[tasks[0].op] != UINT32_MAX)
        return launchPrepared(*pr, pr->levelOf[tasks[0].op], tasks);
    std::vector<DevicePtr> bases;
    std::vector<size_t> listAt;
    for (const DeviceTask &task : tasks) {
        listAt.push_back(bases.size() * sizeof(DevicePtr));
        appendInputList(task.op, bases);
    }
    const size_t listBytes = std::max<size_t>(bases.size(), 1) * sizeof(DevicePtr);
    auto lists = d_.allocate(listBytes);
    if (!lists)
        return lists.error();
    const DevicePtr listsPtr = lists->ptr();
    listsInFlight_.push_back(std::move(*lists));
    auto staged = stage(listBytes);
    if (!staged)
        return staged.error();
    std::copy(bases.begin(), bases.end(), reinterpret_cast<DevicePtr *>(*staged));
    ZBDDC_TRY(d_.upload(listsPtr, *staged, listBytes, entry_));
    std::vector<uint32_t> units(tasks.size());
    std::iota(units.begin(), units.end(), 0u);
    return kept_.launcher->enqueueLevel(units, [&](uint32_t i, StreamHandle stream) {
        return launchTask(tasks[i], listsPtr + listAt[i], stream);
    });
}

// With `graphs`, the first prepared level begins the capture and the last launches the graph (a
// refused capture is enqueued directly); later runs launch it at their first level.
Status GpuTensorDevice::launchPrepared(Prepared &pr, uint32_t l,
                                       std::span<const DeviceTask> tasks) {
    if (pr.graph) {
        if (pr.launchedLevels++ == 0)
            ZBDDC_TRY(d_.launchGraph(pr.graph.get(), entry_));
        stats_.graph = true;
        return Ok{};
    }
    if (options_.graphs && pr.launchedLevels == 0 && !capturing_ && d_.beginCapture(entry_))
        capturing_ = true;
    Status enqueued = enqueuePrepared(pr, l, tasks);
    ++pr.launchedLevels;
    if (capturing_ && (!enqueued || pr.launchedLevels == pr.nonEmptyLevels)) {
        capturing_ = false; // the capture must end whatever happened
        auto exec = d_.endCapture(entry_);
        if (!enqueued) {
            if (exec)
                d_.destroyGraph(*exec);
            return enqueued;
        }
        stats_.graph = static_cast<bool>(exec);
        if (exec) {
            pr.graph.reset(*exec, [d = &d_](GraphHandle g) { d->destroyGraph(g); });
            ZBDDC_TRY(d_.launchGraph(pr.graph.get(), entry_));
        } else {
            for (uint32_t again = 0; again < pr.levels.size(); ++again)
                if (!pr.levels[again].empty())
                    ZBDDC_TRY(enqueuePrepared(pr, again, pr.levels[again]));
        }
    }
    return enqueued;
}

Status GpuTensorDevice::awaitedBy(GpuTensorDevice &waiter) {
    if (!capturing_) // a capture records no event the run waits on outside it
        ZBDDC_TRY(d_.record(kept_.ready, entry_));
    return waiter.d_.waitEvent(waiter.entry_, kept_.ready);
}

Status GpuTensorDevice::enqueuePrepared(Prepared &pr, uint32_t l,
                                        std::span<const DeviceTask> tasks) {
    const std::vector<uint32_t> &units = pr.fused->units().levels[l];
    std::vector<const DeviceTask *> shares;
    for (const DeviceTask &task : tasks)
        if (!computesWhole(task))
            shares.push_back(&task);
    std::vector<uint32_t> items(units.size() + shares.size()); // units, then shares
    std::iota(items.begin(), items.end(), 0u);
    const EnqueueOp whole = [&](uint32_t op, StreamHandle stream) {
        return launchTask({op, 0, {0, outputRows(op)}, {}}, pr.lists.ptr() + pr.listAt[op], stream);
    };
    ZBDDC_TRY(kept_.launcher->enqueueLevel(items, [&](uint32_t i, StreamHandle stream) {
        if (i >= units.size()) {
            const DeviceTask &share = *shares[i - units.size()];
            return launchTask(share, pr.lists.ptr() + pr.listAt[share.op], stream);
        }
        stats_.launches += pr.fused->units().ops[units[i]].size() > 1;
        return pr.fused->enqueue(d_, p_, modules_, options_.kernels, units[i], whole, stream);
    }));
    if (options_.waitEachLevel && !capturing_)
        return d_.synchronize(entry_); // every stream of the level joined into it
    return Ok{};
}

Status GpuTensorDevice::wait() {
    ZBDDC_TRY(d_.synchronize(entry_)); // every level joined into it
    listsInFlight_.clear();
    staged_ = 0;
    return Ok{};
}

uint64_t GpuTensorDevice::outputRows(uint32_t op) const {
    return p_.tables[p_.ops[op].output].entries();
}

bool GpuTensorDevice::computesWhole(const DeviceTask &task) const {
    return task.out.first == 0 && task.out.rows == outputRows(task.op);
}

// Op `op`'s inputs at their whole-table offsets: each held range's row 0.
void GpuTensorDevice::appendInputList(uint32_t op, std::vector<DevicePtr> &bases) const {
    for (uint32_t in : p_.ops[op].inputs)
        bases.push_back(at_[in] - held_[in].first * entryBytes_);
}

Status GpuTensorDevice::launchTask(const DeviceTask &task, DevicePtr list, StreamHandle stream) {
    const uint64_t step = launchChunkRows(modules_.rowGroup(task.op), options_.chunkRows);
    stats_.launches += (task.out.rows + step - 1) / step;
    const TensorOp &op = p_.ops[task.op];
    const RowSpan elim = task.elim.rows ? task.elim : RowSpan{0, eliminatedValues(p_, op)};
    return launchOpRows(d_, modules_, p_, task.op, options_.kernels, options_.chunkRows, list,
                        address(op.output, task.out.first), task.out.first, task.out.rows, stream,
                        elim.first, elim.rows);
}

// `bytes` of pinned staging for an async upload, valid until the entry stream is waited for. Where
// the buffer is full it is waited for and grown, so the next run fits without a wait.
Result<unsigned char *> GpuTensorDevice::stage(size_t bytes) {
    PinnedBuffer &staging = kept_.staging;
    if (staged_ + bytes > staging.bytes()) {
        ZBDDC_TRY(d_.synchronize(entry_)); // nothing staged is in flight: it may go
        auto grown = d_.allocatePinned(2 * (staged_ + bytes) + (size_t{1} << 20));
        if (!grown)
            return grown.error();
        staging = std::move(*grown);
        staged_ = 0;
    }
    unsigned char *at = staging.data() + staged_;
    staged_ += stagedBytes(bytes);
    return at;
}

bool GpuTensorDevice::inFetchedBlock(uint32_t t) const {
    return fetched_.bytes() && held_[t].rows && fetched_.ptr() <= at_[t] &&
           at_[t] + held_[t].rows * entryBytes_ <= fetched_.ptr() + fetched_.bytes();
}

Status GpuTensorDevice::checkHeld(const char *what, uint32_t t, RowSpan rows) const {
    if (!held_[t].contains(rows) || !held_[t].rows)
        return error(std::string("internal error: ") + what + " of table " + std::to_string(t) +
                     " outside the rows the device holds");
    return Ok{};
}

} // namespace zbddc::cuda
