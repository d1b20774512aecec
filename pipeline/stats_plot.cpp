#include "pipeline/stats_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>

namespace zbddc {

namespace {

// Page geometry (SVG user units): panels stacked top to bottom, plot area on the left and the
// legend on the right of each.
constexpr double kWidth = 960, kPlotLeft = 70, kPlotRight = 740, kLegendLeft = 760;
constexpr double kPanelHeight = 260, kPlotTop = 30, kPlotHeight = 180;
constexpr size_t kLegendRows = 13;

// Ops per level (or per bin of levels) by type, ready to draw as stacked bars.
struct LevelSeries {
    std::vector<std::string> types;
    std::vector<uint32_t> totals;              // ops per type over all levels
    std::vector<std::vector<uint32_t>> levels; // [level][type]
};

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    std::string s = buf;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0)
        s.resize(s.size() - 2);
    return s;
}

// Axis labels: 51317 stays as is, larger counts get k / M so the labels fit the margin.
std::string countLabel(double v) {
    char buf[32];
    if (v >= 1e7)
        std::snprintf(buf, sizeof buf, "%gM", v / 1e6);
    else if (v >= 1e5)
        std::snprintf(buf, sizeof buf, "%gk", v / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string xmlText(const std::string &s) {
    std::string r;
    for (char ch : s) {
        switch (ch) {
        case '&': r += "&amp;"; break;
        case '<': r += "&lt;"; break;
        case '>': r += "&gt;"; break;
        case '"': r += "&quot;"; break;
        default: r += static_cast<unsigned char>(ch) < 0x20 ? ' ' : ch;
        }
    }
    return r;
}

// One colour per type name, the same in every panel: a fixed palette, then golden-angle hues.
class Colours {
public:
    std::string of(const std::string &type) {
        auto [it, fresh] = byName_.try_emplace(type, "");
        if (fresh) {
            static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                                  "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                                                  "#9c755f", "#bab0ac", "#1f77b4", "#8c564b"};
            const size_t i = byName_.size() - 1;
            if (i < std::size(palette)) {
                it->second = palette[i];
            } else {
                char buf[40];
                std::snprintf(buf, sizeof buf, "hsl(%d,55%%,55%%)", int(i * 137.508) % 360);
                it->second = buf;
            }
        }
        return it->second;
    }

private:
    std::map<std::string, std::string> byName_;
};

// A round step that puts about five ticks under `max`.
double niceStep(double max) {
    const double raw = std::max(max, 1.0) / 5;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / mag;
    return std::max(1.0, mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10)); // counts are whole
}

void panelTitle(std::ostream &out, double top, const std::string &title) {
    out << "<text x=\"" << num(kPlotLeft) << "\" y=\"" << num(top + 18)
        << "\" font-weight=\"bold\">" << xmlText(title) << "</text>\n";
}

// The y axis of a linear panel: grid lines and labels at round values up to `top`.
void linearAxis(std::ostream &out, double y0, double topValue, double step, const std::string &label) {
    for (double v = 0; v <= topValue + step / 2; v += step) {
        const double y = y0 - kPlotHeight * v / topValue;
        out << "<line x1=\"" << num(kPlotLeft) << "\" x2=\"" << num(kPlotRight) << "\" y1=\""
            << num(y) << "\" y2=\"" << num(y) << "\" stroke=\"#ddd\"/><text x=\""
            << num(kPlotLeft - 4) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
            << countLabel(v) << "</text>\n";
    }
    out << "<text transform=\"translate(14," << num(y0 - kPlotHeight / 2)
        << ") rotate(-90)\" text-anchor=\"middle\">" << xmlText(label) << "</text>\n";
}

void legend(std::ostream &out, double top, const std::vector<std::string> &types,
            const std::vector<uint32_t> &totals, const std::vector<std::string> &templates,
            Colours &colours) {
    // The most frequent types first; the rest are summed in one line.
    std::vector<size_t> order;
    for (size_t t = 0; t < types.size(); ++t)
        if (totals[t])
            order.push_back(t);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return totals[x] > totals[y]; });
    const size_t shown = order.size() > kLegendRows ? kLegendRows - 1 : order.size();
    for (size_t r = 0; r < shown; ++r) {
        const size_t t = order[r];
        const double y = top + kPlotTop + 14 * r;
        out << "<g class=\"key\">";
        if (t < templates.size() && !templates[t].empty())
            out << "<title>" << xmlText(types[t] + ": " + templates[t]) << "</title>";
        out << "<rect x=\"" << num(kLegendLeft) << "\" y=\"" << num(y) << "\" width=\"10\" "
            << "height=\"10\" fill=\"" << colours.of(types[t]) << "\"/><text x=\""
            << num(kLegendLeft + 14) << "\" y=\"" << num(y + 9) << "\">" << xmlText(types[t])
            << " " << totals[t] << "</text></g>\n";
    }
    if (shown < order.size()) {
        uint64_t rest = 0;
        for (size_t r = shown; r < order.size(); ++r)
            rest += totals[order[r]];
        out << "<text x=\"" << num(kLegendLeft + 14) << "\" y=\"" << num(top + kPlotTop + 14 * shown + 9)
            << "\">+" << order.size() - shown << " types, " << rest << " ops</text>\n";
    }
}

