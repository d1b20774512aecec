// The SVG writer on hand-made statistics: levels beyond the bar limit are summed into bins (the
// last one partial), and a parents histogram spanning many decades gets a log scale.
#include "pipeline/stats_plot.h"

#include "tests/catch.hpp"

#include <sstream>

using namespace zbddc;

namespace {

size_t count(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1))
        ++n;
    return n;
}

ScheduleStats uniformLevels(uint32_t levels) {
    ScheduleStats st;
    st.circuitLevelOps.assign(levels, {1, 0, 0});
    st.typeNames = {"typeA", "typeB"};
    st.typeTemplates = {"F X * F +", "F X *"};
    st.opsByType = {levels, levels};
    st.levelOpsByType.assign(levels, {1, 1});
    st.circuitOps = st.ops = 2 * levels;
    st.levels = levels;
    return st;
}

} // namespace

TEST_CASE("stats plot bins levels beyond the bar limit", "[passes][plot]") {
    ScheduleStats st = uniformLevels(650);
    st.parentsHistogram = {0, 600, 40, 10, 0, 0, 0, 0, 0};
    std::ostringstream out;
    StatsPlotOptions options;
    options.maxBars = 300;
    REQUIRE(writeStatsSvg(st, out, options));
    const std::string svg = out.str();
    // 650 levels in bins of ceil(650 / 300) = 3: 217 bars per level panel, the last of 2 levels.
    const size_t afterAt = svg.find("<g id=\"after\">"), parentsAt = svg.find("<g id=\"parents\">");
    REQUIRE(afterAt != std::string::npos);
    REQUIRE(parentsAt != std::string::npos);
    CHECK(count(svg.substr(0, afterAt), "<g class=\"bar\">") == 217);
    CHECK(count(svg.substr(afterAt, parentsAt - afterAt), "<g class=\"bar\">") == 217);
    CHECK_THAT(svg, Catch::Contains("<title>levels 1-3: 3 ops, typeA 3</title>"));
    CHECK_THAT(svg, Catch::Contains("<title>levels 649-650: 4 ops, typeA 2, typeB 2</title>"));
    CHECK_THAT(svg, Catch::Contains("ops per 3 levels"));
    // 600 / 10 is within two decades: a linear axis; only the three non-empty buckets get bars.
    CHECK(count(svg.substr(parentsAt), "<g class=\"bar\">") == 3);
    CHECK_THAT(svg, !Catch::Contains("log scale"));
}

TEST_CASE("stats plot draws a wide parents histogram on a log scale", "[passes][plot]") {
    ScheduleStats st = uniformLevels(4);
    st.parentsHistogram = {0, 1842850, 387440, 66426, 30564, 4232, 27240, 5832, 5238};
    std::ostringstream out;
    REQUIRE(writeStatsSvg(st, out, {}));
    const std::string svg = out.str();
    CHECK_THAT(svg, Catch::Contains("ops (log scale)"));
    CHECK_THAT(svg, Catch::Contains("<title>8+ parents: 5238 ops</title>"));
    CHECK(count(svg, "<g class=\"bar\">") == 4 + 4 + 8);
    // No binning below the limit: one bar per level, labelled by its own number.
    CHECK_THAT(svg, Catch::Contains("<title>level 4: 2 ops, typeA 1, typeB 1</title>"));
}
