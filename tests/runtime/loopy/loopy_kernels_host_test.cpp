// The generated loopy BP kernels, run on the host through tests/support/cuda_host_shim.h (a
// block's threads as real threads meeting at barriers), against the CPU executor: both designs,
// sum- and max-product, with and without damping, flooding and residual rounds, 3 instances with
// evidence, 7 sweeps driven as runLoopyBpGpu drives them. Checks the kernels' arithmetic and indexing where CI has
// no GPU; the gpu-labelled test checks them on a device.
#include "compiler/loopy/loopy_design.h"
#include "runtime/loopy/loopy_bp.h"
#include "tests/runtime/loopy/host_kernel_grid.h"

#include "tests/catch.hpp"
#include "tests/support/cuda_host_shim.h"

#include <cmath>
#include <cstring>

namespace zbddc::testing::cuda_host {
namespace dp {
#include "loopy_host_kernels_dp.inc"
}
namespace coop {
#include "loopy_host_kernels_coop.inc"
}
} // namespace zbddc::testing::cuda_host

using namespace zbddc;
using namespace zbddc::testing::cuda_host;

namespace {

using u64v = std::vector<unsigned long long>;
u64v wide(const std::vector<uint64_t> &v) {
    return u64v(v.begin(), v.end());
}

struct EmulatedRun {
    std::vector<double> messages;      // instance-fastest
    std::vector<double> lastResiduals; // per instance, of the last sweep
};

// Sweeps of the emulated kernels.
template <class Group>
EmulatedRun emulatedSweeps(const FactorGraph &g, const LoopyGpuPlan &plan,
                           const std::vector<Evidence> &cases, const LoopyOptions &o,
                           bool cooperative, Group group) {
    const uint32_t B = uint32_t(cases.size()), nVars = uint32_t(g.numVariables()),
                   nEdges = uint32_t(g.numEdges());
    const unsigned long long M = g.messageEntries(), S = g.stateOffset.back();
    const int maxProduct = o.semiring == LoopySemiring::MaxProduct;
    std::vector<uint32_t> evidence(nVars * B), zeros(S * B), active(B, 1), vanished(B);
    for (uint32_t b = 0; b < B; ++b)
        for (uint32_t v = 0; v < nVars; ++v)
            evidence[v * B + b] = cases[b].states[v];
    std::vector<double> msg(M * B), raw(M * B), upd(M * B), finite(S * B), logValues,
        edgeResidual(nEdges * B), threshold(B);
    u64v tableOffset, residual(B), messageOffset = wide(g.messageOffset),
                                   stateOffset = wide(g.stateOffset);
    for (uint32_t e = 0; e < nEdges; ++e)
        for (uint64_t j = g.messageOffset[e]; j < g.messageOffset[e + 1]; ++j)
            for (uint32_t b = 0; b < B; ++b)
                msg[j * B + b] =
                    maxProduct ? 0 : -std::log(double(g.domainSizes[g.edgeVariable[e]]));
    for (const LoopyFactor &f : g.factors) {
        tableOffset.push_back(logValues.size());
        logValues.insert(logValues.end(), f.logValues.begin(), f.logValues.end());
    }
    for (uint32_t sweep = 0; sweep < o.maxIterations; ++sweep) {
        std::fill(residual.begin(), residual.end(), 0);
        launch((nVars * B + 255) / 256, 256, [&] {
            dp::lbp_sums(msg.data(), messageOffset.data(), g.variableEdgeStart.data(),
                         g.variableEdges.data(), stateOffset.data(), g.domainSizes.data(),
                         evidence.data(), active.data(), finite.data(), zeros.data(), nVars, B);
        });
        for (size_t i = 0; i < plan.groups.size(); ++i) {
            const LoopyFactorGroup &gr = plan.groups[i];
            const uint32_t count = uint32_t(gr.factors.size());
            uint64_t sumD = 0;
            for (uint32_t d : gr.domains)
                sumD += d;
            auto kernel = [&] {
                group(i)(logValues.data(), tableOffset.data(), gr.factors.data(),
                         g.factorEdgeStart.data(), g.edgeVariable.data(), messageOffset.data(),
                         stateOffset.data(), finite.data(), zeros.data(), msg.data(), raw.data(),
                         active.data(), count, B, maxProduct);
            };
            if (cooperative)
                launchBlocks(count * B, gr.threads, gr.sharedBytes, kernel);
            else
                launch(unsigned((count * sumD * B + 255) / 256), 256, kernel);
        }
        const bool rounds = o.updateOrder == LoopyUpdateOrder::Residual;
        launchBlocks((nEdges * B + 255) / 256, 256, 0, [&] {
            dp::lbp_finish(raw.data(), msg.data(), upd.data(), messageOffset.data(), active.data(),
                           residual.data(), vanished.data(), rounds ? edgeResidual.data() : nullptr,
                           nEdges, B, maxProduct, o.damping);
        });
        if (rounds) { // as runLoopyBpGpu: each instance's threshold from its largest residual
            for (uint32_t b = 0; b < B; ++b) {
                double largest;
                std::memcpy(&largest, &residual[b], 8);
                threshold[b] = std::max(largest * kResidualRoundShare, o.tolerance);
            }
            launch((nEdges * B + 255) / 256, 256, [&] {
                dp::lbp_commit_edges(upd.data(), msg.data(), messageOffset.data(),
                                     edgeResidual.data(), threshold.data(), active.data(), nEdges,
                                     B);
            });
        } else {
            launch(unsigned((M * B + 255) / 256), 256,
                   [&] { dp::lbp_commit(upd.data(), msg.data(), active.data(), M, B); });
        }
    }
    std::vector<double> lastResiduals(B);
    for (uint32_t b = 0; b < B; ++b)
        std::memcpy(&lastResiduals[b], &residual[b], 8);
    return {msg, lastResiduals};
}

} // namespace

