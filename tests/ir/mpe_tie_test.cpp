// The tie rule's comparisons (ir/mpe_tie_rule.inc, the host's and the GPU kernels' one text) at
// their edges, and how a traced batch's per-vector tie reports become an answer's mpeTied
// (ir/traced_terms.h).
#include "ir/mpe_tie.h"
#include "ir/traced_terms.h"

#include "tests/catch.hpp"

#include <limits>

using namespace zbddc;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
} // namespace

TEST_CASE("tie comparisons: relative for products, times max(1, |x|) for log sums, absolute for "
          "costs",
          "[ir][mpe][ties]") {
    CHECK(kMpeTieTolerance == 1e-9);
    // Products: relative to the value kept.
    CHECK(flagsTie(Semiring::MaxProduct, 0.5 * (1 - 0.5e-9), 0.5));
    CHECK_FALSE(flagsTie(Semiring::MaxProduct, 0.5 * (1 - 3e-9), 0.5));
    CHECK(flagsTie(Semiring::MaxProduct, 0.5 * (1 + 0.5e-9), 0.5)); // a hair above, kept second
    CHECK_FALSE(beatsBeyondTie(Semiring::MaxProduct, 0.5 * (1 + 0.5e-9), 0.5));
    CHECK(beatsBeyondTie(Semiring::MaxProduct, 0.5 * (1 + 3e-9), 0.5));
    // Log sums: an absolute 1e-9 below |x| = 1, relative above.
    CHECK(flagsTie(Semiring::MaxSum, -0.3 - 0.5e-9, -0.3));
    CHECK_FALSE(flagsTie(Semiring::MaxSum, -0.3 - 2e-9, -0.3));
    CHECK(flagsTie(Semiring::MaxSum, -300 - 200e-9, -300));
    CHECK_FALSE(flagsTie(Semiring::MaxSum, -300 - 400e-9, -300));
    // Costs: chosen exactly, flagged within an absolute 1e-9.
    CHECK(beatsBeyondTie(Semiring::MinSum, 2.0 - 1e-12, 2.0));
    CHECK(flagsTie(Semiring::MinSum, 2.0 + 0.5e-9, 2.0));
    CHECK_FALSE(flagsTie(Semiring::MinSum, 2.0 + 1e-6, 2.0));
}

TEST_CASE("tie comparisons: a log of 0 never ties a possible value, and is beaten by every one",
          "[ir][mpe][ties]") {
    CHECK(beatsBeyondTie(Semiring::MaxSum, -1e6, -kInf));
    CHECK_FALSE(beatsBeyondTie(Semiring::MaxSum, -kInf, -kInf));
    CHECK_FALSE(flagsTie(Semiring::MaxSum, -kInf, -2.0));
    CHECK_FALSE(flagsTie(Semiring::MaxProduct, 0.0, 0.25));
    CHECK_FALSE(flagsTie(Semiring::MinSum, kInf, 3.0));
    CHECK(flagsTie(Semiring::MaxSum, -kInf, -kInf)); // nothing possible: every choice alike
}

TEST_CASE("a traced vector's tie report: the walk's, unset where the backend gave none or a "
          "variable is undetermined",
          "[ir][mpe][ties]") {
    TracedTerms t;
    t.traced = {1, 1, 1};
    const std::vector<uint32_t> complete = {0, 2, 1}, open = {0, kNone, 1};
    CHECK_FALSE(tracedTie(t, 0, complete).has_value()); // no reports: cannot tell
    t.tied = {0, 1, 0};
    CHECK(tracedTie(t, 0, complete) == std::optional<bool>(false));
    CHECK(tracedTie(t, 1, complete) == std::optional<bool>(true));
    CHECK_FALSE(tracedTie(t, 2, open).has_value());     // a variable on no term: each state alike
    CHECK_FALSE(tracedTie(t, 3, complete).has_value()); // past the reports
}
