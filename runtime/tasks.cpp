#include "runtime/tasks.h"

#include "runtime/device_list.h"
#include "runtime/marginals.h"
#include "runtime/tasks_float32.h"
#include "runtime/mpe_decode.h"
#include "runtime/task_batch.h"
#include "support/name_table.h"
#include "support/threads.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <numbers>
#include <optional>
#include <thread>

namespace zbddc {

Diagnostic undefinedError(Task task) {
    return error(std::string(task == Task::Mar ? "MAR" : "MPE") +
                 " is undefined: the evidence has probability 0");
}

namespace {
constexpr Named<Task> kTaskNames[] = {
    {Task::Eval, "eval"}, {Task::Pr, "pr"}, {Task::Mar, "mar"}, {Task::Mpe, "mpe"}};
} // namespace

const char *taskName(Task t) { return nameIn(kTaskNames, t); }

std::optional<Task> parseTask(std::string_view name) { return valueNamed(kTaskNames, name); }

namespace {

// Output values of one forward pass and the arithmetic that produced them.
struct Forward {
    Numeric numeric = Numeric::Float64;
    std::vector<double> outputs; // natural logs in Log mode
};

bool lostInFloat64(double v) { return v == 0 || std::fabs(v) < std::numeric_limits<double>::min(); }

// Float64 asked for (--numeric float64) and the answer lost in it: where log space still holds
// it, an underflow, said as one (it read as "probability 0"); a genuine zero stays an answer.
bool forcedFloat64(const Model &m, Task task, const TaskOptions &opt) {
    return task != Task::Eval && !m.fixedNumeric() && opt.numeric == NumericChoice::Float64;
}

Diagnostic underflowError(double naturalLog) {
    char log10[32];
    std::snprintf(log10, sizeof log10, "%.6g", naturalLog / std::numbers::ln10);
    return error(std::string("float64 underflowed: log10 of the answer is ") + log10 +
                 "; use --numeric log, or auto (the default)");
}

// Float64 first; log space where float64 lost the value (0 or subnormal output) but log space
// still holds it. A genuine zero stays zero in both. A model.so has one compiled-in mode.
Result<Forward> forwardSafely(Model &m, const std::vector<double> &x, Semiring s,
                              NumericChoice choice) {
    if (auto fixed = m.fixedNumeric()) {
        if (choice != NumericChoice::Auto && (choice == NumericChoice::Log) != (*fixed == Numeric::Log))
            return error(std::string("this model.so computes in ") + numericName(*fixed) +
                         "; compile one with --numeric " +
                         (choice == NumericChoice::Log ? "log" : "float64"));
        auto out = m.evaluate(s, *fixed, x);
        if (!out)
            return out.error();
        return Forward{*fixed, std::move(*out)};
    }
    const Numeric first = choice == NumericChoice::Log ? Numeric::Log : Numeric::Float64;
    auto out = m.evaluate(s, first, x);
    if (!out)
        return out.error();
    if (first == Numeric::Log || choice == NumericChoice::Float64 || !lostInFloat64((*out)[0]))
        return Forward{first, std::move(*out)};
    auto log = m.evaluate(s, Numeric::Log, x);
    if (!log)
        return log.error();
    return Forward{Numeric::Log, std::move(*log)};
}

// Threads that build `cases` answers: at least 128 cases a thread (a thread's start costs tens
// of microseconds, an answer a few).
unsigned answerThreads(size_t cases) {
    return threadsFor(cases, 128);
}

double linear(const Forward &f, double v) {
    return linearValue(f.numeric, v);
}
double log10Of(const Forward &f, double v) {
    return log10Value(f.numeric, v);
}

Status marginals(Model &m, const Forward &f, const std::vector<double> &x, const Evidence &ev,
                 TaskResult &r) {
    auto adj = m.adjoints(Semiring::SumProduct, f.numeric, x, 1, 0);
    if (!adj)
        return adj.error();
    const std::vector<uint32_t> indicators = indicatorInputs(m.interface());
    std::vector<double> ofIndicators;
    for (uint32_t i : indicators)
        ofIndicators.push_back((*adj)[i]);
    marginalsFromAdjoints(m.interface(), f.numeric, indicators, ofIndicators, f.outputs[0], ev, r);
    return Ok{};
}

// How a batch's MPE assignments were found, for the device note.
std::string decodeNote(const MpeBatch &decoded) {
    const size_t cases = decoded.assignments.size();
    return "MPE decoded from max-product adjoints, " + std::to_string(decoded.passes) +
           (decoded.passes == 1 ? " pass" : " passes") +
           (cases > 1 ? " over " + std::to_string(cases) + " cases" : "");
}

// Case k's assignment from a batch's traced terms: the state of each variable on its term, the
// evidence's where none is (kNone where the evidence has none either), as decodeMpe gives it.
std::vector<uint32_t> tracedAssignment(const TracedTerms &t, size_t k, const Evidence &ev) {
    std::vector<uint32_t> states = ev.states;
    const size_t vars = states.size();
    for (size_t v = 0; v < vars; ++v)
        if (const uint32_t s = t.states[k * vars + v]; s != kNone)
            states[v] = s;
    return states;
}

// One case: the backend's own traceback where it has one (the reference evaluator, CUDA in
// latency mode: one forward and a walk, no tie passes), else decoding from its max-product
// adjoints.
Result<std::string> mpeAssignment(Model &m, const Forward &f, const std::vector<double> &x,
                                  const Evidence &ev, const TaskOptions &opt, TaskResult &r) {
    const ModelInterface &c = m.interface();
    if (auto traced = m.traceback(Semiring::MaxProduct, f.numeric, x, 0)) {
        if (!*traced)
            return traced->error();
        r.assignment = ev.states;
        for (uint32_t i : **traced)
            if (c.inputs[i].kind == InputKind::Indicator)
                r.assignment[c.inputs[i].variable] = c.inputs[i].state;
        return std::string("MPE traced back");
    }
    auto decoded = decodeMpe(m, f.numeric, std::span(&ev, 1), opt.freeInputs,
                             std::span(&f.outputs[0], 1));
    if (!decoded)
        return decoded.error();
    r.assignment = std::move(decoded->assignments[0]);
    r.mpeTied = decoded->tied[0] != 0;
    return decodeNote(*decoded);
}

// The semiring a task needs; a model.so must have been compiled in it.
Result<Semiring> taskSemiring(const Model &m, Task task) {
    const Semiring needed = task == Task::Mpe   ? Semiring::MaxProduct
                            : task == Task::Eval ? m.interface().semiring
                                                 : Semiring::SumProduct;
    if (auto fixed = m.fixedSemiring(); fixed && *fixed != needed)
        return error("this model.so was compiled in " + std::string(semiringName(*fixed)) + "; " +
                     taskName(task) + " needs " + std::string(semiringName(needed)) +
                     " (compile one with `zbddc MODEL -o model.so --semiring " +
                     std::string(semiringName(needed)) + "`)");
    return needed;
}

} // namespace

static bool float32Choice(NumericChoice n) { return n == NumericChoice::Float32 || n == NumericChoice::Log32; }

Result<TaskResult> runTask(Model &m, Task task, const Evidence &ev, const TaskOptions &opt) {
    if (float32Choice(opt.numeric))
        return std::move(runFloat32Tasks(m, task, std::span(&ev, 1), opt)[0]);
    const auto start = std::chrono::steady_clock::now();
    const ModelInterface &c = m.interface();
    if (m.numOutputs() == 0)
        return error("the model has no outputs");
    if (ev.states.size() != c.variables.size())
        return error("evidence does not match the model's variables");
    auto x = inputVector(c, ev, opt.freeInputs);
    if (!x)
        return x.error();
    if (task == Task::Mar && c.variables.empty())
        return error("MAR needs a model with variables (indicator inputs)");
    auto ring = taskSemiring(m, task);
    if (!ring)
        return ring.error();

    // EVAL reports values as they are; the probability tasks may switch to log space.
    auto f = forwardSafely(m, *x, *ring,
                           task == Task::Eval && !m.fixedNumeric() ? NumericChoice::Float64 : opt.numeric);
    if (!f)
        return f.error();
    if (forcedFloat64(m, task, opt) && lostInFloat64(f->outputs[0])) {
        auto log = m.evaluate(*ring, Numeric::Log, *x);
        if (!log)
            return log.error();
        if (std::isfinite((*log)[0]))
            return underflowError((*log)[0]);
    }

    TaskResult r;
    r.task = task;
    r.numeric = f->numeric;
    r.value = linear(*f, f->outputs[0]);
    r.log10 = log10Of(*f, f->outputs[0]);
    std::string how;
    if (task == Task::Eval)
        for (double o : f->outputs)
            r.outputs.push_back(linear(*f, o));
    if (task == Task::Mar) {
        if (r.log10 == -std::numeric_limits<double>::infinity())
            return undefinedError(task);
        if (Status s = marginals(m, *f, *x, ev, r); !s)
            return s.error();
    }
    if (task == Task::Mpe) {
        // One rule on every device: no assignment is consistent with impossible evidence (the
        // CPU printed -1s, the reference an assignment contradicting the evidence).
        if (r.log10 == -std::numeric_limits<double>::infinity())
            return undefinedError(task);
        auto note = mpeAssignment(m, *f, *x, ev, opt, r);
        if (!note)
            return note.error();
        how = *note;
    }
    r.device = m.report(f->numeric, how);
    r.timeMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return r;
}

namespace {

std::vector<Result<TaskResult>> failAll(size_t cases, const Diagnostic &d) {
    return std::vector<Result<TaskResult>>(cases, Result<TaskResult>(d));
}

// Every task over many cases at once: one forward pass over every case (then one in log space
// over the cases float64 lost, for Auto), and for MAR one adjoint pass per arithmetic, for MPE
// 1 + (the most ties of any case) batched adjoint passes per arithmetic (runtime/mpe_decode.h);
// for both the first adjoint pass is the forward one. Every pass runs over the evidence batch (on
// a GPU the parameters stay on the device and only the indicators move). So a GPU
// answers many cases per launch and the CPU spreads them over its cores. Where the backend
// traces a whole batch back (the GPU, the CPU's loop and JIT), MPE is one forward pass and
// one walk per case instead, and only the cases a walk could not finish are decoded from
// adjoints. The reference evaluator decodes: it is the oracle, whose one-case traceback
// (runTask) checks the decoding.
std::vector<Result<TaskResult>> runBatch(Model &m, Task task, std::span<const Evidence> cases,
                                         const TaskOptions &opt) {
    TaskBatch batch = beginBatch(m, task, cases, opt);
    if (batch.failed)
        return failAll(cases.size(), *batch.failed);
    PassValues first;
    std::optional<Result<TracedTerms>> traced;
    if (!batch.valid.empty() && task == Task::Mpe)
        traced = m.traceback(batch.ring, batch.first, batch.inputs, 0);
    if (traced) {
        if (!*traced)
            return failAll(cases.size(), traced->error());
        first.outputs = std::move((*traced)->outputs);
        batch.traced = std::move(**traced);
    } else if (!batch.valid.empty() && (task == Task::Mar || task == Task::Mpe)) {
        // The values and the indicators' adjoints together: one pass on a GPU (the impossible
        // cases' adjoints are computed and left unread).
        auto pass = m.forwardBackward(batch.ring, batch.first, batch.inputs, 0);
        if (!pass)
            return failAll(cases.size(), pass.error());
        first = std::move(*pass);
    } else if (!batch.valid.empty()) {
        auto forward = m.evaluate(batch.ring, batch.first, batch.inputs);
        if (!forward)
            return failAll(cases.size(), forward.error());
        first.outputs = std::move(*forward);
    }
    return finishBatch(m, batch, cases, opt, std::move(first));
}

} // namespace

std::optional<Diagnostic> refusal(const Model &m, Task task) {
    if (m.numOutputs() == 0)
        return error("the model has no outputs");
    if (task == Task::Mar && m.interface().variables.empty())
        return error("MAR needs a model with variables (indicator inputs)");
    return std::nullopt;
}

void addInputVectors(const Model &m, std::span<const Evidence> cases, const TaskOptions &opt,
                     TaskBatch &b) {
    const ModelInterface &c = m.interface();
    b.slots.resize(cases.size());
    const bool perCase = !opt.caseFreeInputs.empty();
    // Fails for every case alike (free inputs); per-case free inputs are checked by their count.
    auto inputs = evidenceBatch(c, perCase ? opt.caseFreeInputs[0] : opt.freeInputs);
    std::vector<uint32_t> freeInputs; // the inputs case k sets from caseFreeInputs[k]
    if (inputs) {
        b.inputs = std::move(*inputs);
        for (uint32_t i = 0; perCase && i < c.numInputs(); ++i)
            if (c.inputs[i].kind == InputKind::Free)
                freeInputs.push_back(i);
        std::vector<uint32_t> varying; // the indicators and the free inputs, ascending
        std::merge(b.inputs.varying.begin(), b.inputs.varying.end(), freeInputs.begin(),
                   freeInputs.end(), std::back_inserter(varying));
        b.inputs.varying = std::move(varying);
    }
    for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].states.size() != c.variables.size()) {
            b.slots[i] = Result<TaskResult>(error("evidence does not match the model's variables"));
            continue;
        }
        if (!inputs) {
            b.slots[i] = Result<TaskResult>(inputs.error());
            continue;
        }
        if (perCase && opt.caseFreeInputs[i].size() != freeInputs.size()) {
            b.slots[i] =
                Result<TaskResult>(error("given " + std::to_string(opt.caseFreeInputs[i].size()) +
                                         " input values, the model has " +
                                         std::to_string(freeInputs.size()) + " free inputs"));
            continue;
        }
        b.valid.push_back(i);
    }
    // The valid cases' indicators, on all cores as the answers are (finishBatch).
    const size_t width = b.inputs.varying.size();
    b.inputs.count = b.valid.size();
    b.inputs.values.resize(b.valid.size() * width);
    inRanges(answerThreads(b.valid.size()), b.valid.size(), [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) {
            const std::span<double> row = std::span(b.inputs.values).subspan(k * width, width);
            if (!perCase) {
                indicatorValues(c, b.inputs.varying, cases[b.valid[k]], row);
                continue;
            }
            const std::vector<double> &own = opt.caseFreeInputs[b.valid[k]];
            size_t nextFree = 0;
            for (size_t j = 0; j < width; ++j) {
                const uint32_t input = b.inputs.varying[j];
                if (c.inputs[input].kind == InputKind::Free)
                    row[j] = own[nextFree++];
                else
                    indicatorValues(c, std::span(&input, 1), cases[b.valid[k]], row.subspan(j, 1));
            }
        }
    });
}

