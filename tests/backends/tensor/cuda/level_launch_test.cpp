// The stream plan of a level launch (level_launch.h planStreams) without a GPU: every unit runs
// after the units it reads, through its own stream's order or an event it waits on, and
// independent chains keep a stream each with no wait between them.
#include "backends/tensor/cuda/device/level_launch.h"

#include "tests/catch.hpp"

#include <algorithm>
#include <random>

using namespace zbddc::cuda;

namespace {

// Whether `from` happens before `to`: through the order of a stream or an event waited on.
bool happensBefore(const StreamPlan &plan, const std::vector<uint32_t> &order, uint32_t from,
                   uint32_t to) {
    std::vector<bool> reached(plan.streamOf.size(), false);
    reached[from] = true;
    // `order` is the enqueue order, so one pass carries reachability forward.
    std::vector<int64_t> lastOn(plan.streams, -1);
    for (uint32_t u : order) {
        const int64_t prev = lastOn[plan.streamOf[u]];
        if (prev >= 0 && reached[prev])
            reached[u] = true;
        for (uint32_t p : plan.waitFor[u])
            if (reached[p])
                reached[u] = true;
        lastOn[plan.streamOf[u]] = u;
    }
    return reached[to];
}

} // namespace

TEST_CASE("independent chains of buckets keep a stream each and wait only where they meet",
          "[cuda][levels]") {
    // Units 0 and 1 start two chains (2, 4 after 0; 3, 5 after 1) that unit 6 joins.
    const std::vector<std::vector<uint32_t>> levels = {{0, 1}, {2, 3}, {4, 5}, {6}};
    const std::vector<std::vector<uint32_t>> producers = {{}, {}, {0}, {1}, {2}, {3}, {4, 5}};
    const StreamPlan plan = planStreams(levels, producers, 8);
    CHECK(plan.streams == 2);
    CHECK(plan.streamOf[0] != plan.streamOf[1]);
    CHECK(plan.streamOf[2] == plan.streamOf[0]);
    CHECK(plan.streamOf[4] == plan.streamOf[0]);
    CHECK(plan.streamOf[3] == plan.streamOf[1]);
    CHECK(plan.streamOf[5] == plan.streamOf[1]);
    for (uint32_t u = 0; u < 6; ++u)
        CHECK(plan.waitFor[u].empty());
    // Unit 6 continues one chain and waits for the other's last unit.
    REQUIRE(plan.waitFor[6].size() == 1);
    const uint32_t other = plan.waitFor[6][0];
    CHECK(plan.streamOf[other] != plan.streamOf[6]);
    CHECK(plan.recordAfter[other]);
}

TEST_CASE("every unit of a stream plan runs after the units it reads", "[cuda][levels]") {
    std::mt19937 rng(16);
    for (int trial = 0; trial < 200; ++trial) {
        // A random DAG in levels: each unit reads up to three units of earlier levels.
        std::vector<std::vector<uint32_t>> levels(1 + rng() % 8), producers;
        std::vector<uint32_t> order;
        for (size_t l = 0; l < levels.size(); ++l)
            for (uint32_t i = 0, n = 1 + rng() % 12; i < n; ++i) {
                const auto u = static_cast<uint32_t>(producers.size());
                std::vector<uint32_t> from;
                for (uint32_t k = 0; l > 0 && !order.empty() && k < rng() % 4; ++k) {
                    // only units of earlier levels: those enqueued before this level began
                    size_t before = 0;
                    for (size_t m = 0; m < l; ++m)
                        before += levels[m].size();
                    const uint32_t p = order[rng() % before];
                    if (std::find(from.begin(), from.end(), p) == from.end())
                        from.push_back(p);
                }
                producers.push_back(from);
                levels[l].push_back(u);
                order.push_back(u);
            }
        const size_t maxStreams = 1 + trial % 8;
        const StreamPlan plan = planStreams(levels, producers, maxStreams);
        INFO("trial " << trial << ", " << maxStreams << " streams");
        CHECK(plan.streams <= maxStreams);
        for (uint32_t u = 0; u < producers.size(); ++u) {
            for (uint32_t p : plan.waitFor[u]) {
                CHECK(plan.recordAfter[p]);
                CHECK(plan.streamOf[p] != plan.streamOf[u]);
            }
            for (uint32_t p : producers[u])
                CHECK(happensBefore(plan, order, p, u));
        }
    }
}
