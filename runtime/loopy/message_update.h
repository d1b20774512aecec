// One step of loopy belief propagation in log space (Pearl 1988; Kschischang, Frey and Loeliger
// 2001 for factor graphs): the sums of the messages into each variable, and the messages a
// factor sends given them. Both schedules and the fixed-point checks of the tests call these.
//
// A dedicated loop rather than the TensorProgram's join and marginalise: a factor's outgoing
// messages all come from one pass over its entries (each entry adds the incoming messages once
// and leaves out the receiver's own), where a join-then-marginalise per receiver would write the
// factor-sized product once per scope variable; pairwise factors, the common case, are then one
// read of the table per update.
#pragma once

#include "compiler/loopy/factor_graph.h"
#include "runtime/evidence.h"

#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

enum class LoopySemiring : uint8_t { SumProduct, MaxProduct };

// Σ of the messages into each state of each variable, kept as the sum of the finite ones and a
// count of the -inf ones (an observed variable's other states count one more), so the message
// into a factor (the sum less that factor's own message) never subtracts -inf from -inf.
struct VariableSums {
    std::vector<double> finite;  // graph.stateOffset layout
    std::vector<uint32_t> zeros; // messages at -inf (and states the evidence rules out)
};

// Fills sums for variables [begin, end) from `messages` (graph.messageOffset layout).
void sumIntoVariables(const FactorGraph &graph, const Evidence &evidence,
                      std::span<const double> messages, uint32_t begin, uint32_t end,
                      VariableSums &sums);

// The message into a factor along edge e, one entry per state: the variable's sum less m_e.
double messageIntoFactor(const VariableSums &sums, uint64_t state, double own, uint32_t ownIsZero);

// The factors' tables in the linear domain, each scaled by its largest entry (exp(log φ - max)),
// made once per run: with them a sum-product message costs a multiply-add per entry instead of
// an exp. Where a sum comes out below kLinearFloor (a true zero, or an underflow) the factor
// falls back to the log-space loop, so the answer is never lost to underflow.
struct LinearTables {
    std::vector<double> values;   // every factor's, concatenated
    std::vector<uint64_t> offset; // per factor
    std::vector<double> logScale; // per factor: its largest log φ
};
inline constexpr double kLinearFloor = 1e-250;
LinearTables linearTables(const FactorGraph &graph);

// The new messages of factor f to every variable of its scope, written to
// out[messageOffset[e] - messageOffset[first edge of f] ...], normalised (sum-product: Σ exp = 1;
// max-product: max = 0). Returns false where a message vanished (every entry -inf): the
// evidence has no support under this factor's neighbourhood. `linear` (sum-product only) takes
// the linear-domain loop where it is exact enough.
bool updateFactorMessages(const FactorGraph &graph, uint32_t f, const VariableSums &sums,
                          std::span<const double> messages, LoopySemiring semiring,
                          std::span<double> out, const LinearTables *linear = nullptr);

// Normalises one message in place (as above); false where every entry is -inf.
bool normaliseMessage(std::span<double> message, LoopySemiring semiring);

// How far a new message is from the old: sum-product, the largest difference of probabilities
// (messages normalised to sum 1); max-product, the largest difference of log values (max-product
// on costs is scale-free, so differences of exponentials would vanish for large costs).
double messageResidual(std::span<const double> oldMessage, std::span<const double> newMessage,
                       LoopySemiring semiring);

// log of the factor's belief before normalising, entry by entry: log φ(x) + Σ_p (message into
// the factor from scope[p])(x_p). `out` holds the factor's entries.
void factorBeliefLog(const FactorGraph &graph, uint32_t f, const VariableSums &sums,
                     std::span<const double> messages, std::span<double> out);

} // namespace zbddc