double linearValue(Numeric numeric, double output) {
    return inLogSpace(numeric) ? std::exp(output) : output;
}

double log10Value(Numeric numeric, double output) {
    return inLogSpace(numeric) ? output / std::numbers::ln10 : std::log10(output);
}

std::vector<Result<TaskResult>> answersInSlots(TaskBatch &b) {
    std::vector<Result<TaskResult>> results;
    results.reserve(b.slots.size());
    for (auto &slot : b.slots)
        results.push_back(std::move(*slot));
    return results;
}

TaskBatch beginBatch(Model &m, Task task, std::span<const Evidence> cases, const TaskOptions &opt) {
    TaskBatch b;
    b.task = task;
    b.slots.resize(cases.size());
    auto fail = [&](const Diagnostic &d) {
        b.failed = d;
        return std::move(b);
    };
    if (auto refused = refusal(m, task))
        return fail(*refused);
    auto ring = taskSemiring(m, task);
    if (!ring)
        return fail(ring.error());
    b.ring = *ring;
    addInputVectors(m, cases, opt, b);
    const std::optional<Numeric> fixed = m.fixedNumeric();
    b.first = fixed                                                   ? *fixed
              : task != Task::Eval && opt.numeric == NumericChoice::Log ? Numeric::Log
                                                                        : Numeric::Float64;
    if (fixed && opt.numeric != NumericChoice::Auto &&
        (opt.numeric == NumericChoice::Log) != (*fixed == Numeric::Log))
        return fail(error(std::string("this model.so computes in ") + numericName(*fixed) +
                          "; compile one with --numeric " +
                          (opt.numeric == NumericChoice::Log ? "log" : "float64")));
    // time_ms is the answering, not the compile (a GPU's kernels, the JIT's code).
    if (Status compiled = m.prepare(b.ring, b.first, b.valid.size()); !compiled)
        return fail(compiled.error());
    b.start = std::chrono::steady_clock::now();
    return b;
}

