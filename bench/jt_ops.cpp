// The junction-tree program as the GPU runs it, op by op, before anything runs: for a network or
// a Markov network (any factor model file) and a batch size, the lowered program (case index
// fastest, every variable with an indicator table, wide reductions split as on the GPU) and, per
// op, its kind, output rows, eliminated values per row, threads and the serial steps each thread
// walks. The ops with the most serial steps are where a batch waits on memory latency rather than
// bandwidth.
//   build/bench/jt_ops MODEL [--cases B] [--top N]    MODEL: a .bif, a MARKOV .uai, ...
#include "backends/tensor/cuda/plan/split_reductions.h"
#include "backends/tensor/cuda/codegen/tensor_kernels.h"
#include "compiler/elimination/elimination_order.h"
#include "compiler/frontends/factor_model/factor_model.h"
#include "compiler/junction_tree/build_junction_tree.h"
#include "compiler/junction_tree/lower_junction_tree.h"
#include "compiler/junction_tree/order_search.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace zbddc;

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    std::string path;
    uint32_t cases = 1000;
    size_t top = 25;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--cases" && i + 1 < argc)
            cases = static_cast<uint32_t>(std::atoi(argv[++i]));
        else if (a == "--top" && i + 1 < argc)
            top = static_cast<size_t>(std::atoi(argv[++i]));
        else
            path = a;
    }
    auto model = readFactorModelFile(path);
    if (!model) {
        std::fprintf(stderr, "%s\n", model.error().str().c_str());
        return 1;
    }
    const auto scopes = model->sortedScopes();
    const auto graph = buildInteractionGraph(model->domainSizes, scopes);
    auto tree = buildJunctionTree(model->domainSizes, scopes, searchOrder(graph).order);
    if (!tree) {
        std::fprintf(stderr, "%s\n", tree.error().message.c_str());
        return 1;
    }
    JunctionTreeLowering lowering;
    lowering.marginals = true;
    lowering.batch = cases;
    for (uint32_t v = 0; v < model->numVariables(); ++v)
        lowering.observed.push_back(v);
    auto lowered = lowerJunctionTree(*model, *tree, lowering);
    if (!lowered) {
        std::fprintf(stderr, "%s\n", lowered.error().message.c_str());
        return 1;
    }
    const TensorProgram p = cuda::splitWideReductions(lowered->program);
    const cuda::TensorKernelOptions kernels;
    struct Row {
        uint32_t op;
        uint64_t rows, eliminated, steps;
        bool warp;
    };
    std::vector<Row> rows;
    double entries = 0, steps = 0;
    for (uint32_t o = 0; o < p.ops.size(); ++o) {
        const TensorOp &op = p.ops[o];
        uint64_t m = 1;
        for (uint32_t v : op.vars)
            m *= p.domainSizes[v];
        const bool warp = cuda::usesWarpPerRow(p, o, kernels);
        const uint64_t out = p.tables[op.output].entries();
        rows.push_back({o, out, m, warp ? (m + 31) / 32 : m, warp});
        entries += double(out) * double(m);
        steps += double(warp ? (m + 31) / 32 : m);
    }
    std::vector<uint32_t> levelOf(p.ops.size());
    for (uint32_t l = 0; l < p.levels.size(); ++l)
        for (uint32_t o : p.levels[l])
            levelOf[o] = l;
    const size_t levels = p.levels.size();
    std::printf("%s: %zu cliques, B = %u: %zu ops, %zu levels, %.3g entries walked, %.3g serial "
                "steps summed over ops\n",
                path.c_str(), size_t(tree->numCliques()), cases, p.ops.size(), levels, entries, steps);
    // By work (rows x eliminated values), the bandwidth side; then by serial steps.
    std::sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
        return double(a.rows) * double(a.eliminated) > double(b.rows) * double(b.eliminated);
    });
    std::printf("%6s %-16s %6s %12s %12s %10s %s\n", "op", "kind", "level", "rows", "eliminated",
                "steps", "mode");
    for (size_t i = 0; i < std::min(top, rows.size()); ++i) {
        const Row &r = rows[i];
        std::printf("%6u %-16s %6u %12llu %12llu %10llu %s\n", r.op,
                    tensorOpKindName(p.ops[r.op].kind), levelOf[r.op],
                    (unsigned long long)r.rows, (unsigned long long)r.eliminated,
                    (unsigned long long)r.steps, r.warp ? "warp/row" : "thread/row");
    }
    return 0;
}
