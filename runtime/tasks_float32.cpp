#include "runtime/tasks_float32.h"

#include "runtime/float32_bound.h"
#include "runtime/marginals.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

namespace zbddc {

namespace {

constexpr double kLn10 = 2.302585092994045684;

std::string scientific(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2g", v);
    return text;
}

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
    return name + "'s error bound " + scientific(worst) + " exceeds " + scientific(kFloat32MaxError);
}

} // namespace

std::vector<Result<TaskResult>> runFloat32Tasks(Model &m, Task task, std::span<const Evidence> cases,
                                                const TaskOptions &opt) {
    const bool log = opt.numeric == NumericChoice::Log32;
    const Numeric mode = log ? Numeric::Log32 : Numeric::Float32;
    const std::string name = numericName(mode);
    std::vector<std::optional<Result<TaskResult>>> slots(cases.size());
    auto failAll = [&](const Diagnostic &d) {
        return std::vector<Result<TaskResult>>(cases.size(), Result<TaskResult>(d));
    };
    auto results = [&] {
        std::vector<Result<TaskResult>> all;
        for (auto &slot : slots)
            all.push_back(std::move(*slot));
        return all;
    };
    if (task != Task::Pr && task != Task::Mar)
        return failAll(error("--numeric " + name +
                             " answers pr and mar (an MPE assignment needs exact ties; eval reports "
                             "values as they are)"));
    if (m.numOutputs() == 0)
        return failAll(error("the model has no outputs"));
    if (task == Task::Mar && m.interface().variables.empty())
        return failAll(error("MAR needs a model with variables (indicator inputs)"));
    const Circuit *circuit = m.circuit();
    if (!circuit)
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
                addDeviceNote(*again[j], again[j]->numericNote);
            }
            slots[which[j]] = std::move(again[j]);
        }
    };
    if (m.device() != DeviceKind::Cuda && m.device() != DeviceKind::Reference) {
        std::vector<size_t> all(cases.size());
        for (size_t i = 0; i < cases.size(); ++i)
            all[i] = i;
        answerElsewhere(all, std::vector<std::string>(cases.size(), name + " runs on the GPU only"));
        return results();
    }

    const ModelInterface &c = m.interface();
    const size_t n = c.numInputs(), outs = m.numOutputs();
    std::vector<size_t> valid;
    std::vector<double> xs;
    for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].states.size() != c.variables.size()) {
            slots[i] = Result<TaskResult>(error("evidence does not match the model's variables"));
            continue;
        }
        auto x = inputVector(c, cases[i], opt.freeInputs);
        if (!x) {
            slots[i] = Result<TaskResult>(x.error());
            continue;
        }
        valid.push_back(i);
        xs.insert(xs.end(), x->begin(), x->end());
    }
    if (valid.empty())
        return results();
    if (Status compiled = m.prepare(Semiring::SumProduct, mode, valid.size()); !compiled)
        return failAll(compiled.error());
    const auto start = std::chrono::steady_clock::now();
    const Float32Analysis an = analyzeFloat32(*circuit, mode, xs);
    auto out = m.evaluate(Semiring::SumProduct, mode, xs, valid.size());
    if (!out)
        return failAll(out.error());

    std::vector<size_t> accepted, rejected;
    std::vector<std::string> why;
    std::vector<TaskResult> answers;
    std::vector<double> acceptedXs;
    for (size_t k = 0; k < valid.size(); ++k) {
        const double y = (*out)[k * outs];
        const ErrorBound b = float32Bound(an, y);
        if (!(b.value <= kFloat32MaxError && (task != Task::Mar || b.marginals <= kFloat32MaxError))) {
            rejected.push_back(valid[k]);
            why.push_back(rejection(an, b, task, y));
            continue;
        }
        TaskResult r;
        r.task = task;
        r.numeric = mode;
        r.value = log ? std::exp(y) : y;
        r.log10 = log ? y / kLn10 : std::log10(y);
        r.errorBound = b;
        if (task != Task::Mar)
            r.errorBound->marginals = 0;
        r.device = m.describe(mode);
        accepted.push_back(k);
        answers.push_back(std::move(r));
        acceptedXs.insert(acceptedXs.end(), xs.begin() + k * n, xs.begin() + (k + 1) * n);
    }
    if (task == Task::Mar && !accepted.empty()) { // one adjoint pass over the accepted cases
        auto adj = m.adjoints(Semiring::SumProduct, mode, acceptedXs, accepted.size(), 0);
        if (!adj)
            return failAll(adj.error());
        for (size_t j = 0; j < accepted.size(); ++j)
            marginalsFromAdjoints(c, mode, std::span(*adj).subspan(j * n, n),
                                  (*out)[accepted[j] * outs], cases[valid[accepted[j]]], answers[j]);
    }
    const double perCase =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
        static_cast<double>(valid.size());
    for (size_t j = 0; j < accepted.size(); ++j) {
        answers[j].timeMs = perCase;
        slots[valid[accepted[j]]] = Result<TaskResult>(std::move(answers[j]));
    }
    if (!rejected.empty())
        answerElsewhere(rejected, why);
    return results();
}

} // namespace zbddc
