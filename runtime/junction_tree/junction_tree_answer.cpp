#include "runtime/junction_tree/junction_tree_answer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace zbddc {

namespace {

// A table's value for case b with variable v at x and every other variable at 0 (the
// normaliser's and the scales' tables hold only the case; a marginal's, at most v and the case):
// strides, where a whole assignment per case cost an allocation and a walk of the scope.
double valueFor(const JunctionTreeProgram &jt, const std::vector<std::vector<double>> &computed,
                uint32_t table, uint32_t b, uint32_t v = 0, uint32_t x = 0) {
    const Table &t = jt.program.tables[table];
    const uint64_t row = b * variableStride(t, jt.batchVariable) + x * variableStride(t, v);
    return t.input ? t.values[row] : computed[table][row];
}

} // namespace

bool evidenceContradicted(const Evidence &ev) {
    return std::find(ev.states.begin(), ev.states.end(), kContradicted) != ev.states.end();
}

Result<TaskResult> contradictedEvidenceAnswer(Task task) {
    if (task == Task::Mar || task == Task::Mpe)
        return undefinedError(task);
    TaskResult r;
    r.task = task;
    r.value = 0;
    r.log10 = -std::numeric_limits<double>::infinity();
    return r;
}

double junctionTreeLogNormaliser(const JunctionTreeProgram &jt,
                                 const std::vector<std::vector<double>> &computed, uint32_t b) {
    const double z = valueFor(jt, computed, jt.normaliser, b);
    if (z <= 0)
        return -std::numeric_limits<double>::infinity();
    double log = std::log(z) + jt.logScale;
    for (uint32_t s : jt.collectScales)
        log -= std::log(valueFor(jt, computed, s, b));
    return log;
}

Result<TaskResult> junctionTreeAnswer(Task task, const JunctionTree &tree,
                                      const JunctionTreeProgram &jt,
                                      const std::vector<std::vector<double>> &computed, uint32_t b,
                                      const Evidence &ev, const uint32_t *decoded,
                                      std::optional<bool> decodedTied) {
    TaskResult r;
    r.task = task;
    const double log = junctionTreeLogNormaliser(jt, computed, b);
    r.log10 = log / std::numbers::ln10;
    r.value = std::exp(log);
    if (task == Task::Mar) {
        if (std::isinf(log))
            return undefinedError(Task::Mar);
        r.marginals.assignZeros(tree.numVariables(), [&](size_t v) { return tree.domainSizes[v]; });
        for (uint32_t v = 0; v < tree.numVariables(); ++v) {
            const std::span<double> m = r.marginals[v];
            if (ev.states[v] != kNone) {
                m[ev.states[v]] = 1;
                continue;
            }
            double sum = 0;
            for (uint32_t x = 0; x < m.size(); ++x)
                sum += m[x] = valueFor(jt, computed, jt.marginalTable[v], b, v, x);
            for (double &p : m)
                p /= sum;
        }
    }
    if (task == Task::Mpe) {
        if (std::isinf(log))
            return undefinedError(Task::Mpe);
        if (decoded) {
            r.assignment.assign(decoded, decoded + tree.numVariables());
            r.mpeTied = decodedTied;
            return r;
        }
        std::vector<uint32_t> assignment(tree.numVariables() + 1, 0);
        std::vector<uint8_t> observed(tree.numVariables() + 1, 0);
        for (uint32_t v = 0; v < tree.numVariables(); ++v) {
            observed[v] = ev.states[v] != kNone;
            assignment[v] = observed[v] ? ev.states[v] : 0;
        }
        assignment[jt.batchVariable] = b;
        bool tied = false;
        recoverAssignment(jt.program, computed, assignment, &observed, &tied);
        assignment.pop_back();
        r.assignment = std::move(assignment);
        r.mpeTied = tied;
    }
    return r;
}

} // namespace zbddc