// Stacked bars of ops per level by type. Levels beyond options.maxBars are summed into bins of
// equal width so that the document stays small; the axis label then says so.
void levelPanel(std::ostream &out, const char *id, double top, const std::string &title,
                const LevelSeries &series, const std::vector<std::string> &templates,
                const StatsPlotOptions &options, Colours &colours) {
    const size_t levels = series.levels.size(), types = series.types.size();
    const size_t bin = std::max<size_t>(1, (levels + options.maxBars - 1) / std::max<size_t>(options.maxBars, 1));
    const size_t bars = (levels + bin - 1) / bin;
    std::vector<std::vector<uint64_t>> binned(bars, std::vector<uint64_t>(types, 0));
    uint64_t tallest = 0;
    for (size_t b = 0; b < bars; ++b) {
        uint64_t sum = 0;
        for (size_t l = b * bin; l < std::min(levels, (b + 1) * bin); ++l)
            for (size_t t = 0; t < types; ++t) {
                binned[b][t] += series.levels[l][t];
                sum += series.levels[l][t];
            }
        tallest = std::max(tallest, sum);
    }
    out << "<g id=\"" << id << "\">\n";
    panelTitle(out, top, title);
    const double y0 = top + kPlotTop + kPlotHeight;
    const double step = niceStep(double(tallest));
    const double topValue = std::max(step, std::ceil(double(tallest) / step) * step);
    linearAxis(out, y0, topValue, step, bin == 1 ? "ops per level" : "ops per " + std::to_string(bin) + " levels");
    const double slot = bars ? (kPlotRight - kPlotLeft) / double(bars) : 0;
    const double width = slot > 4 ? slot * 0.85 : slot;
    for (size_t b = 0; b < bars; ++b) {
        const size_t first = b * bin + 1, last = std::min(levels, (b + 1) * bin);
        std::string tip = bin == 1 ? "level " + std::to_string(first)
                                   : "levels " + std::to_string(first) + "-" + std::to_string(last);
        uint64_t sum = 0;
        for (size_t t = 0; t < types; ++t)
            sum += binned[b][t];
        tip += ": " + std::to_string(sum) + " ops";
        for (size_t t = 0; t < types; ++t)
            if (binned[b][t])
                tip += ", " + series.types[t] + " " + std::to_string(binned[b][t]);
        out << "<g class=\"bar\"><title>" << xmlText(tip) << "</title>";
        const double x = kPlotLeft + slot * b;
        uint64_t below = 0;
        for (size_t t = 0; t < types; ++t) {
            if (!binned[b][t])
                continue;
            const double yLow = y0 - kPlotHeight * double(below) / topValue;
            below += binned[b][t];
            const double yHigh = y0 - kPlotHeight * double(below) / topValue;
            out << "<rect class=\"seg\" x=\"" << num(x) << "\" y=\"" << num(yHigh) << "\" width=\""
                << num(width) << "\" height=\"" << num(yLow - yHigh) << "\" fill=\""
                << colours.of(series.types[t]) << "\"/>";
        }
        out << "</g>\n";
    }
    // About ten level numbers under the axis.
    const size_t every = std::max<size_t>(1, (bars + 9) / 10);
    for (size_t b = 0; b < bars; b += every)
        out << "<text x=\"" << num(kPlotLeft + slot * (b + 0.5)) << "\" y=\"" << num(y0 + 14)
            << "\" text-anchor=\"middle\">" << b * bin + 1 << "</text>\n";
    out << "<text x=\"" << num((kPlotLeft + kPlotRight) / 2) << "\" y=\"" << num(y0 + 30)
        << "\" text-anchor=\"middle\">level</text>\n";
    legend(out, top, series.types, series.totals, templates, colours);
    out << "</g>\n";
}