TEST_CASE("The generated kernels run on the host equal the CPU executor", "[loopy]") {
    const FactorGraph g = hostKernelGrid();
    std::vector<Evidence> cases(kHostKernelBatch,
                                Evidence{std::vector<uint32_t>(g.numVariables(), kNone), {}});
    cases[1].states[3] = 2;
    cases[2].states[0] = 8, cases[2].states[15] = 1;
    for (bool cooperative : {false, true})
        for (LoopySemiring semiring : {LoopySemiring::SumProduct, LoopySemiring::MaxProduct})
            for (double damping : {0.0, 0.3})
                for (LoopyUpdateOrder order : {LoopyUpdateOrder::Flooding, LoopyUpdateOrder::Residual}) {
                    LoopyOptions o;
                    o.updateOrder = order;
                    o.tolerance = 0; // every sweep, on both
                    o.maxIterations = 7;
                    o.threads = 1;
                    o.damping = damping;
                    o.semiring = semiring;
                    const LoopyGpuDesign design =
                        cooperative ? LoopyGpuDesign::Cooperative : LoopyGpuDesign::DataParallel;
                    const LoopyGpuPlan plan = planLoopyGpu(g, kHostKernelBatch, &design);
                    REQUIRE(plan.groups.size() == 2); // fields, then pairs (the kernels' names)
                    const auto [msg, lastResiduals] =
                        cooperative
                            ? emulatedSweeps(
                                  g, plan, cases, o, true,
                                  [](size_t i) { return i ? coop::lbp_coop_1 : coop::lbp_coop_0; })
                            : emulatedSweeps(g, plan, cases, o, false, [](size_t i) {
                                  return i ? dp::lbp_dp_1 : dp::lbp_dp_0;
                              });
                    const auto cpu = runLoopyBp(g, cases, o);
                    double worst = 0, worstResidual = 0;
                    for (uint32_t b = 0; b < kHostKernelBatch; ++b) {
                        // the warp-folded maximum of lbp_finish, per instance
                        worstResidual = std::max(worstResidual,
                                                 std::abs(cpu[b].maxResidual - lastResiduals[b]));
                        for (uint64_t j = 0; j < g.messageEntries(); ++j)
                            worst = std::max(worst, std::abs(cpu[b].messages[j] -
                                                             msg[j * kHostKernelBatch + b]));
                    }
                    INFO("cooperative " << cooperative << " max-product "
                                        << (semiring == LoopySemiring::MaxProduct) << " damping "
                                        << damping << " " << loopyUpdateOrderName(order));
                    CHECK(worst < 1e-12);
                    CHECK(worstResidual < 1e-12);
                }
}
