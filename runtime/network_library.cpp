#include "runtime/network_library.h"

#include "runtime/shared_object_check.h"
#include "support/timer.h"
#include "zbdd_network.h"

#include <cmath>
#include <dlfcn.h>
#include <numbers>

namespace zbddc {

struct NetworkLibrary::Handle {
    void *lib = nullptr;
    int (*pr)(const int *, size_t, double *, int *) = nullptr;
    int (*mar)(const int *, size_t, double *, double *, int *) = nullptr;
    int (*mpe)(const int *, size_t, int *, double *, int *) = nullptr;
    size_t (*numMarginals)(void) = nullptr;
    void (*threads)(unsigned) = nullptr;
    ~Handle() {
        if (lib)
            dlclose(lib);
    }
};

bool NetworkLibrary::isNetworkLibrary(const std::string &path) {
    return sharedObjectKind(path) == "network.so";
}

Result<NetworkLibrary> NetworkLibrary::open(const std::string &path) {
    const std::string kind = sharedObjectKind(path);
    if (Status s = checkSharedObjectFile(path, kind == "model.so" ? "model.so" : "network.so"); !s)
        return s.error();
    NetworkLibrary n;
    n.path_ = path;
    n.handle_ = std::make_shared<Handle>();
    Handle &h = *n.handle_;
    // A path as a file (a bare name would search the library path).
    const std::string where = path.find('/') == std::string::npos ? "./" + path : path;
    h.lib = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h.lib) {
        const char *why = dlerror();
        return errorAt(path, 0,
                       std::string("cannot load network: ") + (why ? why : "dlopen failed"));
    }
    auto abi = reinterpret_cast<int (*)(void)>(dlsym(h.lib, "zbdd_network_abi_version"));
    auto count = reinterpret_cast<size_t (*)(void)>(dlsym(h.lib, "zbdd_network_num_variables"));
    auto states = reinterpret_cast<unsigned (*)(size_t)>(dlsym(h.lib, "zbdd_network_num_states"));
    auto meta = reinterpret_cast<const char *(*)(void)>(dlsym(h.lib, "zbdd_network_metadata"));
    h.pr = reinterpret_cast<decltype(h.pr)>(dlsym(h.lib, "zbdd_network_pr"));
    h.mar = reinterpret_cast<decltype(h.mar)>(dlsym(h.lib, "zbdd_network_mar"));
    h.mpe = reinterpret_cast<decltype(h.mpe)>(dlsym(h.lib, "zbdd_network_mpe"));
    h.numMarginals =
        reinterpret_cast<decltype(h.numMarginals)>(dlsym(h.lib, "zbdd_network_num_marginals"));
    h.threads = reinterpret_cast<decltype(h.threads)>(dlsym(h.lib, "zbdd_network_set_threads"));
    if (!abi || !count || !states || !meta || !h.pr || !h.mar || !h.mpe || !h.numMarginals ||
        !h.threads)
        return errorAt(path, 0,
                       "not a network .so: the zbdd_network_* functions of "
                       "zbdd_network.h are missing (compile the network again)");
    if (abi() != ZBDD_NETWORK_ABI_VERSION)
        return errorAt(path, 0,
                       "network ABI version " + std::to_string(abi()) + " is not the supported " +
                           std::to_string(ZBDD_NETWORK_ABI_VERSION));
    auto text = sharedObjectMetadata(meta, path);
    if (!text)
        return text.error();
    auto m = parseNetworkMetadata(*text, path + "(metadata)");
    if (!m)
        return m.error();
    bool agree = m->variables.size() == count();
    size_t marginals = 0;
    for (size_t v = 0; agree && v < count(); ++v) {
        agree = states(v) == m->variables[v].states.size();
        marginals += states(v);
    }
    if (!agree || marginals != h.numMarginals())
        return errorAt(path, 0, "metadata disagrees with zbdd_network_num_variables/num_states");
    n.metadata_ = std::move(*m);
    return n;
}

void NetworkLibrary::setThreads(unsigned threads) const {
    handle_->threads(threads);
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
    const Handle &h = *handle_;
    const size_t width = h.numMarginals();
    std::vector<double> log10(cases.size()), marginals;
    std::vector<int> status(cases.size()), assignment;
    int rc = ZBDD_NETWORK_OK;
    if (!cases.empty()) {
        if (task == Task::Pr)
            rc = h.pr(evidence.data(), cases.size(), log10.data(), status.data());
        else if (task == Task::Mar) {
            marginals.resize(cases.size() * width);
            rc =
                h.mar(evidence.data(), cases.size(), marginals.data(), log10.data(), status.data());
        } else {
            assignment.resize(cases.size() * n);
            rc = h.mpe(evidence.data(), cases.size(), assignment.data(), log10.data(),
                       status.data());
        }
    }
    if (rc != ZBDD_NETWORK_OK) {
        results.assign(cases.size(),
                       errorAt(path_, 0,
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
            results.push_back(error(std::string(task == Task::Mar ? "MAR" : "MPE") +
                                    " is undefined: the evidence has probability 0"));
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
