#include "runtime/marginal_table.h"

#include "tests/catch.hpp"

#include <vector>

using namespace zbddc;

TEST_CASE("Marginals read as a vector of rows, one allocation for all", "[marginals]") {
    Marginals m;
    CHECK(m.empty());
    CHECK(m.begin() == m.end());
    const std::vector<double> first{0.25, 0.75};
    m.push_back(first);
    m.push_back(std::vector<double>(3, 0.0));
    std::span<double> second = m[1];
    CHECK((second.size() == 3 && second[0] == 0 && second[2] == 0));
    second[1] = 1;
    m.push_back(std::vector<double>{}); // a variable without states still has its row
    REQUIRE(m.size() == 3);
    CHECK((m[0][0] == 0.25 && m[0][1] == 0.75));
    CHECK((m[1][0] == 0 && m[1][1] == 1 && m[1][2] == 0));
    CHECK(m[2].empty());
    m[0][1] = 0.5; // rows are writable in place
    std::vector<size_t> sizes;
    for (std::span<const double> row : m)
        sizes.push_back(row.size());
    CHECK(sizes == std::vector<size_t>{2, 3, 0});

    Marginals same;
    same.push_back(std::vector<double>{0.25, 0.5});
    same.push_back(std::vector<double>{0, 1, 0});
    same.push_back(std::vector<double>{});
    CHECK(same == m);
    same[1][2] = 1e-300;
    CHECK_FALSE(same == m);
    // The same values cut into other rows differ.
    Marginals recut;
    recut.push_back(std::vector<double>{0.25, 0.5, 0});
    recut.push_back(std::vector<double>{1, 0});
    recut.push_back(std::vector<double>{});
    CHECK_FALSE(recut == m);
    m.clear();
    CHECK((m.empty() && m.size() == 0));
}

TEST_CASE("Marginals::assignZeros shapes every row at once", "[marginals]") {
    Marginals m;
    m.push_back(std::vector<double>{7});
    const std::vector<size_t> sizes{2, 0, 3};
    m.assignZeros(sizes.size(), [&](size_t v) { return sizes[v]; });
    Marginals want;
    for (size_t n : sizes)
        want.push_back(std::vector<double>(n, 0.0));
    CHECK(m == want);
}
