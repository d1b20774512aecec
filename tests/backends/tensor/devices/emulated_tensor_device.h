// The tests' one emulated TensorDevice (backends/tensor/devices/tensor_device.h): host memory
// standing in for a GPU, so that the runs over devices — several devices, the host/device split —
// are checked on every machine against the reference interpreter. Whole-size tables, poison
// outside the row range held (a read outside it changes the answer), every copy and task
// bounds-checked. Tasks run on a thread of their own, so host and "device" really work at once,
// each on the CPU executor's code for one op; the device keeps stream order: a copy or a launch
// first waits for the tasks before it.
#pragma once

#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/devices/tensor_device.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace zbddc::testing {

// A value that changes any result it enters: NaN spreads through sums and products; for min/max
// semirings a huge value on the winning side.
inline double poison(Semiring s) {
    switch (s) {
    case Semiring::SumProduct:
        return std::numeric_limits<double>::quiet_NaN();
    case Semiring::MinSum:
        return -1e300;
    case Semiring::MinSumInt64:
        return int64Word(-1);
    case Semiring::MaxSum:
    case Semiring::MaxProduct:
        return 1e300;
    }
    return 0;
}

class EmulatedTensorDevice final : public TensorDevice {
  public:
    explicit EmulatedTensorDevice(const TensorProgram &p)
        : p_(p), tables_(p.tables.size()), held_(p.tables.size()) {}
    EmulatedTensorDevice(const EmulatedTensorDevice &) = delete;
    ~EmulatedTensorDevice() override { (void)join(); }

    Status reserve(uint32_t t, RowSpan rows) override {
        if (Status s = join(); !s)
            return s;
        if (!rows.contains(held_[t]))
            return error("a reserve drops rows the device held");
        if (tables_[t].empty())
            tables_[t].assign(p_.tables[t].entries(), poison(p_.semiring));
        held_[t] = rows;
        return Ok{};
    }
    Status release(uint32_t t) override {
        if (Status s = join(); !s)
            return s;
        if (held_[t].rows == 0)
            return error("a release of a table the device does not hold");
        tables_[t].clear(); // a later read finds nothing: an error, not stale values
        held_[t] = {};
        return Ok{};
    }
    Status upload(uint32_t t, uint64_t first, std::span<const double> v) override {
        if (Status s = join(); !s)
            return s;
        if (!held_[t].contains({first, v.size()}))
            return error("upload outside the range held");
        std::copy(v.begin(), v.end(), tables_[t].begin() + static_cast<ptrdiff_t>(first));
        ++uploads;
        return Ok{};
    }
    Status download(uint32_t t, uint64_t first, std::span<double> v) override {
        if (Status s = join(); !s)
            return s;
        if (!held_[t].contains({first, v.size()}))
            return error("download outside the range held");
        std::copy_n(tables_[t].begin() + static_cast<ptrdiff_t>(first), v.size(), v.begin());
        ++downloads;
        return Ok{};
    }
    // An ordered run's levels, which launch() must then get in this order.
    Status prepareLevels(std::span<const std::vector<DeviceTask>> levels) override {
        prepared_.clear();
        for (const std::vector<DeviceTask> &level : levels)
            if (!level.empty())
                prepared_.push_back(level);
        launched_ = 0;
        return Ok{};
    }
    Status launch(std::span<const DeviceTask> tasks) override {
        if (Status s = join(); !s)
            return s;
        if (!prepared_.empty()) {
            const auto same = [](const DeviceTask &a, const DeviceTask &b) {
                return a.op == b.op && a.device == b.device && a.out == b.out && a.elim == b.elim;
            };
            if (launched_ >= prepared_.size() ||
                !std::equal(tasks.begin(), tasks.end(), prepared_[launched_].begin(),
                            prepared_[launched_].end(), same))
                return error("a level launched that was not prepared, or out of order");
            ++launched_;
        }
        for (const DeviceTask &task : tasks) {
            for (uint32_t in : p_.ops[task.op].inputs)
                if (tables_[in].empty())
                    return error("a task reads a table the device never received");
            if (!held_[p_.ops[task.op].output].contains(task.out))
                return error("a task writes outside the range held");
            launchedOps.insert(task.op);
        }
        std::vector<DeviceTask> copy(tasks.begin(), tasks.end()); // the caller's may not outlive us
        worker_ = std::thread([this, copy = std::move(copy)] { result_ = run(copy); });
        return Ok{};
    }
    Status wait() override { return join(); }

