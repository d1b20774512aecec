// P(e) of a lowered MLF circuit for evidence given as a state per variable (-1: unobserved),
// shared by the brute-force and the variable-elimination oracle tests.
#pragma once

#include "compiler/frontends/zdd/zdd_model.h"
#include "ir/interpret.h"
#include "tests/catch.hpp"

#include <vector>

namespace zbddc::testing {

inline double circuitProbability(const Circuit &c, const ZddModel &model, const std::vector<int> &e) {
    std::vector<double> x(model.vars.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const InputInfo &in = model.vars[i];
        x[i] = in.kind == InputKind::Parameter ? in.value
               : (e[in.variable] < 0 || static_cast<uint32_t>(e[in.variable]) == in.state) ? 1.0
                                                                                           : 0.0;
    }
    auto eval = evaluate(c, x, Semiring::SumProduct);
    REQUIRE(eval.ok());
    return eval->values[c.outputs[0]];
}

} // namespace zbddc::testing