std::vector<Result<TaskResult>> finishBatch(Model &m, TaskBatch &b, std::span<const Evidence> cases,
                                            const TaskOptions &opt, PassValues first) {
    const ModelInterface &c = m.interface();
    const Task task = b.task;
    const std::vector<size_t> &valid = b.valid;
    const std::vector<uint32_t> &indicators = b.inputs.varying;
    std::vector<std::optional<Result<TaskResult>>> &slots = b.slots;
    const size_t n = indicators.size(), outs = m.numOutputs(); // n: adjoints per case
    const std::optional<Numeric> fixed = m.fixedNumeric();
    std::vector<Numeric> numeric(valid.size(), b.first);
    std::vector<double> out = std::move(first.outputs);
    // The cases float64 lost (0 or subnormal), answered again in log space: Auto takes those
    // answers, as runTask does one at a time; forced float64 reports the underflows.
    std::vector<char> underflowed(valid.size(), 0);
    const bool autoLog = !fixed && task != Task::Eval && opt.numeric == NumericChoice::Auto;
    if (autoLog || forcedFloat64(m, task, opt)) {
        std::vector<size_t> lost;
        for (size_t k = 0; k < valid.size(); ++k)
            if (lostInFloat64(out[k * outs]))
                lost.push_back(k);
        if (!lost.empty()) {
            auto log = m.evaluate(b.ring, Numeric::Log, b.inputs.subset(lost));
            if (!log)
                return failAll(cases.size(), log.error());
            for (size_t j = 0; j < lost.size(); ++j) {
                const size_t k = lost[j];
                if (autoLog) {
                    numeric[k] = Numeric::Log;
                    std::copy_n(log->begin() + j * outs, outs, out.begin() + k * outs);
                } else if (std::isfinite((*log)[j * outs])) {
                    underflowed[k] = 1;
                    slots[valid[k]] = Result<TaskResult>(underflowError((*log)[j * outs]));
                }
            }
        }
    }
    // The answers are built on all cores, a range of cases each: per case they are allocations
    // (strings, the marginals' table) that would otherwise add microseconds to a GPU's answer.
    const unsigned threads = answerThreads(valid.size());
    std::vector<TaskResult> answers(valid.size());
    const DeviceReport device[2] = {m.report(b.first), m.report(Numeric::Log)}; // once a batch
    inRanges(threads, valid.size(), [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) {
            const std::span<const double> outputs(out.data() + k * outs, outs);
            TaskResult &r = answers[k];
            r.task = task;
            r.numeric = numeric[k];
            r.value = linearValue(r.numeric, outputs[0]);
            r.log10 = log10Value(r.numeric, outputs[0]);
            if (task == Task::Eval)
                for (double o : outputs)
                    r.outputs.push_back(linearValue(r.numeric, o));
            r.device = device[r.numeric == b.first ? 0 : 1];
        }
    });
    // The cases answered in `mode` whose evidence is possible: those MAR and MPE go on with.
    auto possibleIn = [&](Numeric mode) {
        std::vector<size_t> group;
        for (size_t k = 0; k < valid.size(); ++k)
            if (numeric[k] == mode && !underflowed[k] &&
                answers[k].log10 != -std::numeric_limits<double>::infinity())
                group.push_back(k);
        return group;
    };
    // A copy of the first pass's adjoints of the group's cases where `mode` is its arithmetic:
    // MPE's first decoding round is already done.
    auto firstAdjoints = [&](Numeric mode, const std::vector<size_t> &group) {
        std::vector<double> adj;
        if (mode != b.first || first.adjoints.empty())
            return adj;
        for (size_t k : group)
            adj.insert(adj.end(), first.adjoints.begin() + k * n,
                       first.adjoints.begin() + (k + 1) * n);
        return adj;
    };
    if (task == Task::Mar) // one adjoint pass per arithmetic over the cases with P(e) > 0
        for (const Numeric mode : {Numeric::Float64, Numeric::Log}) {
            const std::vector<size_t> group = possibleIn(mode);
            if (group.empty())
                continue;
            // The first pass's adjoints are read in place (row k for case k); another
            // arithmetic's pass has a row per case of the group.
            const bool inPlace = mode == b.first && !first.adjoints.empty();
            std::vector<double> adj;
            if (!inPlace) {
                auto pass = m.adjoints(Semiring::SumProduct, mode, b.inputs.subset(group), 0);
                if (!pass)
                    return failAll(cases.size(), pass.error());
                adj = std::move(*pass);
            }
            inRanges(threads, group.size(), [&](size_t begin, size_t end) {
                for (size_t j = begin; j < end; ++j) {
                    const size_t k = group[j], row = inPlace ? k : j;
                    marginalsFromAdjoints(c, mode, indicators,
                                          std::span(inPlace ? first.adjoints : adj)
                                              .subspan(row * n, n),
                                          out[k * outs], cases[valid[k]], answers[k]);
                }
            });
        }
    if (task == Task::Mpe) // traced by the first pass, or decoded together per arithmetic
        for (const Numeric mode : {Numeric::Float64, Numeric::Log}) {
            std::vector<size_t> group = possibleIn(mode);
            if (mode == b.first && b.traced) {
                const auto walked = std::count_if(group.begin(), group.end(),
                                                  [&](size_t k) { return b.traced->traced[k]; });
                const DeviceReport device =
                    m.report(mode, "MPE traced back over " + std::to_string(walked) + " cases");
                std::erase_if(group, [&](size_t k) {
                    if (!b.traced->traced[k])
                        return false;
                    answers[k].assignment = tracedAssignment(*b.traced, k, cases[valid[k]]);
                    answers[k].mpeTied = tracedTie(*b.traced, k, answers[k].assignment);
                    answers[k].device = device;
                    return true;
                });
            }
            if (group.empty())
                continue;
            std::vector<Evidence> groupCases;
            std::vector<double> best;
            for (size_t k : group) {
                groupCases.push_back(cases[valid[k]]);
                best.push_back(out[k * outs]);
            }
            auto decoded = decodeMpe(m, mode, groupCases, opt.freeInputs, best,
                                     firstAdjoints(mode, group));
            if (!decoded)
                return failAll(cases.size(), decoded.error());
            std::string note = decodeNote(*decoded);
            if (mode == b.first && b.traced) // what stopped these cases' walks
                note += "; not traced: " + b.traced->untraced;
            const DeviceReport device = m.report(mode, note);
            for (size_t j = 0; j < group.size(); ++j) {
                answers[group[j]].assignment = std::move(decoded->assignments[j]);
                answers[group[j]].mpeTied = decoded->tied[j] != 0;
                answers[group[j]].device = device;
            }
        }
    const double perCase = std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - b.start)
                               .count() /
                           static_cast<double>(cases.size());
    for (size_t k = 0; k < valid.size(); ++k) {
        answers[k].timeMs = perCase;
        if (underflowed[k])
            continue; // its slot holds the error
        if ((task == Task::Mar || task == Task::Mpe) &&
            answers[k].log10 == -std::numeric_limits<double>::infinity())
            slots[valid[k]] = Result<TaskResult>(undefinedError(task));
        else
            slots[valid[k]] = Result<TaskResult>(std::move(answers[k]));
    }
    return answersInSlots(b);
}

