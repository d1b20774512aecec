// The 32-bit narrowing decision (backends/tensor/cuda/plan/narrow_costs.h): where it says a program
// fits, every value the reference interpreter computes survives a round trip through float and
// stays within the bound; it refuses fractions, NaN, product semirings, and bounds of 2^24 or more.
#include "backends/tensor/cuda/plan/narrow_costs.h"
#include "compiler/elimination/bucket_program.h"
#include "ir/tensor_interpret.h"

#include "tests/catch.hpp"
#include "tests/support/min_fill_order.h"
#include "tests/support/random_networks.h"

#include <cmath>

using namespace zbddc;
using zbddc::cuda::fitsFloat32;
using zbddc::cuda::narrowedMagnitudeBound;

namespace {

// Two unary cost functions over one binary variable, eliminated together: the optimum is a sum.
TensorProgram twoCosts(double a, double b) {
    CostNetwork net;
    net.domainSizes = {2};
    for (double c : {a, b}) {
        CostFunction f;
        f.scope = {0};
        f.costs = {c, c};
        net.functions.push_back(f);
    }
    auto p = buildBucketProgram(net, {0});
    REQUIRE(p.ok());
    return *p;
}

} // namespace

TEST_CASE("narrowing: computed values of fitting programs are exact in float and within the bound",
          "[narrow]") {
    std::mt19937 rng(11);
    int fitted = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const CostNetwork net = testing::randomNetwork(rng, 3 + rng() % 6, 2 + rng() % 9, 5, 3,
                                                       trial % 2 ? 1000 : 3000000, trial % 3 == 0);
        auto p = buildBucketProgram(net, testing::minFillOrder(net));
        REQUIRE(p.ok());
        auto computed = interpretTensorProgram(*p);
        REQUIRE(computed.ok());
        const double bound = narrowedMagnitudeBound(*p);
        if (!fitsFloat32(*p))
            continue;
        ++fitted;
        for (const auto &table : *computed)
            for (double v : table) {
                if (std::isinf(v))
                    continue;
                CHECK(std::abs(v) <= bound);
                CHECK(static_cast<double>(static_cast<float>(v)) == v);
            }
    }
    CHECK(fitted >= 20); // costs up to 1000 always fit; most of the larger ones too
}

TEST_CASE("narrowing refuses sums from 2^24, fractions, NaN, product semirings and int64 costs",
          "[narrow]") {
    const double half = double(1 << 23);
    CHECK(fitsFloat32(twoCosts(half - 1, half))); // bound 2^24 - 1
    CHECK(!fitsFloat32(twoCosts(half, half)));    // bound 2^24: 2^24 + 1 would round
    CHECK(!fitsFloat32(twoCosts(0.5, 1)));        // not an integer
    CHECK(!fitsFloat32(twoCosts(std::nan(""), 1)));
    CHECK(fitsFloat32(twoCosts(INFINITY, 7))); // forbidden tuples stay infinite
    TensorProgram product = twoCosts(1, 2);
    product.semiring = Semiring::MaxProduct;
    CHECK(!fitsFloat32(product));
    TensorProgram maxSum = twoCosts(-5, 3);
    maxSum.semiring = Semiring::MaxSum;
    CHECK(narrowedMagnitudeBound(maxSum) == 8);
    TensorProgram int64Costs = twoCosts(0, 0); // words 0 read as doubles would pass the bound
    int64Costs.semiring = Semiring::MinSumInt64;
    CHECK(!fitsFloat32(int64Costs));
}
