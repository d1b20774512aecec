#include "runtime/tasks.h"

#include <chrono>
#include <cmath>
#include <limits>

namespace zbddc {

const char *taskName(Task t) {
    switch (t) {
    case Task::Eval: return "eval";
    case Task::Pr: return "pr";
    case Task::Mar: return "mar";
    case Task::Mpe: return "mpe";
    }
    return "?";
}

std::optional<Task> parseTask(std::string_view name) {
    for (Task t : {Task::Eval, Task::Pr, Task::Mar, Task::Mpe})
        if (name == taskName(t))
            return t;
    return std::nullopt;
}

namespace {

constexpr double kLn10 = 2.302585092994045684;

// Float64 first; log space where float64 lost the value (0 or subnormal output) but log space
// still holds it. A genuine zero stays zero in both.
Result<Evaluation> evaluateSafely(const Circuit &c, const std::vector<double> &x, Semiring s,
                                  NumericChoice choice) {
    if (choice == NumericChoice::Log)
        return evaluate(c, x, s, Numeric::Log);
    auto lin = evaluate(c, x, s, Numeric::Float64);
    if (!lin || choice == NumericChoice::Float64 || c.outputs.empty())
        return lin;
    const double out = lin->values[c.outputs[0]];
    if (out != 0 && std::fabs(out) >= std::numeric_limits<double>::min())
        return lin;
    return evaluate(c, x, s, Numeric::Log);
}

double outputValue(const Evaluation &e, NodeId node) {
    return e.numeric == Numeric::Log ? std::exp(e.values[node]) : e.values[node];
}

double outputLog10(const Evaluation &e, NodeId node) {
    return e.numeric == Numeric::Log ? e.values[node] / kLn10 : std::log10(e.values[node]);
}

// MAR: P(X=x, e) = ∂f/∂λ_x (Darwiche); observed variables get their observed state.
void marginals(const Circuit &c, const Evaluation &e, const Evidence &ev, TaskResult &r) {
    const std::vector<double> adj = inputAdjoints(c, e, 0);
    const double root = e.values[c.outputs[0]];
    r.marginals.resize(c.variables.size());
    for (size_t v = 0; v < c.variables.size(); ++v)
        r.marginals[v].assign(c.variables[v].states.size(), 0.0);
    for (size_t i = 0; i < c.numInputs(); ++i) {
        const InputInfo &in = c.inputs[i];
        if (in.kind != InputKind::Indicator)
            continue;
        const double p = e.numeric == Numeric::Log ? std::exp(adj[i] - root) : adj[i] / root;
        r.marginals[in.variable][in.state] += p;
    }
    for (size_t v = 0; v < c.variables.size(); ++v)
        if (ev.states[v] != kNone)
            for (size_t s = 0; s < r.marginals[v].size(); ++s)
                r.marginals[v][s] = s == ev.states[v] ? 1.0 : 0.0;
}

void mpeAssignment(const Circuit &c, const Evaluation &e, const Evidence &ev, TaskResult &r) {
    r.assignment = ev.states;
    for (uint32_t i : traceback(c, e, 0))
        if (c.inputs[i].kind == InputKind::Indicator)
            r.assignment[c.inputs[i].variable] = c.inputs[i].state;
}

} // namespace

Result<TaskResult> runTask(const Circuit &c, Task task, const Evidence &ev, const TaskOptions &opt) {
    const auto start = std::chrono::steady_clock::now();
    if (c.outputs.empty())
        return error("the model has no outputs");
    if (ev.states.size() != c.variables.size())
        return error("evidence does not match the model's variables");
    auto x = inputVector(c, ev, opt.freeInputs);
    if (!x)
        return x.error();
    if (task == Task::Mar && c.variables.empty())
        return error("MAR needs a model with variables (indicator inputs)");

    const Semiring ring = task == Task::Mpe ? Semiring::MaxProduct
                          : task == Task::Eval ? c.semiring
                                               : Semiring::SumProduct;
    // EVAL reports values as they are; the probability tasks may switch to log space.
    auto e = evaluateSafely(c, *x, ring, task == Task::Eval ? NumericChoice::Float64 : opt.numeric);
    if (!e)
        return e.error();

    TaskResult r;
    r.task = task;
    r.numeric = e->numeric;
    r.value = outputValue(*e, c.outputs[0]);
    r.log10 = outputLog10(*e, c.outputs[0]);
    if (task == Task::Eval)
        for (NodeId o : c.outputs)
            r.outputs.push_back(outputValue(*e, o));
    if (task == Task::Mar) {
        if (r.log10 == -std::numeric_limits<double>::infinity())
            return error("MAR is undefined: the evidence has probability 0");
        marginals(c, *e, ev, r);
    }
    if (task == Task::Mpe)
        mpeAssignment(c, *e, ev, r);
    r.timeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return r;
}

} // namespace zbddc