std::vector<Result<TaskResult>> runTasks(Model &m, Task task, std::span<const Evidence> cases,
                                         const TaskOptions &opt) {
    // Cases with their own free inputs batch where the batch's answers read only indicators'
    // adjoints (PR, MAR, EVAL): MPE's decoding and the float32 path take one free-input vector.
    const bool perCase = !opt.caseFreeInputs.empty();
    if (perCase && opt.caseFreeInputs.size() != cases.size())
        return failAll(cases.size(),
                       error(std::to_string(opt.caseFreeInputs.size()) +
                             " free-input vectors for " + std::to_string(cases.size()) + " cases"));
    if (float32Choice(opt.numeric) && !perCase)
        return runFloat32Tasks(m, task, cases, opt);
    if (cases.size() > 1 && !(perCase && (task == Task::Mpe || float32Choice(opt.numeric))))
        return runBatch(m, task, cases, opt);
    std::vector<Result<TaskResult>> results;
    results.reserve(cases.size());
    TaskOptions own; // each case's: opt with that case's free inputs, copied once, not per case
    if (perCase) {
        own = opt;
        own.caseFreeInputs.clear();
    }
    for (size_t k = 0; k < cases.size(); ++k) {
        if (!perCase) {
            results.push_back(runTask(m, task, cases[k], opt));
            continue;
        }
        own.freeInputs = opt.caseFreeInputs[k];
        results.push_back(float32Choice(opt.numeric)
                              ? std::move(runFloat32Tasks(m, task, cases.subspan(k, 1), own)[0])
                              : runTask(m, task, cases[k], own));
    }
    return results;
}

