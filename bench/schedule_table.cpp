// Per-network effect of every scheduling pass on the MLF circuits of real Bayesian networks,
// next to Minato et al. 2011's expectations (§5: about 50% fewer ops from type1–6 merging, a factor
// of about log L̄ from deeper merging). Usage: schedule_stats [--time-passes] [--json FILE]
// NETWORK.bif... Prints one table; with --json, one JSON object per network (an array) with the
// full stats.
#include "backends/cuda/schedule/gpu_passes.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/frontends/zdd/zdd_lower.h"
#include "compiler/mlf/mlf_compile.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/schedule_stats.h"
#include "support/gpu_settings.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

using namespace zbddc;

namespace {

struct Run {
    Schedule schedule;
    std::vector<PassStats> passes;
};

Run run(const Circuit &c, PipelineOptions o) {
    Run r;
    o.verifyEach = false;
    Result<Schedule> s = buildSchedule(c, o, &r.passes);
    if (!s) {
        std::fprintf(stderr, "pipeline failed: %s\n", s.error().message.c_str());
        std::exit(1);
    }
    r.schedule = std::move(*s);
    return r;
}

double counter(const Run &r, const char *pass, const char *name) {
    for (const PassStats &p : r.passes)
        if (p.pass == pass)
            for (const auto &[n, v] : p.counters)
                if (n == name)
                    return v;
    return NAN;
}

double totalMs(const Run &r) {
    double t = 0;
    for (const PassStats &p : r.passes)
        t += p.wallMs;
    return t;
}

} // namespace

int main(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // docs/cli.md
    int first = 1;
    std::ofstream json;
    bool timePasses = false;
    if (argc > 1 && std::strcmp(argv[1], "--time-passes") == 0) {
        timePasses = true;
        first = 2;
    }
    if (argc > first + 1 && std::strcmp(argv[first], "--json") == 0) {
        json.open(argv[first + 1]);
        json << "[\n";
        first += 2;
    }
    std::printf("%-11s %8s %6s %7s | %8s %6s %6s | %8s %6s %6s %6s %5s %8s %6s %6s | %7s %7s %7s | "
                "%6s %6s | %5s %5s | %8s\n",
                "network", "ops", "levels", "Lbar", "seedOps", "red%", "levels", "treeOps", "red%",
                "ratio", "log2L", "types", "deepOps", "ratio", "dtypes", "idle0", "greedy",
                "balance", "pre%", "slot%", "grid", "blk", "O3 ms");
    bool firstJson = true;
    for (int i = first; i < argc; ++i) {
        std::string name = argv[i];
        name = name.substr(name.find_last_of('/') + 1);
        auto net = readNetworkFile(argv[i]);
        if (!net) {
            std::printf("%-11s %s\n", name.c_str(), net.error().str().c_str());
            continue;
        }
        auto model = compileMlf(*net);
        if (!model) {
            std::printf("%-11s %s\n", name.c_str(), model.error().message.c_str());
            continue;
        }
        const Circuit c = lowerZdd(*model);
        PipelineOptions o = withGpuPasses({});
        o.passes = {"levelize"};
        const Run plain = run(c, o);
        o.passes = {"merge-seed", "levelize"};
        const Run seed = run(c, o);
        o.passes = {"merge-trees", "levelize"};
        const Run tree = run(c, o);
        // Minato et al. 2011 §5's log L̄ hypothesis: deep merging, any number of types.
        o.maxLeaves = 32;
        o.maxTypes = 1u << 30;
        const Run deep = run(c, o);
        o.maxLeaves = PipelineOptions{}.maxLeaves;
        o.maxTypes = PipelineOptions{}.maxTypes;
        o.passes = {"levelize", "justify"};
        o.justify = "greedy";
        const Run greedy = run(c, o);
        o.justify = "balance";
        const Run balance = run(c, o);
        o.passes.clear();
        o.level = 3;
        const Run o3 = run(c, o);

        const double ops = plain.schedule.numOps(),
                     lbar = ops / std::max(1u, plain.schedule.numLevels());
        const double seedOps = seed.schedule.numOps(), treeOps = tree.schedule.numOps();
        std::printf("%-11s %8.0f %6u %7.1f | %8.0f %6.1f %6u | %8.0f %6.1f %6.2f %6.2f %5u %8u "
                    "%6.2f %6u | %7.0f %7.0f %7.0f | "
                    "%6.1f %6.1f | %5.0f %5.0f | %8.1f\n",
                    name.c_str(), ops, plain.schedule.numLevels(), lbar, seedOps,
                    100 * (1 - seedOps / ops), seed.schedule.numLevels(), treeOps,
                    100 * (1 - treeOps / ops), ops / treeOps, std::log2(lbar),
                    tree.schedule.numTypes(), deep.schedule.numOps(), ops / deep.schedule.numOps(),
                    deep.schedule.numTypes(), counter(greedy, "justify", "idle lanes before"),
                    counter(greedy, "justify", "idle lanes after"),
                    counter(balance, "justify", "idle lanes after"),
                    counter(o3, "preload", "saved %"),
                    counter(o3, "assign-slots", "computed slots saved %"),
                    counter(o3, "split-phases", "grid levels"),
                    counter(o3, "split-phases", "single-block levels"), totalMs(o3));
        if (timePasses)
            printPassTimes(o3.passes, std::cout);
        std::fflush(stdout);
        if (json.is_open()) {
            json << (firstJson ? "" : ",\n") << "{\"network\":\"" << name << "\",\"O3\":";
            writeStatsJson(computeStats(c, o3.schedule, o3.passes), json);
            json << "}";
            firstJson = false;
        }
    }
    if (json.is_open())
        json << "\n]\n";
}
