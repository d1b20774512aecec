// The host phases of a GPU run (Minato et al. 2011 §2's CPU preliminary and posterior phases): a
// circuit's narrow leading and trailing levels evaluated by host engines (the LLVM JIT), the
// levels between by a device engine, values crossing the cuts once per pass each way
// (compiler/passes/host_phases.h says how the circuit is cut and how adjoints cross). Linear
// float64 only: a log-space part would hand linear inputs across the cuts (underflow), and a
// float32 part would round the crossing values once more than the float32 bound assumes.
#pragma once

#include "compiler/passes/host_phases.h"
#include "runtime/engine.h"

#include <functional>
#include <memory>

namespace zbddc {

using EngineMaker = std::function<Result<std::unique_ptr<Engine>>(const Circuit &)>;

// One engine over the parts (hasHostLevels() must hold): `host` makes the pre and post parts'
// engines, `device` the device part's. The parts are kept by the engine (engines keep a
// reference to their circuit).
Result<std::unique_ptr<Engine>> hostPhaseEngine(HostPhaseCircuits parts, Semiring semiring,
                                                Numeric numeric, const EngineMaker &host,
                                                const EngineMaker &device);

} // namespace zbddc
