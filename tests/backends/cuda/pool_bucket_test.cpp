// The device pool's size classes (backends/cuda/driver.h): every size fits its bucket, a large
// one wastes at most an eighth, and a bucket's capacity maps back to the same free list (the
// pool files a released buffer by its capacity). No GPU needed.
#include "backends/cuda/driver.h"

#include "tests/catch.hpp"

#include <random>

using zbddc::cuda::poolBucket;

TEST_CASE("pool buckets fit, waste at most an eighth above 1 MiB and file back", "[cuda][pool]") {
    std::mt19937_64 rng(3);
    std::vector<size_t> sizes{1,
                              255,
                              256,
                              257,
                              4096,
                              (1u << 20) - 1,
                              1u << 20,
                              (1u << 20) + 1,
                              size_t{4500} << 20,
                              size_t{80} << 30};
    for (int i = 0; i < 20000; ++i)
        sizes.push_back(rng() >> (rng() % 64));
    for (size_t bytes : sizes) {
        if (bytes > (size_t{1} << 62))
            continue;
        INFO("bytes " << bytes);
        const auto b = poolBucket(bytes);
        CHECK(b.capacity >= bytes);
        if (bytes > (size_t{1} << 20))
            CHECK(double(b.capacity) <= 1.125 * double(bytes));
        const auto again = poolBucket(b.capacity);
        CHECK(again.index == b.index);
        CHECK(again.capacity == b.capacity);
        // Buckets are ordered as their capacities.
        const auto next = poolBucket(b.capacity + 1);
        CHECK(next.index == b.index + 1);
        CHECK(next.capacity > b.capacity);
    }
}
