// The out-of-core path's host tables: inputs read in place or made complete once, computed tables
// allocated on first use and handed back in the executors' result layout.
#include "backends/tensor/cuda/device/host_tables.h"

#include "tests/catch.hpp"

using namespace zbddc;
using zbddc::cuda::HostTables;

TEST_CASE("host tables read complete inputs in place, complete sparse ones, allocate the rest "
          "once",
          "[chunks]") {
    TensorProgram p;
    p.domainSizes = {2, 3};
    Table complete;
    complete.input = true;
    complete.scope = {0, 1};
    complete.domains = {2, 3};
    complete.values = {1, 2, 3, 4, 5, 6};
    Table sparse = complete;
    sparse.sparse = true;
    sparse.values = {7, 9};
    sparse.rows = {1, 4};
    sparse.defaultValue = -1;
    Table computed;
    computed.scope = {1};
    computed.domains = {3};
    p.tables = {complete, sparse, computed};

    HostTables host(p);
    CHECK(host.data(0) == p.tables[0].values.data());
    for (uint64_t row = 0; row < 6; ++row)
        CHECK(host.value(1, row) == p.tables[1].denseValues()[row]);
    CHECK(host.data(2) == nullptr);
    double *out = host.allocate(2);
    REQUIRE(out != nullptr);
    CHECK(host.allocate(2) == out); // once
    CHECK(host.data(2) == out);
    out[0] = 10, out[1] = 11, out[2] = 12;
    CHECK(host.value(2, 1) == 11);

    const std::vector<std::vector<double>> taken = host.takeComputed();
    REQUIRE(taken.size() == 3);
    CHECK(taken[0].empty());
    CHECK(taken[1].empty());
    CHECK(taken[2] == std::vector<double>{10, 11, 12});
    CHECK(host.data(2) == nullptr);
}