// Bars of how many ops have 0, 1, 2, … parents (last bucket: that many or more). Only non-empty
// buckets get a bar; a log scale is used when the counts span more than two decades.
void parentsPanel(std::ostream &out, double top, const std::vector<uint32_t> &histogram) {
    out << "<g id=\"parents\">\n";
    panelTitle(out, top, "parents histogram of the circuit (Minato et al. 2011 Figure 2)");
    uint32_t largest = 0, smallest = UINT32_MAX;
    for (uint32_t n : histogram)
        if (n) {
            largest = std::max(largest, n);
            smallest = std::min(smallest, n);
        }
    const bool logScale = largest && double(largest) / smallest > 100;
    const double y0 = top + kPlotTop + kPlotHeight;
    double topValue;
    auto height = [&](double v) {
        return logScale ? kPlotHeight * std::log10(v) / std::log10(topValue) : kPlotHeight * v / topValue;
    };
    if (logScale) {
        topValue = std::pow(10.0, std::ceil(std::log10(double(largest))));
        for (double v = 1; v <= topValue * 1.5; v *= 10) {
            const double y = y0 - height(v);
            out << "<line x1=\"" << num(kPlotLeft) << "\" x2=\"" << num(kPlotRight) << "\" y1=\""
                << num(y) << "\" y2=\"" << num(y) << "\" stroke=\"#ddd\"/><text x=\""
                << num(kPlotLeft - 4) << "\" y=\"" << num(y + 4) << "\" text-anchor=\"end\">"
                << countLabel(v) << "</text>\n";
        }
        out << "<text transform=\"translate(14," << num(y0 - kPlotHeight / 2)
            << ") rotate(-90)\" text-anchor=\"middle\">ops (log scale)</text>\n";
    } else {
        const double step = niceStep(double(largest));
        topValue = std::max(step, std::ceil(double(largest) / step) * step);
        linearAxis(out, y0, topValue, step, "ops");
    }
    const size_t buckets = histogram.size();
    const double slot = buckets ? (kPlotRight - kPlotLeft) / double(buckets) : 0;
    for (size_t k = 0; k < buckets; ++k) {
        const std::string name = std::to_string(k) + (k + 1 == buckets ? "+" : "");
        const double x = kPlotLeft + slot * k;
        if (histogram[k]) {
            // A count of 1 on the log scale has no height; one unit keeps it visible.
            const double h = std::max(1.0, height(histogram[k]));
            out << "<g class=\"bar\"><title>" << name << (k == 1 && k + 1 != buckets ? " parent: " : " parents: ")
                << histogram[k] << " ops</title><rect class=\"seg\" x=\"" << num(x + slot * 0.1)
                << "\" y=\"" << num(y0 - h) << "\" width=\"" << num(slot * 0.8) << "\" height=\""
                << num(h) << "\" fill=\"#4e79a7\"/></g>\n";
        }
        out << "<text x=\"" << num(x + slot / 2) << "\" y=\"" << num(y0 + 14)
            << "\" text-anchor=\"middle\">" << name << "</text>\n";
    }
    out << "<text x=\"" << num((kPlotLeft + kPlotRight) / 2) << "\" y=\"" << num(y0 + 30)
        << "\" text-anchor=\"middle\">parents</text>\n";
    out << "</g>\n";
}

} // namespace

bool writeStatsSvg(const ScheduleStats &st, std::ostream &out, const StatsPlotOptions &options) {
    Colours colours;
    for (const char *seedType : {"typeA", "typeB", "plus"}) // the same colours in every picture
        colours.of(seedType);
    LevelSeries before;
    before.types = {"typeA", "typeB", "plus"};
    before.totals.assign(3, 0);
    for (const auto &level : st.circuitLevelOps) {
        before.levels.emplace_back(level.begin(), level.end());
        for (size_t t = 0; t < 3; ++t)
            before.totals[t] += level[t];
    }
    // Drop the plus column where the circuit has none (ZBDD lowerings have none).
    if (before.totals[2] == 0) {
        before.types.pop_back();
        before.totals.pop_back();
        for (auto &level : before.levels)
            level.pop_back();
    }
    const LevelSeries after{st.typeNames, st.opsByType, st.levelOpsByType};

    const double height = 40 + 3 * kPanelHeight;
    out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(kWidth) << "\" height=\""
        << num(height) << "\" viewBox=\"0 0 " << num(kWidth) << " " << num(height)
        << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
        << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << num(kPlotLeft) << "\" y=\"22\" font-size=\"14\">" << xmlText(options.caption)
        << "</text>\n";
    levelPanel(out, "before", 40,
               "before the passes: circuit ASAP levels (" + std::to_string(st.circuitOps) + " ops, " +
                   std::to_string(before.levels.size()) + " levels; Minato et al. 2011 Figure 1)",
               before, {}, options, colours);
    levelPanel(out, "after", 40 + kPanelHeight,
               options.afterLabel + ": schedule levels (" + std::to_string(st.ops) + " ops, " +
                   std::to_string(st.levels) + " levels, " + std::to_string(st.typeNames.size()) +
                   " types; Minato et al. 2011 Figure 4)",
               after, st.typeTemplates, options, colours);
    parentsPanel(out, 40 + 2 * kPanelHeight, st.parentsHistogram);
    out << "</svg>\n";
    return bool(out);
}

} // namespace zbddc
