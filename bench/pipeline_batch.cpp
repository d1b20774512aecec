// The C++ API's side of bench/python_batch.py: one model opened through the pipeline's Session
// (the route and device choice weighing the batch), then the same evidence batch answered
// --repeats times (after one warm-up batch), each timed alone. Prints JSON: the route, the open
// time, every batch's wall and CPU milliseconds. --marginals FILE writes the last batch's MAR answers as raw
// doubles, cases x every variable's states (NaN rows for cases not answered), for comparison.
//
//   pipeline_batch NET CASES.evid [--repeats R] [--device cpu] [--route auto] [--task mar]
//                  [--threads T] [--marginals FILE]
#include "pipeline/pipeline.h"
#include "support/timer.h"

#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <string>

using namespace zbddc;

namespace {

struct Args {
    std::string network, evidence, device = "cpu", route = "auto", task = "mar", marginals;
    int repeats = 5;
    unsigned threads = 0;
};

bool parseArgs(int argc, char **argv, Args &a) {
    int positional = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--repeats")
            a.repeats = std::stoi(next());
        else if (arg == "--device")
            a.device = next();
        else if (arg == "--route")
            a.route = next();
        else if (arg == "--task")
            a.task = next();
        else if (arg == "--threads")
            a.threads = unsigned(std::stoul(next()));
        else if (arg == "--marginals")
            a.marginals = next();
        else if (positional == 0 && ++positional)
            a.network = arg;
        else if (positional == 1 && ++positional)
            a.evidence = arg;
        else
            return false;
    }
    return positional == 2 && a.repeats > 0;
}

// CPU seconds of every thread of the process: less disturbed by a loaded machine than wall time.
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

void writeMarginals(const std::string &path, const std::vector<Result<TaskResult>> &answers,
                    const std::vector<Variable> &variables) {
    std::ofstream out(path, std::ios::binary);
    for (const Result<TaskResult> &r : answers)
        for (size_t v = 0; v < variables.size(); ++v)
            for (size_t s = 0; s < variables[v].states.size(); ++s) {
                const double p = r ? r->marginals[v][s] : std::numeric_limits<double>::quiet_NaN();
                out.write(reinterpret_cast<const char *>(&p), sizeof p);
            }
}

} // namespace

int main(int argc, char **argv) {
    Args a;
    if (!parseArgs(argc, argv, a)) {
        std::cerr << "usage: pipeline_batch NET CASES.evid [--repeats R] [--device D] [--route R] "
                     "[--task T] [--threads T] [--marginals FILE]\n";
        return 2;
    }
    const auto device = parseDeviceKind(a.device);
    const auto task = parseTask(a.task);
    if (!device || !task) {
        std::cerr << "pipeline_batch: unknown device or task\n";
        return 2;
    }
    pipeline::OpenOptions options;
    options.route = a.route;
    options.target.device = *device;
    options.target.threads = a.threads;
    auto probe = pipeline::Session::open(a.network, options);
    if (!probe) {
        std::cerr << probe.error().str() << "\n";
        return 1;
    }
    auto cases = readUaiEvidenceFile(a.evidence, (*probe)->variables());
    if (!cases) {
        std::cerr << cases.error().str() << "\n";
        return 1;
    }
    probe->reset();
    // The batch size weighs the route choice, as python_batch.py's expected_cases does.
    options.expectedCases = cases->cases.size();
    const auto start = std::chrono::steady_clock::now();
    auto session = pipeline::Session::open(a.network, options);
    if (!session) {
        std::cerr << session.error().str() << "\n";
        return 1;
    }
    const double openMs = msSince(start);
    pipeline::Session &s = **session;
    auto answers = s.answer(*task, cases->cases); // warm-up
    std::string times, cpuTimes;
    for (int r = 0; r < a.repeats; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        const double cpu0 = cpuSeconds();
        answers = s.answer(*task, cases->cases);
        times += (r ? "," : "") + std::to_string(msSince(t0));
        cpuTimes += (r ? "," : "") + std::to_string((cpuSeconds() - cpu0) * 1000);
    }
    if (!a.marginals.empty() && *task == Task::Mar)
        writeMarginals(a.marginals, answers, s.variables());
    std::cout << "{\"route\":\"" << s.route() << "\",\"cases\":" << cases->cases.size()
              << ",\"open_s\":" << openMs / 1000 << ",\"batch_ms\":[" << times
              << "],\"batch_cpu_ms\":[" << cpuTimes << "]}\n";
    return 0;
}
