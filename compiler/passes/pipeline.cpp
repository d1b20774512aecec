#include "compiler/passes/pipeline.h"

#include "ir/schedule_edit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <string>

namespace zbddc {

namespace {

// Canonical order: merging works on the SSA op list, levels come next, then the target's passes
// (PipelineOptions::targetPasses), slots last.
const PassEntry kBeforeTarget[] = {
    {"merge-seed", mergeSeedTypes}, {"merge-trees", mergeTrees}, {"levelize", levelize},
    {"justify", justifyLevels},     {"unify-types", unifyTypes}, {"group", groupByType},
};
const PassEntry kAfterTarget[] = {
    {"assign-slots", assignSlots},
    {"assign-slots-noreuse", assignSlotsNoReuse},
};

std::vector<PassEntry> registry(const PipelineOptions &o) {
    std::vector<PassEntry> passes(std::begin(kBeforeTarget), std::end(kBeforeTarget));
    passes.insert(passes.end(), o.targetPasses.begin(), o.targetPasses.end());
    passes.insert(passes.end(), std::begin(kAfterTarget), std::end(kAfterTarget));
    return passes;
}

size_t indexOf(const std::vector<PassEntry> &passes, const std::string &name) {
    for (size_t i = 0; i < passes.size(); ++i)
        if (name == passes[i].name)
            return i;
    return passes.size();
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

std::vector<std::string> splitPassList(std::string_view text) {
    std::vector<std::string> names;
    while (!text.empty()) {
        const size_t comma = text.find(',');
        if (const std::string_view name = text.substr(0, comma); !name.empty())
            names.emplace_back(name);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return names;
}

std::vector<std::string> knownPasses(const PipelineOptions &o) {
    std::vector<std::string> names;
    for (const PassEntry &p : registry(o))
        names.push_back(p.name);
    return names;
}

Result<std::vector<std::string>> passList(const PipelineOptions &o) {
    std::vector<std::string> list = o.passes;
    if (list.empty()) {
        switch (o.level) {
        case 0:
            list = {"levelize", "group", "assign-slots-noreuse"};
            break;
        case 1:
            list = {"merge-seed", "levelize", "group", "assign-slots"};
            break;
        case 2:
            list = {"merge-seed", "levelize", "justify", "unify-types", "group", "assign-slots"};
            break;
        case 3:
            list = {"merge-trees", "levelize", "justify", "unify-types", "group", "assign-slots"};
            break;
        default:
            return error("unknown schedule level " + std::to_string(o.level) + " (use 0..3)");
        }
        // The target's passes of this level go between group and slot assignment.
        std::vector<std::string> target;
        for (const PassEntry &p : o.targetPasses)
            if (p.fromLevel <= o.level)
                target.emplace_back(p.name);
        list.insert(list.end() - 1, target.begin(), target.end());
        if (o.keepValues)
            list.back() = "assign-slots-noreuse";
    }
    if (!o.fuse)
        std::erase_if(list,
                      [](const std::string &n) { return n == "merge-seed" || n == "merge-trees"; });
    const std::vector<PassEntry> passes = registry(o);
    size_t previous = 0;
    bool levelled = false;
    for (const std::string &name : list) {
        const size_t at = indexOf(passes, name);
        if (at == passes.size())
            return error("unknown pass '" + name + "'");
        if (at < previous)
            return error("pass '" + name + "' must run before '" + passes[previous].name + "'");
        previous = at;
        levelled |= name == "levelize";
        if (at > indexOf(passes, "levelize") && !levelled)
            return error("pass '" + name + "' needs levelize before it");
    }
    return list;
}

Result<Schedule> buildSchedule(const Circuit &circuit, const PipelineOptions &o,
                               std::vector<PassStats> *stats) {
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
    if (o.afterEachPass)
        o.afterEachPass("lower", s);
    const std::vector<PassEntry> passes = registry(o);
    for (const std::string &name : *list) {
        timed(name, [&](PassStats &ps) { passes[indexOf(passes, name)].run(s, o, ps); });
        if (o.verifyEach)
            if (Status st = verify(s); !st)
                return error("after pass " + name + ": " + st.error().message);
        if (o.afterEachPass)
            o.afterEachPass(name, s);
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
        out << std::setw(12) << p.wallMs << std::setw(12) << p.rssMiB << std::setw(12)
            << p.rssDeltaMiB << "  " << p.pass << "\n";
        total += p.wallMs;
    }
    out << std::setw(12) << total << std::setw(24) << ""
        << "  total\n";
    out.unsetf(std::ios::floatfield);
}

} // namespace zbddc
