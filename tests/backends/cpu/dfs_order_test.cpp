#include "backends/cpu/dfs_order.h"

#include "tests/catch.hpp"

#include <algorithm>

using namespace zbddc;

TEST_CASE("DFS order is a topological permutation that visits the most-shared child first",
          "[cpu][dfs]") {
    Circuit c;
    for (int i = 0; i < 3; ++i)
        c.addInputInfo({});
    const NodeId x0 = c.addInput(0), x1 = c.addInput(1), x2 = c.addInput(2);
    const NodeId unused = c.addPlus(x0, x1);
    const NodeId single = c.addTimes(x1, x2);   // one parent
    const NodeId shared = c.addTimes(x0, x2);   // two parents
    const NodeId top = c.addPlus(single, shared);
    const NodeId root = c.addMulAdd(top, x0, shared);
    c.addOutput(root);

    const DfsOrder d = dfsOrder(c);
    REQUIRE(d.order.size() == c.numNodes());
    std::vector<NodeId> sorted = d.order;
    std::sort(sorted.begin(), sorted.end());
    for (NodeId id = 0; id < c.numNodes(); ++id)
        CHECK(sorted[id] == id);
    CHECK(d.reachable == c.numNodes() - 1);
    CHECK(d.order.back() == unused);
    std::vector<size_t> pos(c.numNodes());
    for (size_t i = 0; i < d.order.size(); ++i)
        pos[d.order[i]] = i;
    for (size_t i = 0; i < d.reachable; ++i) {
        const NodeId id = d.order[i];
        const uint32_t operands[3] = {c.a[id], c.b[id], c.c[id]};
        for (int k = 0; k < operandCount(c.kind[id]); ++k)
            CHECK(pos[operands[k]] < i);
    }
    // `top` reads single (1 parent) and shared (2 parents): shared goes first, so single is
    // computed right before top and never stored.
    CHECK(pos[shared] < pos[single]);
    CHECK(pos[single] + 1 == pos[top]);
    CHECK(d.ops == 4);
    CHECK(d.stored == 2); // shared (two readers) and root (an output)
}

TEST_CASE("DFS order handles deep chains without recursion", "[cpu][dfs]") {
    Circuit c;
    c.addInputInfo({});
    NodeId acc = c.addInput(0);
    const NodeId x = acc;
    for (int i = 0; i < 200000; ++i)
        acc = c.addTimes(acc, x);
    c.addOutput(acc);
    const DfsOrder d = dfsOrder(c);
    CHECK(d.reachable == c.numNodes());
    CHECK(d.ops == 200000);
    CHECK(d.stored == 1); // every link is read by the next op; only the output is stored
}
