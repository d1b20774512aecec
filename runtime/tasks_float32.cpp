#include "runtime/tasks_float32.h"

#include "ir/number_text.h"
#include "runtime/float32_bound.h"
#include "runtime/marginals.h"
#include "runtime/task_batch.h"
#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace zbddc {

namespace {

// Why a case's float32 answer was not given.
std::string rejection(const Float32Analysis &an, const ErrorBound &b, Task task, double y) {
    const std::string name = numericName(an.numeric);
    if (!an.unusable.empty())
        return name + " has no error bound here: " + an.unusable;
    if (inLogSpace(an.numeric) && !std::isfinite(y))
        return name + ": P(e) = 0";
    if (!inLogSpace(an.numeric) && y == 0)
        return name + " gave 0 (impossible evidence, or an underflow)";
    if (!inLogSpace(an.numeric) && y < 0x1p-126) // below float32's normal range
        return name + " underflowed";
    if (!std::isfinite(b.value))
        return name + " has no error bound here";
    const double worst = task == Task::Mar ? std::max(b.value, b.marginals) : b.value;
    return name + "'s error bound " + twoDigits(worst) + " exceeds " + twoDigits(kFloat32MaxError);
}

} // namespace

std::vector<Result<TaskResult>> runFloat32Tasks(Model &m, Task task, std::span<const Evidence> cases,
                                                const TaskOptions &opt) {
    const bool log = opt.numeric == NumericChoice::Log32;
    const Numeric mode = log ? Numeric::Log32 : Numeric::Float32;
    const std::string name = numericName(mode);
    TaskBatch b;
    b.task = task;
    b.first = mode;
    b.slots.resize(cases.size());
    auto failAll = [&](const Diagnostic &d) {
        return std::vector<Result<TaskResult>>(cases.size(), Result<TaskResult>(d));
    };
    if (task != Task::Pr && task != Task::Mar)
        return failAll(error("--numeric " + name +
                             " answers pr and mar (an MPE assignment needs exact ties; eval reports "
                             "values as they are)"));
    if (auto refused = refusal(m, task))
        return failAll(*refused);
    if (!m.circuit())
        return failAll(error(std::string("this model.so computes in ") +
                             numericName(*m.fixedNumeric()) + "; " + name +
                             " runs on a network or .zdd compiled in process"));
    TaskOptions fallback = opt;
    fallback.numeric = log ? NumericChoice::Log : NumericChoice::Auto;
    const std::string fallbackName = log ? "log" : "float64";
    // The cases `which` answered on the float64 route instead, each with its reason.
    auto answerElsewhere = [&](const std::vector<size_t> &which,
                               const std::vector<std::string> &why) {
        std::vector<Evidence> sub;
        for (size_t i : which)
            sub.push_back(cases[i]);
        std::vector<Result<TaskResult>> again = runTasks(m, task, sub, fallback);
        for (size_t j = 0; j < which.size(); ++j) {
            if (again[j]) {
                again[j]->numericNote = why[j] + ", answered in " + fallbackName;
                again[j]->device.addNote(again[j]->numericNote);
            }
            b.slots[which[j]] = std::move(again[j]);
        }
    };
    if (m.device() != DeviceKind::Cuda && m.device() != DeviceKind::Reference) {
        std::vector<size_t> all(cases.size());
        for (size_t i = 0; i < cases.size(); ++i)
            all[i] = i;
        answerElsewhere(all, std::vector<std::string>(cases.size(), name + " runs on the GPU only"));
        return answersInSlots(b);
    }

    addInputVectors(m, cases, opt, b);
    const std::vector<size_t> &valid = b.valid;
    if (valid.empty())
        return answersInSlots(b);
    if (Status compiled = m.prepare(Semiring::SumProduct, mode, valid.size()); !compiled)
        return failAll(compiled.error());
    b.start = std::chrono::steady_clock::now();
    // Made once per model for batches of the same input ranges (float32_bound.h).
    const Float32Analysis &an = m.float32Analysis(mode, b.inputs);
    // MAR: the values and the adjoints of one pass, as float64's (runBatch in tasks.cpp); the
    // adjoints of the cases whose bound is refused are left unread.
    PassValues pass;
    if (task == Task::Mar) {
        auto both = m.forwardBackward(Semiring::SumProduct, mode, b.inputs, 0);
        if (!both)
            return failAll(both.error());
        pass = std::move(*both);
    } else {
        auto out = m.evaluate(Semiring::SumProduct, mode, b.inputs);
        if (!out)
            return failAll(out.error());
        pass.outputs = std::move(*out);
    }

    const ModelInterface &c = m.interface();
    const size_t n = b.inputs.varying.size(), outs = m.numOutputs(); // n: adjoints per case
    std::vector<size_t> accepted, rejected;
    std::vector<std::string> why;
    std::vector<TaskResult> answers;
    for (size_t k = 0; k < valid.size(); ++k) {
        const double y = pass.outputs[k * outs];
        const ErrorBound bound = float32Bound(an, y);
        if (!(bound.value <= kFloat32MaxError &&
              (task != Task::Mar || bound.marginals <= kFloat32MaxError))) {
            rejected.push_back(valid[k]);
            why.push_back(rejection(an, bound, task, y));
            continue;
        }
        TaskResult r;
        r.task = task;
        r.numeric = mode;
        r.value = linearValue(mode, y);
        r.log10 = log10Value(mode, y);
        r.errorBound = bound;
        if (task != Task::Mar)
            r.errorBound->marginals = 0;
        else
            marginalsFromAdjoints(c, mode, b.inputs.varying,
                                  std::span(pass.adjoints).subspan(k * n, n), y, cases[valid[k]],
                                  r);
        r.device = m.report(mode);
        accepted.push_back(valid[k]);
        answers.push_back(std::move(r));
    }
    const double perCase = msSince(b.start) / static_cast<double>(valid.size());
    for (size_t j = 0; j < accepted.size(); ++j) {
        answers[j].timeMs = perCase;
        b.slots[accepted[j]] = Result<TaskResult>(std::move(answers[j]));
    }
    if (!rejected.empty())
        answerElsewhere(rejected, why);
    return answersInSlots(b);
}

} // namespace zbddc
