#include "compiler/elimination/util_program.h"

#include "compiler/elimination/bucket_program.h"
#include "ir/table_over.h"

#include <algorithm>

namespace zbddc {

namespace {

std::vector<uint32_t> byRankDescending(std::vector<uint32_t> scope,
                                       const std::vector<uint32_t> &rank) {
    std::sort(scope.begin(), scope.end(),
              [&](uint32_t a, uint32_t b) { return rank[a] > rank[b]; });
    return scope;
}

bool contains(const std::vector<uint32_t> &set, uint32_t v) {
    return std::find(set.begin(), set.end(), v) != set.end();
}

} // namespace

UtilProgram buildUtilProgram(const std::vector<uint32_t> &domainSizes, Semiring semiring,
                             std::span<const CostFunction *const> functions,
                             std::vector<CostFunction> messages,
                             const std::vector<uint32_t> &ownVariables,
                             const std::vector<uint32_t> &layoutRank) {
    UtilProgram u;
    TensorProgram &p = u.program;
    p.semiring = semiring;
    p.domainSizes = domainSizes;
    std::vector<uint32_t> joined, eliminated;
    auto join = [&](const std::vector<uint32_t> &scope) {
        for (uint32_t v : scope)
            if (!contains(joined, v))
                joined.push_back(v);
    };
    for (const CostFunction *f : functions) {
        p.tables.push_back(
            costFunctionTable(*f, byRankDescending(f->scope, layoutRank), domainSizes));
        join(f->scope);
    }
    for (CostFunction &m : messages) {
        join(m.scope);
        std::vector<uint32_t> layout = byRankDescending(m.scope, layoutRank);
        p.tables.push_back(costFunctionTable(std::move(m), layout, domainSizes));
    }
    const size_t inputs = functions.size() + messages.size();
    for (uint32_t v : joined)
        (contains(ownVariables, v) ? eliminated : u.separator).push_back(v);
    u.separator = byRankDescending(u.separator, layoutRank);

    Table util = tableOver(u.separator, domainSizes);
    if (inputs == 0) { // a leaf with no function: its UTIL is the identity, a constant
        util.input = true;
        util.values = {SemiringOps{semiring}.one()};
        p.tables.push_back(std::move(util));
        u.util = 0;
    } else {
        p.tables.push_back(std::move(util));
        u.util = static_cast<uint32_t>(p.tables.size() - 1);
        std::vector<uint32_t> ins(inputs);
        for (uint32_t i = 0; i < ins.size(); ++i)
            ins[i] = i;
        const TensorOpKind kind =
            eliminated.empty() ? TensorOpKind::Join : TensorOpKind::EliminateBucket;
        p.ops.push_back({kind, std::move(ins), u.util, eliminated, {}});
    }
    if (u.separator.empty())
        p.results.push_back(u.util);
    computeLevels(p);
    return u;
}

double utilWork(const UtilProgram &util) {
    const TensorProgram &p = util.program;
    double work = 0;
    for (const TensorOp &op : p.ops) {
        double entries = static_cast<double>(p.tables[op.output].entries());
        for (uint32_t v : op.vars)
            entries *= p.domainSizes[v];
        work += entries;
    }
    return work;
}

} // namespace zbddc
