#include "dict_evidence.h"

#include "evidence_rows.h"

#include <algorithm>
#include <string>

namespace zbddc::python {

namespace nb = nanobind;

namespace {

std::string casePrefix(size_t c, size_t cases) {
    return cases > 1 ? "case " + std::to_string(c) + ": " : "";
}

// The state that `value` names for `variable`, or kUnobserved; errors without their "evidence: ".
Result<int64_t> stateOf(const Variable &variable, nb::handle value) {
    if (value.is_none())
        return kUnobserved;
    if (nb::isinstance<nb::str>(value)) {
        const std::string name = nb::cast<std::string>(value);
        auto it = std::find(variable.states.begin(), variable.states.end(), name);
        if (it == variable.states.end())
            return error("unknown state '" + name + "' of variable '" + variable.name +
                         "'");
        return int64_t(it - variable.states.begin());
    }
    int64_t index = 0;
    if (nb::isinstance<bool>(value) || !nb::try_cast(value, index))
        return error("the state of variable '" + variable.name +
                     "' is neither a state name nor an index");
    if (index != kUnobserved && (index < 0 || uint64_t(index) >= variable.states.size()))
        return error("state " + std::to_string(index) +
                     " is out of range for variable '" + variable.name + "' (" +
                     std::to_string(variable.states.size()) + " states)");
    return index;
}

} // namespace

Result<std::vector<int64_t>> rowsFromDicts(const SessionHandle &model, nb::handle cases) {
    const std::vector<Variable> &variables = model.variables();
    const size_t count = nb::len(cases);
    std::vector<int64_t> rows(count * variables.size(), kUnobserved);
    size_t c = 0;
    for (nb::handle item : cases) {
        if (!nb::isinstance<nb::dict>(item))
            return error("evidence: " + casePrefix(c, count) +
                         "a case is a dict of variable name -> state");
        for (auto [key, value] : nb::borrow<nb::dict>(item)) {
            if (!nb::isinstance<nb::str>(key))
                return error("evidence: " + casePrefix(c, count) +
                             "a variable is named by a string");
            const std::string name = nb::cast<std::string>(key);
            auto v = model.variableIndex(name);
            if (!v)
                return error("evidence: " + casePrefix(c, count) + "unknown variable '" + name +
                             "'");
            auto state = stateOf(variables[*v], value);
            if (!state)
                return error("evidence: " + casePrefix(c, count) + state.error().message);
            rows[c * variables.size() + *v] = *state;
        }
        ++c;
    }
    return rows;
}

} // namespace zbddc::python