    // What the device holds (after wait()): its ranges, and whole-size tables.
    const std::vector<RowSpan> &held() const { return held_; }
    const std::vector<double> &table(uint32_t t) const { return tables_[t]; }
    std::set<uint32_t> launchedOps; // every op a task of was launched
    size_t uploads = 0, downloads = 0, tasks = 0;

  private:
    // Rows `out` of a task over a range of eliminated values, by brute force as the kernels'
    // elimination-range variant computes them: ⊕ over the range of the ⊗ of the inputs' rows,
    // combined into what the rows hold unless the range starts at 0.
    void runEliminationRange(const DeviceTask &task) {
        const TensorOp &op = p_.ops[task.op];
        const Table &out = p_.tables[op.output];
        const SemiringOps ring{p_.semiring};
        std::vector<uint32_t> value(p_.domainSizes.size(), 0);
        for (uint64_t r = task.out.first; r < task.out.end(); ++r) {
            for (size_t k = out.scope.size(), rest = r; k-- > 0; rest /= out.domains[k])
                value[out.scope[k]] = static_cast<uint32_t>(rest % out.domains[k]);
            double acc = task.elim.first == 0 ? ring.zero() : tables_[op.output][r];
            for (uint64_t e = task.elim.first; e < task.elim.end(); ++e) {
                for (size_t k = op.vars.size(), rest = e; k-- > 0;
                     rest /= p_.domainSizes[op.vars[k]])
                    value[op.vars[k]] = static_cast<uint32_t>(rest % p_.domainSizes[op.vars[k]]);
                double v = ring.one();
                for (uint32_t in : op.inputs) {
                    const Table &t = p_.tables[in];
                    uint64_t row = 0;
                    for (size_t k = 0; k < t.scope.size(); ++k)
                        row = row * t.domains[k] + value[t.scope[k]];
                    v = ring.times(v, tables_[in][row]);
                }
                acc = ring.plus(acc, v);
            }
            tables_[op.output][r] = acc;
        }
        ++tasks;
    }
    // The whole op on the CPU over what the device holds (poison elsewhere), rows `out` kept.
    Status run(const std::vector<DeviceTask> &level) {
        for (const DeviceTask &task : level) {
            if (task.elim.rows) {
                runEliminationRange(task);
                continue;
            }
            const TensorOp &op = p_.ops[task.op];
            std::vector<const double *> data(p_.tables.size(), nullptr);
            for (uint32_t in : op.inputs)
                data[in] = tables_[in].data();
            std::vector<std::vector<double>> computed(p_.tables.size());
            if (Status s =
                    runTensorOpsCpu(p_, std::span<const uint32_t>(&task.op, 1), data, computed, 1);
                !s)
                return s;
            std::copy_n(computed[op.output].begin() + static_cast<ptrdiff_t>(task.out.first),
                        task.out.rows,
                        tables_[op.output].begin() + static_cast<ptrdiff_t>(task.out.first));
            ++tasks;
        }
        return Ok{};
    }
    // The tasks launched so far done; their error, once, where they failed.
    Status join() {
        if (worker_.joinable())
            worker_.join();
        Status s = result_;
        result_ = Ok{};
        return s;
    }

    const TensorProgram &p_;
    std::vector<std::vector<double>> tables_;
    std::vector<RowSpan> held_;
    std::thread worker_;
    Status result_ = Ok{};
    std::vector<std::vector<DeviceTask>> prepared_; // an ordered run's non-empty levels
    size_t launched_ = 0;
};

} // namespace zbddc::testing
