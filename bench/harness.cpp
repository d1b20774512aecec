#include "bench/harness.h"
#include "support/gpu_settings.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <sys/utsname.h>
#include <thread>

namespace zbddc::bench {
namespace {

std::vector<std::pair<std::string, Benchmark>> &registry() {
    static std::vector<std::pair<std::string, Benchmark>> r;
    return r;
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "unknown cpu";
}

std::string machine() {
    utsname u{};
    uname(&u);
    return std::string(u.sysname) + " " + u.release + ", " + cpuModel() + ", " +
           std::to_string(std::thread::hardware_concurrency()) + " threads";
}

std::string today() {
    char buf[32];
    const std::time_t t = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
    return buf;
}

std::string quoted(const std::string &s) {
    std::string out = "\"";
    for (char ch : s)
        out += ch == '"' || ch == '\\' ? std::string("\\") + ch : std::string(1, ch);
    return out + "\"";
}

} // namespace

void Context::record(const std::string &metric, double value, const std::string &unit) {
    rows.push_back({current, metric, unit, value});
    std::printf("  %-40s %-28s %14.6g %s\n", current.c_str(), metric.c_str(), value, unit.c_str());
    std::fflush(stdout);
}

double Context::timeMedian(const std::function<void()> &fn, int repeat) {
    fn();
    std::vector<double> t;
    for (int i = 0; i < repeat; ++i) {
        const auto start = std::chrono::steady_clock::now();
        fn();
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int registerBenchmark(const std::string &name, Benchmark fn) {
    registry().emplace_back(name, std::move(fn));
    return 0;
}

int runBenchmarks(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    std::string filter, jsonPath, mdPath, command;
    for (int i = 0; i < argc; ++i)
        command += (i ? " " : "") + std::string(argv[i]);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 < argc && a == "--filter")
            filter = argv[++i];
        else if (i + 1 < argc && a == "--json")
            jsonPath = argv[++i];
        else if (i + 1 < argc && a == "--md")
            mdPath = argv[++i];
        else {
            std::cerr << "usage: " << argv[0] << " [--filter SUBSTRING] [--json FILE] [--md FILE]\n";
            return 2;
        }
    }
    Context ctx;
    const std::string when = today(), where = machine();
    std::cout << "# " << where << "\n# " << when << "\n# " << command << "\n";
    for (auto &[name, fn] : registry()) {
        if (name.find(filter) == std::string::npos)
            continue;
        ctx.current = name;
        fn(ctx);
    }
    if (!jsonPath.empty()) {
        std::ofstream out(jsonPath);
        out << "{\"machine\":" << quoted(where) << ",\"date\":" << quoted(when)
            << ",\"command\":" << quoted(command) << ",\"results\":[";
        for (size_t i = 0; i < ctx.rows.size(); ++i) {
            const auto &r = ctx.rows[i];
            out << (i ? "," : "") << "{\"benchmark\":" << quoted(r.benchmark) << ",\"metric\":"
                << quoted(r.metric) << ",\"value\":" << r.value << ",\"unit\":" << quoted(r.unit) << "}";
        }
        out << "]}\n";
    }
    if (!mdPath.empty()) {
        std::ofstream out(mdPath);
        out << "Machine: " << where << "  \nDate: " << when << "  \nCommand: `" << command << "`\n\n"
            << "| benchmark | metric | value | unit |\n| --- | --- | ---: | --- |\n";
        for (const auto &r : ctx.rows)
            out << "| " << r.benchmark << " | " << r.metric << " | " << r.value << " | " << r.unit << " |\n";
    }
    return 0;
}

} // namespace zbddc::bench
