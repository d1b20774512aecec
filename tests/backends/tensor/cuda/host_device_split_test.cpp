// The host/device split without a GPU: the plan's partition and transfers checked against the
// program (every device op finds its inputs on the device, every host op its device-made inputs on
// the host, nothing moved twice), and the executor driven with a stand-in device — a second table
// store running its ops on another thread, so host and "device" really work at once — equal to the
// reference interpreter table by table at every threshold.
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/cuda/run/host_device_split.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <set>
#include <thread>

using namespace zbddc;
using zbddc::testing::minFillOrder;
using zbddc::testing::randomNetwork;

namespace {

// A device that is host memory of its own: it sees only what was uploaded or what it computed.
class StandInDevice final : public SplitDevice {
  public:
    explicit StandInDevice(const TensorProgram &p)
        : p_(p), tables_(p.tables.size()), data_(p.tables.size(), nullptr) {}
    ~StandInDevice() override {
        if (worker_.joinable())
            worker_.join();
    }
    Status upload(uint32_t t, std::span<const double> values) override {
        if (busy_)
            return error("upload while the device is busy");
        tables_[t].assign(values.begin(), values.end());
        data_[t] = tables_[t].data();
        ++uploads;
        return Ok{};
    }
    Status launch(std::span<const uint32_t> span) override {
        if (busy_)
            return error("launch while the device is busy");
        busy_ = true;
        std::vector<uint32_t> ops(span.begin(), span.end()); // the caller's may not outlive the call
        launched.insert(ops.begin(), ops.end());
        worker_ = std::thread(
            [this, ops = std::move(ops)] { result_ = runTensorOpsCpu(p_, ops, data_, tables_, 1); });
        return Ok{};
    }
    Status wait() override {
        if (worker_.joinable())
            worker_.join();
        busy_ = false;
        return result_;
    }
    Status download(uint32_t t, std::span<double> values) override {
        if (busy_ || !data_[t])
            return error("download of a table the device does not hold");
        // Like the CUDA session: the host table is already sized, the device copies into it.
        if (values.size() != tables_[t].size())
            return error("download into a host table of the wrong size");
        std::copy(tables_[t].begin(), tables_[t].end(), values.begin());
        ++downloads;
        return Ok{};
    }
    std::set<uint32_t> launched;
    size_t uploads = 0, downloads = 0;

  private:
    const TensorProgram &p_;
    std::vector<std::vector<double>> tables_;
    std::vector<const double *> data_;
    std::thread worker_;
    bool busy_ = false;
    Status result_ = Ok{};
};

// The plan's invariants, by simulation of where each table is.
void checkPlan(const TensorProgram &p, const SplitPlan &plan) {
    std::vector<bool> onDevice(p.tables.size(), false), onHost(p.tables.size(), false);
    for (size_t t = 0; t < p.tables.size(); ++t)
        onHost[t] = p.tables[t].input;
    std::set<uint32_t> moved;
    REQUIRE(plan.levels.size() == p.levels.size());
    for (size_t l = 0; l < p.levels.size(); ++l) {
        const SplitLevel &level = plan.levels[l];
        CHECK(level.hostOps.size() + level.deviceOps.size() == p.levels[l].size());
        for (uint32_t t : level.uploads) {
            CHECK(onHost[t]);
            CHECK_FALSE(onDevice[t]);
            onDevice[t] = true;
        }
        for (uint32_t o : level.deviceOps) {
            CHECK(opWorkEntries(p, o) >= plan.thresholdEntries);
            CHECK(plan.side[o] == OpSide::Device);
            for (uint32_t in : p.ops[o].inputs)
                CHECK(onDevice[in]);
        }
        for (uint32_t o : level.hostOps) {
            CHECK(opWorkEntries(p, o) < plan.thresholdEntries);
            for (uint32_t in : p.ops[o].inputs)
                CHECK(onHost[in]);
        }
        for (uint32_t o : level.deviceOps)
            onDevice[p.ops[o].output] = true;
        for (uint32_t o : level.hostOps)
            onHost[p.ops[o].output] = true;
        for (uint32_t t : level.downloads) {
            CHECK(onDevice[t]);
            CHECK(moved.insert(t).second);
            onHost[t] = true;
        }
    }
    for (uint32_t t : plan.finalDownloads) {
        CHECK(onDevice[t]);
        CHECK(moved.insert(t).second);
        onHost[t] = true;
    }
    for (const TensorOp &op : p.ops)
        CHECK(onHost[op.output]); // the VALUE phase reads every table on the host
}

} // namespace

TEST_CASE("host/device split: plans move each table once and the merge equals the interpreter",
          "[split]") {
    std::mt19937 rng(29);
    for (int trial = 0; trial < 40; ++trial) {
        const CostNetwork net =
            randomNetwork(rng, 3 + rng() % 8, 2 + rng() % 10, 5, 4, 50, trial % 2);
        std::vector<uint32_t> evidence;
        if (trial % 3 == 2) {
            evidence.assign(net.numVariables(), UINT32_MAX);
            evidence[0] = rng() % net.domainSizes[0];
        }
        auto p = buildBucketProgram(net, minFillOrder(net), {trial % 4 != 0, evidence});
        REQUIRE(p.ok());
        auto ref = interpretTensorProgram(*p);
        REQUIRE(ref.ok());
        std::vector<uint64_t> work;
        for (uint32_t o = 0; o < p->ops.size(); ++o)
            work.push_back(opWorkEntries(*p, o));
        std::sort(work.begin(), work.end());
        // All on the device, all on the host, and thresholds that cut the ops in between.
        std::vector<uint64_t> thresholds{0, UINT64_MAX};
        if (!work.empty())
            thresholds.insert(thresholds.end(), {work[work.size() / 2], work.back()});
        for (uint64_t threshold : thresholds) {
            INFO("trial " << trial << " threshold " << threshold << "\n" << p->dump());
            const SplitPlan plan = planHostDeviceSplit(*p, threshold);
            checkPlan(*p, plan);
            StandInDevice device(*p);
            auto got = runTensorProgramSplit(*p, plan, &device, 2);
            REQUIRE(got.ok());
            CHECK(*got == *ref);
            CHECK(device.launched.size() == plan.deviceOps);
            size_t planned = plan.finalDownloads.size();
            for (const SplitLevel &l : plan.levels)
                planned += l.downloads.size();
            CHECK(device.downloads == planned);
            if (threshold == 0)
                CHECK(plan.hostOps == 0);
            if (threshold == UINT64_MAX)
                CHECK((plan.deviceOps == 0 && device.uploads == 0));
        }
    }
}
