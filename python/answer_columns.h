// A batch's answers laid out as columns, one entry (or row) per case, ready to become NumPy
// arrays without another copy: the module hands each vector to NumPy with a capsule that frees it.
// Built without the GIL. A case that failed has NaN values, -1 states and its error message.
#pragma once

#include "runtime/tasks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zbddc::python {

struct AnswerColumns {
    Task task = Task::Pr;
    size_t cases = 0;
    size_t width = 0; // MAR: every variable's states
    std::vector<double> value; // P(e) (PR, MAR), max_x P(x, e) (MPE)
    std::vector<double> log10;
    std::vector<double> marginals;    // MAR: cases x (all variables' states, variable by variable)
    std::vector<int64_t> states;      // MPE: cases x variables, -1 where undetermined
    std::vector<std::string> errors;  // "" where the case was answered
    std::vector<std::string> notes;   // "" where there is nothing to say
    std::vector<std::string> numeric; // the arithmetic that produced each answer
    std::vector<std::optional<std::string>> costs; // cost networks: exact cost text, "null"
    // Loopy belief propagation: per case, how its iterations ended (empty when exact).
    std::vector<uint32_t> iterations;
    std::vector<uint8_t> converged;
    std::vector<double> maxResidual;
    DeviceReport device; // of the first case answered
    std::string route, routeWhy;
};

// `modelPath` names a case's error that names no file, as the command line does.
AnswerColumns answerColumns(Task task, std::vector<Result<TaskResult>> &&results,
                            const std::vector<Variable> &variables, const std::string &modelPath);

} // namespace zbddc::python
