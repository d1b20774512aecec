// A small benchmark harness: named benchmarks record metrics; the runner prints a markdown table
// and writes JSON with the machine, date and command line, for BENCHMARKS.md.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace zbddc::bench {

class Context {
  public:
    // One measured figure, e.g. record("ns/op", 2.1) or record("levels", 42, "count").
    void record(const std::string &metric, double value, const std::string &unit = "");
    // Median wall time in seconds of `repeat` calls of `fn` (after one warm-up call).
    double timeMedian(const std::function<void()> &fn, int repeat = 5);

    struct Row {
        std::string benchmark, metric, unit;
        double value;
    };
    std::vector<Row> rows;
    std::string current;
};

using Benchmark = std::function<void(Context &)>;
int registerBenchmark(const std::string &name, Benchmark fn);

// Runs the registered benchmarks: [--filter SUBSTRING] [--json FILE] [--md FILE].
int runBenchmarks(int argc, char **argv);

} // namespace zbddc::bench

#define ZBDDC_BENCH_CONCAT2(a, b) a##b
#define ZBDDC_BENCH_CONCAT(a, b) ZBDDC_BENCH_CONCAT2(a, b)
#define ZBDDC_BENCHMARK(name, fn)                                                                  \
    static const int ZBDDC_BENCH_CONCAT(registered_, __LINE__) = ::zbddc::bench::registerBenchmark(name, fn)
