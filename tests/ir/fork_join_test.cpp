// onThreads hands its parts to parked workers (support/threads.h): every part runs once, parts
// run at the same time where workers are free, and fork-joins nested in parts finish.
#include "support/threads.h"

#include "tests/catch.hpp"

#include <atomic>
#include <chrono>
#include <new>
#include <thread>
#include <vector>

using namespace zbddc;

TEST_CASE("onThreads runs every part once and returns after the last", "[threads]") {
    for (size_t n : {0u, 1u, 2u, 7u, 64u}) {
        std::vector<std::atomic<int>> runs(n);
        for (int round = 0; round < 50; ++round)
            onThreads(n, [&](size_t t) { runs[t].fetch_add(1); });
        for (size_t t = 0; t < n; ++t)
            CHECK(runs[t].load() == 50);
    }
}

TEST_CASE("onThreads runs parts at the same time where workers are free", "[threads]") {
    // Part 0 waits for part 1 to start: run one after the other on one thread, part 0 would give
    // up after ten seconds and the check would fail.
    std::atomic<bool> started{false}, seen{false};
    onThreads(2, [&](size_t t) {
        if (t == 1) {
            started = true;
            return;
        }
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!started && std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
        seen = started.load();
    });
    CHECK(seen);
}

TEST_CASE("a fork-join inside a part runs its parts at the same time too", "[threads]") {
    // Each outer part holds a worker while its inner parts wait for each other as above.
    std::atomic<int> seen{0};
    onThreads(2, [&](size_t) {
        std::atomic<bool> started{false};
        bool ok = false;
        onThreads(2, [&](size_t t) {
            if (t == 1) {
                started = true;
                return;
            }
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!started && std::chrono::steady_clock::now() < until)
                std::this_thread::yield();
            ok = started.load();
        });
        seen.fetch_add(ok ? 1 : 0);
    });
    CHECK(seen.load() == 2);
}

TEST_CASE("fork-joins nested in parts finish, each part once", "[threads]") {
    std::atomic<size_t> inner{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 3; ++c) // several callers at once share the workers
        callers.emplace_back([&] {
            onThreads(8, [&](size_t) {
                onThreads(8, [&](size_t) { onThreads(3, [&](size_t) { inner.fetch_add(1); }); });
            });
        });
    for (std::thread &t : callers)
        t.join();
    CHECK(inner.load() == 3u * 8 * 8 * 3);
}

TEST_CASE("a part's exception on the calling thread reaches the caller after the join",
          "[threads]") {
    std::atomic<int> ran{0};
    CHECK_THROWS_AS(onThreads(4,
                              [&](size_t t) {
                                  ran.fetch_add(1);
                                  if (t == 0)
                                      throw std::bad_alloc();
                              }),
                    std::bad_alloc);
    onThreads(4, [&](size_t) { ran.fetch_add(1); }); // the workers still serve
    CHECK(ran.load() >= 5);
}
