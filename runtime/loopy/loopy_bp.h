// Loopy belief propagation over a batch of evidence cases (the instance dimension), on the CPU,
// threaded over instances (batches at least as large as the thread count) or over the variables
// and factors of one instance. Two schedules: flooding (every message from the previous
// iteration's, Pearl 1988) and residual rounds (Elidan, McGraw and Koller 2006: the messages
// that would change most are sent first; here every message whose residual reaches a quarter of
// the largest is sent in one parallel round, and only the factors next to a changed message
// compute theirs again). Damping is geometric (in log space). Answers are approximate on loopy
// graphs and exact on trees once converged.
#pragma once

#include "compiler/loopy/factor_graph.h"
#include "runtime/evidence.h"
#include "runtime/loopy/message_update.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace zbddc {

enum class LoopyUpdateOrder : uint8_t { Flooding, Residual };
std::optional<LoopyUpdateOrder> parseLoopyUpdateOrder(std::string_view name); // flooding, residual
const char *loopyUpdateOrderName(LoopyUpdateOrder s);

// A residual round sends every message whose residual reaches this share of the largest: the
// largest first, as residual BP does, but many at once so that a round has parallel work.
inline constexpr double kResidualRoundShare = 0.25;

struct LoopyOptions {
    LoopySemiring semiring = LoopySemiring::SumProduct;
    LoopyUpdateOrder updateOrder = LoopyUpdateOrder::Flooding;
    uint32_t maxIterations = 1000; // flooding sweeps, or residual rounds
    double tolerance = 1e-6;       // converged when every message is within this of its update
    double damping = 0;            // in [0, 1): the share of the old message kept
    unsigned threads = 0;          // 0: all
};

// One instance's outcome. On convergence the messages are the ones whose updates were all
// within the tolerance (the last updates are not applied), so they pass the fixed-point check.
struct LoopyCase {
    uint32_t iterations = 0;
    bool converged = false;
    double maxResidual = 0;       // of the last iteration (or round)
    bool vanished = false;        // a message or belief lost every state: evidence without support
    std::vector<double> messages; // graph.messageOffset layout, log space
    std::vector<double> beliefs;  // graph.stateOffset layout: marginals (sum-product) or
                                  // max-marginals scaled to a maximum of 1 (max-product)
    double logPartition = 0;      // sum-product: the Bethe approximation of ln Z(e) (Yedidia,
                                  // Freeman and Weiss 2005); exact on trees
};

// From c.messages (however they were computed: here or on the GPU): the beliefs, the Bethe
// ln Z(e) (sum-product), and `vanished` where a belief lost every state.
void finishLoopyCase(const FactorGraph &graph, const Evidence &evidence, LoopySemiring semiring,
                     LoopyCase &c);

std::vector<LoopyCase> runLoopyBp(const FactorGraph &graph, std::span<const Evidence> cases,
                                  const LoopyOptions &options);

} // namespace zbddc
