#include "compiler/passes/schedule_stats.h"
#include "ir/levels.h"
#include "support/json.h"

#include <algorithm>
#include <cmath>
#include <ostream>

namespace zbddc {

ScheduleStats computeStats(const Circuit &c, const Schedule &s, std::vector<PassStats> passes) {
    ScheduleStats st;
    st.circuitNodes = static_cast<uint32_t>(c.numNodes());
    std::vector<uint32_t> parents = parentCounts(c);
    for (NodeId o : c.outputs)
        ++parents[o];
    constexpr uint32_t kBuckets = 9; // 0..7 parents, then 8 or more
    st.parentsHistogram.assign(kBuckets, 0);
    for (NodeId id = 0; id < c.numNodes(); ++id)
        if (isOp(c.kind[id])) {
            ++st.circuitOps;
            ++st.parentsHistogram[std::min(parents[id], kBuckets - 1)];
        }
    const std::vector<uint32_t> level = asapLevels(c);
    for (NodeId id = 0; id < c.numNodes(); ++id) {
        if (!isOp(c.kind[id]))
            continue;
        if (st.circuitLevelOps.size() < level[id])
            st.circuitLevelOps.resize(level[id], {0, 0, 0});
        const OpKind k = c.kind[id];
        ++st.circuitLevelOps[level[id] - 1][k == OpKind::MulAdd ? 0 : k == OpKind::Times ? 1 : 2];
    }
    st.ops = s.numOps();
    st.levels = s.numLevels();
    st.slots = s.numSlots;
    st.computedSlots = s.numSlots - s.computedBase();
    st.meanLevelWidth = st.levels ? double(st.ops) / st.levels : 0;
    for (uint32_t t = 0; t < s.numTypes(); ++t) {
        st.typeNames.push_back(s.typeName[t]);
        st.typeTemplates.push_back(templateText(s, t));
    }
    st.opsByType.assign(s.numTypes(), 0);
    for (uint32_t l = 0; l < s.numLevels(); ++l) {
        st.levelWidth.push_back(s.levelOpBegin[l + 1] - s.levelOpBegin[l]);
        st.levelPhase.push_back(s.levelPhase[l]);
        ++st.phaseLevels[s.levelPhase[l]];
        std::vector<uint32_t> byType(s.numTypes(), 0);
        for (uint32_t i = s.levelOpBegin[l]; i < s.levelOpBegin[l + 1]; ++i) {
            ++byType[s.opType[i]];
            ++st.opsByType[s.opType[i]];
        }
        st.levelOpsByType.push_back(std::move(byType));
    }
    for (uint32_t b = 0; b < s.numBlocks(); ++b)
        if (s.blockPreloads(b)) {
            ++st.preloadedBlocks;
            st.preloadWords += s.blockLoadBegin[b + 1] - s.blockLoadBegin[b];
        }
    st.passes = std::move(passes);
    return st;
}

void writeStatsText(const ScheduleStats &st, std::ostream &out, bool levels) {
    out << "circuit: " << st.circuitNodes << " nodes, " << st.circuitOps << " ops\n";
    out << "schedule: " << st.ops << " ops ("
        << (st.circuitOps ? 100.0 * st.ops / st.circuitOps : 0) << "% of the circuit's), "
        << st.levels << " levels, mean width " << st.meanLevelWidth << ", " << st.slots
        << " slots (" << st.computedSlots << " computed)\n";
    out << "phases: host " << st.phaseLevels[0] << ", grid " << st.phaseLevels[1]
        << ", single-block " << st.phaseLevels[2] << " levels; " << st.preloadedBlocks
        << " preloaded blocks (" << st.preloadWords << " words)\n";
    out << "parents histogram (ops with 0,1,..,7,8+ parents):";
    for (uint32_t n : st.parentsHistogram)
        out << " " << n;
    out << "\ntypes:\n";
    for (size_t t = 0; t < st.typeNames.size(); ++t)
        out << "  " << st.typeNames[t] << " [" << st.typeTemplates[t] << "]: " << st.opsByType[t]
            << " ops\n";
    if (!st.passes.empty()) {
        out << "passes:\n";
        for (const PassStats &p : st.passes) {
            out << "  " << p.pass << " (" << p.wallMs << " ms):";
            for (const auto &[name, value] : p.counters)
                out << " " << name << "=" << value;
            out << "\n";
        }
    }
    if (!levels)
        return;
    out << "levels (width phase: ops by type):\n";
    for (size_t l = 0; l < st.levelWidth.size(); ++l) {
        out << "  " << l << ": " << st.levelWidth[l] << " "
            << phaseName(static_cast<Phase>(st.levelPhase[l])) << ":";
        for (size_t t = 0; t < st.typeNames.size(); ++t)
            if (st.levelOpsByType[l][t])
                out << " " << st.typeNames[t] << "=" << st.levelOpsByType[l][t];
        out << "\n";
    }
}

namespace {

void jsonNumber(std::ostream &out, double v) {
    if (std::isfinite(v))
        out << v;
    else
        out << "null";
}

template <class V> void jsonArray(std::ostream &out, const V &values) {
    out << '[';
    bool first = true;
    for (const auto &v : values) {
        out << (first ? "" : ",");
        first = false;
        jsonNumber(out, v);
    }
    out << ']';
}

// An array of rows, each an array of numbers.
template <class Rows> void jsonRows(std::ostream &out, const Rows &rows) {
    out << '[';
    for (size_t r = 0; r < rows.size(); ++r) {
        out << (r ? "," : "");
        jsonArray(out, rows[r]);
    }
    out << ']';
}

} // namespace

void writeStatsJson(const ScheduleStats &st, std::ostream &out) {
    out << "{\"circuit_nodes\":" << st.circuitNodes << ",\"circuit_ops\":" << st.circuitOps
        << ",\"parents_histogram\":";
    jsonArray(out, st.parentsHistogram);
    out << ",\"circuit_level_ops\":";
    jsonRows(out, st.circuitLevelOps);
    out << ",\"ops\":" << st.ops << ",\"levels\":" << st.levels << ",\"slots\":" << st.slots
        << ",\"computed_slots\":" << st.computedSlots << ",\"mean_level_width\":";
    jsonNumber(out, st.meanLevelWidth);
    out << ",\"phase_levels\":{\"host\":" << st.phaseLevels[0]
        << ",\"grid\":" << st.phaseLevels[1] << ",\"single_block\":" << st.phaseLevels[2] << "}";
    out << ",\"preloaded_blocks\":" << st.preloadedBlocks
        << ",\"preload_words\":" << st.preloadWords;
    out << ",\"types\":[";
    for (size_t t = 0; t < st.typeNames.size(); ++t)
        out << (t ? "," : "") << "{\"name\":" << jsonString(st.typeNames[t]) << ",\"template\":"
            << jsonString(st.typeTemplates[t]) << ",\"ops\":" << st.opsByType[t] << "}";
    out << "],\"level_width\":";
    jsonArray(out, st.levelWidth);
    out << ",\"level_phase\":";
    jsonArray(out, st.levelPhase);
    out << ",\"level_ops_by_type\":";
    jsonRows(out, st.levelOpsByType);
    out << ",\"passes\":[";
    for (size_t p = 0; p < st.passes.size(); ++p) {
        const PassStats &ps = st.passes[p];
        out << (p ? "," : "") << "{\"pass\":" << jsonString(ps.pass) << ",\"wall_ms\":";
        jsonNumber(out, ps.wallMs);
        out << ",\"rss_mib\":";
        jsonNumber(out, ps.rssMiB);
        out << ",\"counters\":{";
        for (size_t k = 0; k < ps.counters.size(); ++k) {
            out << (k ? "," : "") << jsonString(ps.counters[k].first) << ':';
            jsonNumber(out, ps.counters[k].second);
        }
        out << "}}";
    }
    out << "]}\n";
}

} // namespace zbddc
