#include "answer_columns.h"

#include "ir/number_text.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace zbddc::python {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string noteOf(const TaskResult &r, const DeviceReport &batchDevice) {
    std::string note = r.numericNote;
    auto add = [&](const std::string &part) { note += (note.empty() ? "" : "; ") + part; };
    if (r.approximate)
        add("approximate: " + std::to_string(r.approximate->iterations) + " iterations, " +
            (r.approximate->converged ? "converged" : "not converged") + ", max residual " +
            shortestText(r.approximate->maxResidual));
    if (r.errorBound)
        add(std::string(numericName(r.numeric)) + " error bound: relative " +
            shortestText(r.errorBound->value));
    if (const std::string device = r.device.label(); device != batchDevice.label())
        add("device: " + device);
    return note;
}

} // namespace

AnswerColumns answerColumns(Task task, std::vector<Result<TaskResult>> &&results,
                            const std::vector<Variable> &variables, const std::string &modelPath) {
    AnswerColumns out;
    const size_t n = results.size();
    out.task = task;
    out.cases = n;
    out.value.assign(n, kNaN);
    out.log10.assign(n, kNaN);
    out.errors.resize(n);
    out.notes.resize(n);
    out.numeric.resize(n);
    size_t width = 0;
    for (const Variable &v : variables)
        width += v.states.size();
    out.width = width;
    if (task == Task::Mar)
        out.marginals.assign(n * width, kNaN);
    if (task == Task::Mpe)
        out.states.assign(n * variables.size(), -1);
    for (const Result<TaskResult> &r : results)
        if (r) {
            out.device = r->device;
            out.route = r->route;
            out.routeWhy = r->routeWhy;
            break;
        }
    for (size_t c = 0; c < n; ++c) {
        if (!results[c]) {
            const Diagnostic &d = results[c].error();
            out.errors[c] = (d.file.empty() ? errorAt(modelPath, 0, d.message) : d).str();
            continue;
        }
        const TaskResult &r = *results[c];
        out.value[c] = r.value;
        out.log10[c] = r.log10;
        out.numeric[c] = numericName(r.numeric);
        out.notes[c] = noteOf(r, out.device);
        if (task == Task::Mar) {
            double *row = out.marginals.data() + c * width;
            for (size_t v = 0; v < r.marginals.size() && v < variables.size(); ++v) {
                auto probabilities = r.marginals[v];
                const size_t k = std::min(probabilities.size(), variables[v].states.size());
                std::copy_n(probabilities.begin(), k, row);
                row += variables[v].states.size();
            }
        }
        if (task == Task::Mpe) {
            int64_t *row = out.states.data() + c * variables.size();
            for (size_t v = 0; v < r.assignment.size() && v < variables.size(); ++v)
                row[v] = r.assignment[v] == kNone ? -1 : int64_t(r.assignment[v]);
        }
        if (r.cost) {
            if (out.costs.empty())
                out.costs.resize(n);
            out.costs[c] = *r.cost;
        }
        if (r.approximate) {
            if (out.iterations.empty()) {
                out.iterations.assign(n, 0);
                out.converged.assign(n, 0);
                out.maxResidual.assign(n, kNaN);
            }
            out.iterations[c] = r.approximate->iterations;
            out.converged[c] = r.approximate->converged;
            out.maxResidual[c] = r.approximate->maxResidual;
        }
    }
    return out;
}

} // namespace zbddc::python