std::vector<Result<TaskResult>> runTasksOnDevices(std::span<Model> models, Task task,
                                                  std::span<const Evidence> cases,
                                                  const TaskOptions &opt) {
    std::vector<Result<TaskResult>> results = runSplitOverDevices<Result<TaskResult>>(
        cases.size(), models.size(), [&](size_t d, CaseRange range) {
            if (opt.caseFreeInputs.empty())
                return runTasks(models[d], task, cases.subspan(range.first, range.count), opt);
            TaskOptions share = opt; // this device's cases' own free inputs
            share.caseFreeInputs.assign(opt.caseFreeInputs.begin() + range.first,
                                        opt.caseFreeInputs.begin() + range.first + range.count);
            return runTasks(models[d], task, cases.subspan(range.first, range.count), share);
        });
    const std::string spread = "cases split over " + std::to_string(models.size()) + " devices";
    for (Result<TaskResult> &r : results)
        if (r) {
            r->device.addNote(spread);
            r->device.ordinal = -1; // several GPUs
        }
    return results;
}

Result<TaskResult> runTask(const Circuit &c, Task task, const Evidence &ev, const TaskOptions &opt) {
    DeviceOptions o;
    o.device = DeviceKind::Reference;
    Model m = Model::fromCircuit(c, o);
    return runTask(m, task, ev, opt);
}

} // namespace zbddc
