#include "compiler/passes/pipeline.h"

#include "compiler/passes/schedule_edit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <string>

namespace zbddc {

namespace {

struct PassEntry {
    const char *name;
    PassFn run;
};

// Canonical order: merging works on the SSA op list, levels come next, slots last.
const std::vector<PassEntry> &registry() {
    static const std::vector<PassEntry> passes = {
        {"merge-seed", mergeSeedTypes},   {"merge-trees", mergeTrees},
        {"levelize", levelize},           {"justify", justifyLevels},
        {"unify-types", unifyTypes},      {"group", groupByType},           {"split-phases", splitPhases},
        {"partition", partitionBlocks},   {"preload", preloadShared},
        {"assign-slots", assignSlots},    {"assign-slots-noreuse", assignSlotsNoReuse},
    };
    return passes;
}

size_t indexOf(const std::string &name) {
    const auto &r = registry();
    for (size_t i = 0; i < r.size(); ++i)
        if (name == r[i].name)
            return i;
    return r.size();
}

double residentMiB() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            double kb = 0;
            status >> kb;
            return kb / 1024.0;
        }
        status.ignore(1 << 12, '\n');
    }
    return 0;
}

} // namespace

std::vector<std::string> knownPasses() {
    std::vector<std::string> names;
    for (const PassEntry &p : registry())
        names.push_back(p.name);
    return names;
}

Result<std::vector<std::string>> passList(const PipelineOptions &o) {
    std::vector<std::string> list = o.passes;
    if (list.empty()) {
        switch (o.optLevel) {
        case 0: list = {"levelize", "group", "partition", "assign-slots-noreuse"}; break;
        case 1: list = {"merge-seed", "levelize", "group", "split-phases", "partition", "assign-slots"}; break;
        case 2:
            list = {"merge-seed", "levelize", "justify", "unify-types", "group", "split-phases", "partition", "preload", "assign-slots"};
            break;
        case 3:
            list = {"merge-trees", "levelize", "justify", "unify-types", "group", "split-phases", "partition", "preload", "assign-slots"};
            break;
        default: return error("unknown optimisation level -O" + std::to_string(o.optLevel) + " (use -O0..-O3)");
        }
    }
    if (!o.fuse)
        std::erase_if(list, [](const std::string &n) { return n == "merge-seed" || n == "merge-trees"; });
    size_t previous = 0;
    bool levelled = false;
    for (const std::string &name : list) {
        const size_t at = indexOf(name);
        if (at == registry().size())
            return error("unknown pass '" + name + "'");
        if (at < previous)
            return error("pass '" + name + "' must run before '" + registry()[previous].name + "'");
        previous = at;
        levelled |= name == "levelize";
        if (at > indexOf("levelize") && !levelled)
            return error("pass '" + name + "' needs levelize before it");
    }
    return list;
}

Result<Schedule> buildSchedule(const Circuit &circuit, const PipelineOptions &o, std::vector<PassStats> *stats) {
    Result<std::vector<std::string>> list = passList(o);
    if (!list)
        return list.error();
    if (Status st = verify(circuit); !st)
        return st.error();
    using Clock = std::chrono::steady_clock;
    auto timed = [&](const std::string &name, auto &&body) {
        PassStats ps;
        ps.pass = name;
        const double rss0 = residentMiB();
        const auto t0 = Clock::now();
        body(ps);
        ps.wallMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        ps.rssMiB = residentMiB();
        ps.rssDeltaMiB = ps.rssMiB - rss0;
        if (stats)
            stats->push_back(std::move(ps));
    };
    Schedule s;
    timed("lower", [&](PassStats &ps) {
        s = lowerToSchedule(circuit);
        ps.add("ops", s.numOps());
        ps.add("types", s.numTypes());
    });
    for (const std::string &name : *list) {
        timed(name, [&](PassStats &ps) { registry()[indexOf(name)].run(s, o, ps); });
        if (o.verifyEach)
            if (Status st = verify(s); !st)
                return error("after pass " + name + ": " + st.error().message);
    }
    if (Status st = verify(s); !st)
        return error("final schedule: " + st.error().message);
    return s;
}

void printPassTimes(const std::vector<PassStats> &stats, std::ostream &out) {
    double total = 0;
    out << "===-- pass execution timing --===\n";
    out << std::setw(12) << "wall ms" << std::setw(12) << "RSS MiB" << std::setw(12) << "ΔRSS MiB"
        << "  pass\n";
    out << std::fixed << std::setprecision(3);
    for (const PassStats &p : stats) {
        out << std::setw(12) << p.wallMs << std::setw(12) << p.rssMiB << std::setw(12) << p.rssDeltaMiB << "  "
            << p.pass << "\n";
        total += p.wallMs;
    }
    out << std::setw(12) << total << std::setw(24) << "" << "  total\n";
    out.unsetf(std::ios::floatfield);
}

void printPassStats(const std::vector<PassStats> &stats, std::ostream &out) {
    for (const PassStats &p : stats) {
        out << p.pass << ":";
        for (const auto &[name, value] : p.counters)
            out << "  " << name << " " << value;
        out << "\n";
    }
}

} // namespace zbddc
