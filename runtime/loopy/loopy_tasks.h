// Loopy BP's answers as task results (runtime/tasks.h): MAR from the beliefs, PR from the Bethe
// approximation of ln Z(e), MPE decoded from max-product's max-marginals (each variable its best
// state) with the assignment's exact log score recomputed from the factors. Every result carries
// its convergence report, and so says it is approximate.
#pragma once

#include "compiler/loopy/factor_graph.h"
#include "runtime/device.h"
#include "runtime/loopy/loopy_bp.h"
#include "runtime/tasks.h"

#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace zbddc {

// What computes the messages: the dedicated loops (message_update.h on the CPU, loopy_kernels.h
// on the GPU), or one sweep lowered into a TensorProgram run on the tensor executors
// (loopy_tensor.h; flooding only). The messages stay the default until both are measured on a GPU.
enum class LoopyProgramKind : uint8_t { Messages, Tensor };
std::optional<LoopyProgramKind> parseLoopyProgramKind(std::string_view name); // messages, tensor

// `options.semiring` is set from the task (max-product for MPE, sum-product otherwise). `device`:
// Cpu, Cuda (flooding only; the residual schedule and a missing GPU fall back to the CPU, and the
// result's `device` says why), or Auto (the GPU where usable).
std::vector<Result<TaskResult>>
runLoopyTasks(const FactorGraph &graph, Task task, std::span<const Evidence> cases,
              LoopyOptions options, DeviceKind device = DeviceKind::Cpu,
              LoopyProgramKind program = LoopyProgramKind::Messages);

// Σ_f log φ_f(x): ln P(x) for a network's factor graph, minus the total cost for a cost network.
double assignmentLogScore(const FactorGraph &graph, std::span<const uint32_t> assignment);

} // namespace zbddc
