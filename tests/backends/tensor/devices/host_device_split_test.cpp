// The host/device split without a GPU: the plan's partition and transfers checked against the
// program (every device op finds its inputs on the device, every host op its device-made inputs on
// the host, nothing moved twice), and the executor driven with the emulated device
// (emulated_tensor_device.h: a table store of its own running its ops on another thread, so host
// and "device" really work at once) equal to the reference interpreter table by table at every
// threshold.
#include "backends/tensor/cpu/tensor_cpu.h"
#include "backends/tensor/devices/host_device_split.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"

#include "tests/backends/tensor/devices/emulated_tensor_device.h"
#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <set>

using namespace zbddc;
using zbddc::testing::minFillOrder;
using zbddc::testing::randomNetwork;

namespace {

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

// The split's steps keep host and device at work at once: each level's device ops are launched
// before its host ops run, and waited for only after them.
void checkOverlap(const std::vector<DeviceStep> &steps, const SplitPlan &plan) {
    size_t launches = 0, waits = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
        launches += steps[i].kind == StepKind::Launch;
        if (steps[i].kind != StepKind::Wait)
            continue;
        ++waits;
        REQUIRE(i >= 2);
        CHECK(steps[i - 1].kind == StepKind::HostOps);
        CHECK(steps[i - 2].kind == StepKind::Launch);
    }
    size_t deviceLevels = 0;
    for (const SplitLevel &l : plan.levels)
        deviceLevels += !l.deviceOps.empty();
    CHECK((launches == deviceLevels && waits == deviceLevels));
}

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
            checkOverlap(splitSteps(*p, plan), plan);
            testing::EmulatedTensorDevice device(*p);
            auto got = runTensorProgramSplit(*p, plan, &device, 2);
            REQUIRE(got.ok());
            CHECK(*got == *ref);
            CHECK(device.launchedOps.size() == plan.deviceOps);
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

TEST_CASE("the step runner runs a hand-made list — every op in two row ranges on the emulated "
          "device — equal to the interpreter, and refuses steps it cannot run",
          "[split]") {
    std::mt19937 rng(31);
    const CostNetwork net = randomNetwork(rng, 8, 10, 5, 4, 50, false);
    auto p = buildBucketProgram(net, minFillOrder(net), {true, {}});
    REQUIRE(p.ok());
    auto ref = interpretTensorProgram(*p);
    REQUIRE(ref.ok());
    const auto rowsOf = [&](uint32_t t) { return RowSpan{0, p->tables[t].entries()}; };
    std::vector<DeviceStep> steps;
    for (uint32_t t = 0; t < p->tables.size(); ++t)
        if (p->tables[t].input) {
            steps.push_back(makeStep(StepKind::Reserve, StepClock::Upload, 0, t, rowsOf(t)));
            steps.push_back(makeStep(StepKind::Upload, StepClock::Upload, 0, t, rowsOf(t)));
        }
    for (const std::vector<uint32_t> &level : p->levels) {
        DeviceStep launch = makeStep(StepKind::Launch, StepClock::Compute);
        for (uint32_t o : level) {
            const RowSpan all = rowsOf(p->ops[o].output);
            steps.push_back(makeStep(StepKind::Reserve, StepClock::None, 0, p->ops[o].output, all));
            launch.tasks.push_back({o, 0, {0, all.rows / 2}, {}});
            launch.tasks.push_back({o, 0, {all.rows / 2, all.rows - all.rows / 2}, {}});
        }
        steps.push_back(std::move(launch));
        steps.push_back(makeStep(StepKind::Wait, StepClock::Compute));
    }
    for (uint32_t t = 0; t < p->tables.size(); ++t)
        if (!p->tables[t].input)
            steps.push_back(makeStep(StepKind::Download, StepClock::Download, 0, t, rowsOf(t)));
    testing::EmulatedTensorDevice device(*p);
    TensorDevice *const devices[] = {&device};
    StepTargets targets;
    targets.devices = devices;
    StepTimes times{};
    auto got = runDeviceSteps(*p, steps, targets, times);
    INFO((got ? "" : got.error().str()));
    REQUIRE(got.ok());
    CHECK(*got == *ref);

    // A computed table the host never had, a device the run was not given, no fabric.
    const uint32_t computed = p->ops.back().output;
    for (const DeviceStep &bad :
         {makeStep(StepKind::Upload, StepClock::None, 0, computed, rowsOf(computed)),
          makeStep(StepKind::Wait, StepClock::None, 1),
          makeStep(StepKind::PeerCopy, StepClock::None)}) {
        testing::EmulatedTensorDevice fresh(*p);
        TensorDevice *const one[] = {&fresh};
        targets.devices = one;
        auto refused = runDeviceSteps(*p, std::span(&bad, 1), targets, times);
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.error().str().find("internal error") != std::string::npos);
    }
}
