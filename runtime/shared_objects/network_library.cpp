#include "runtime/shared_objects/network_library.h"

#include "runtime/shared_objects/shared_object_check.h"
#include "support/timer.h"
#include "zbdd_network.h"

#include <cmath>
#include <numbers>

namespace zbddc {

Result<NetworkLibrary> NetworkLibrary::open(const std::string &path) {
    // A model.so of a network's MLF carries the network functions beside its own.
    auto lib = SharedLibrary::open(path, sharedObjectKind(path) == "model.so" ? kModelSo : kNetworkSo);
    if (!lib)
        return lib.error();
    NetworkLibrary n;
    int (*abi)(void);
    size_t (*count)(void);
    unsigned (*states)(size_t);
    lib->bind(abi, "zbdd_network_abi_version");
    lib->bind(count, "zbdd_network_num_variables");
    lib->bind(states, "zbdd_network_num_states");
    lib->bind(n.pr_, "zbdd_network_pr");
    lib->bind(n.mar_, "zbdd_network_mar");
    lib->bind(n.mpe_, "zbdd_network_mpe");
    lib->bind(n.numMarginals_, "zbdd_network_num_marginals");
    lib->bind(n.threads_, "zbdd_network_set_threads");
    if (Status s = lib->bound(); !s)
        return s.error();
    if (abi() != ZBDD_NETWORK_ABI_VERSION)
        return lib->fail("network ABI version " + std::to_string(abi()) +
                         " is not the supported " + std::to_string(ZBDD_NETWORK_ABI_VERSION));
    auto text = lib->text("zbdd_network_metadata");
    if (!text)
        return text.error();
    auto m = parseNetworkMetadata(*text, lib->metadataName());
    if (!m)
        return m.error();
    bool agree = m->variables.size() == count();
    size_t marginals = 0;
    for (size_t v = 0; agree && v < count(); ++v) {
        agree = states(v) == m->variables[v].states.size();
        marginals += states(v);
    }
    if (!agree || marginals != n.numMarginals_())
        return lib->fail("metadata disagrees with zbdd_network_num_variables/num_states");
    n.metadata_ = std::move(*m);
    n.lib_ = std::move(*lib);
    return n;
}

void NetworkLibrary::setThreads(unsigned threads) const {
    threads_(threads);
}

bool NetworkLibrary::answers(Task task) const {
    for (const auto &[key, value] : metadata_.facts)
        if (key == "tasks") {
            const std::string name = taskName(task);
            const std::string list = "," + value + ",";
            return list.find("," + name + ",") != std::string::npos;
        }
    return false;
}

namespace {

const char *returnCodeText(int rc) {
    switch (rc) {
    case ZBDD_NETWORK_ENOMEM:
        return "out of memory (ZBDD_NETWORK_ENOMEM)";
    case ZBDD_NETWORK_EARG:
        return "an argument was refused (ZBDD_NETWORK_EARG)";
    case ZBDD_NETWORK_ENOTASK:
        return "this .so does not answer the task (ZBDD_NETWORK_ENOTASK)";
    default:
        return "an unknown return code";
    }
}

} // namespace

std::vector<Result<TaskResult>> NetworkLibrary::run(Task task,
                                                    std::span<const Evidence> cases) const {
    const size_t n = metadata_.variables.size();
    std::vector<Result<TaskResult>> results;
    if (task == Task::Eval) {
        results.assign(cases.size(), error("a network .so answers pr, mar and mpe"));
        return results;
    }
    // Contradicted cases (a variable observed twice) are P(e) = 0 without asking the library.
    std::vector<int> evidence(cases.size() * n, ZBDD_UNOBSERVED);
    std::vector<bool> contradicted(cases.size(), false);
    for (size_t c = 0; c < cases.size(); ++c) {
        if (cases[c].states.size() != n) {
            results.assign(cases.size(), error("evidence does not match the network's variables"));
            return results;
        }
        for (size_t v = 0; v < n; ++v) {
            const uint32_t s = cases[c].states[v];
            contradicted[c] = contradicted[c] || s == kContradicted;
            if (s != kNone && s != kContradicted)
                evidence[c * n + v] = static_cast<int>(s);
        }
    }
    const SteadyTime start = std::chrono::steady_clock::now();
    const size_t width = numMarginals_();
    std::vector<double> log10(cases.size()), marginals;
    std::vector<int> status(cases.size()), assignment;
    int rc = ZBDD_NETWORK_OK;
    if (!cases.empty()) {
        if (task == Task::Pr)
            rc = pr_(evidence.data(), cases.size(), log10.data(), status.data());
        else if (task == Task::Mar) {
            marginals.resize(cases.size() * width);
            rc =
                mar_(evidence.data(), cases.size(), marginals.data(), log10.data(), status.data());
        } else {
            assignment.resize(cases.size() * n);
            rc = mpe_(evidence.data(), cases.size(), assignment.data(), log10.data(),
                       status.data());
        }
    }
    if (rc != ZBDD_NETWORK_OK) {
        results.assign(cases.size(),
                       errorAt(lib_.path(), 0,
                               std::string("zbdd_network_") + std::string(taskName(task)) + ": " +
                                   returnCodeText(rc)));
        return results;
    }
    const double perCase = cases.empty() ? 0 : msSince(start) / static_cast<double>(cases.size());
    DeviceReport device{DeviceKind::Cpu, "",
                        std::string(metadata_.route == "jt" ? "network.so" : "model.so") +
                            ", route " + metadata_.route};
    // Route mlf computes in its circuit's arithmetic; route jt in float64, rescaled per case.
    Numeric numeric = Numeric::Float64;
    for (const auto &[key, value] : metadata_.facts)
        if (key == "numeric" && value == "log")
            numeric = Numeric::Log;
    for (size_t c = 0; c < cases.size(); ++c) {
        if (!contradicted[c] && status[c] == ZBDD_CASE_UNDERFLOW) {
            results.push_back(error("P(e) is 0 or below float64's range in this model.so; one "
                                    "compiled with --numeric log tells them apart"));
            continue;
        }
        const bool zero = contradicted[c] || status[c] == ZBDD_CASE_ZERO;
        if (zero && task != Task::Pr) {
            results.push_back(undefinedError(task));
            continue;
        }
        TaskResult r;
        r.task = task;
        r.log10 = zero ? -INFINITY : log10[c];
        r.value = std::exp(r.log10 * std::numbers::ln10);
        if (task == Task::Mar) {
            const double *m = marginals.data() + c * width;
            for (const Variable &v : metadata_.variables) {
                r.marginals.push_back({m, v.states.size()});
                m += v.states.size();
            }
        }
        if (task == Task::Mpe)
            for (size_t v = 0; v < n; ++v)
                r.assignment.push_back(static_cast<uint32_t>(assignment[c * n + v]));
        r.numeric = numeric;
        r.device = device;
        r.device.arithmetic = numeric;
        r.timeMs = perCase;
        results.push_back(std::move(r));
    }
    return results;
}

} // namespace zbddc
