// Every semiring and numeric mode the CPU backend compiles (log space for the probabilistic ones),
// for the tests that check each against the reference evaluator.
#pragma once

#include "ir/interpret.h"

namespace zbddc::testing {

struct CpuMode {
    Semiring semiring;
    Numeric numeric;
};

inline const CpuMode kCpuModes[] = {
    {Semiring::SumProduct, Numeric::Float64}, {Semiring::MaxProduct, Numeric::Float64},
    {Semiring::MaxSum, Numeric::Float64},     {Semiring::MinSum, Numeric::Float64},
    {Semiring::SumProduct, Numeric::Log},     {Semiring::MaxProduct, Numeric::Log},
};

} // namespace zbddc::testing
