// `zbddc stats --plot FILE.svg`: the picture is written, is well-formed, has one bar per level of
// the example (counted by hand from examples/wetgrass.zdd), and nothing is left behind on errors.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <dirent.h>
#include <regex>
#include <vector>

using namespace zbddc::testing;

namespace {

const std::string kExample = std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd";

// Every element opened is closed in order (self-closing ones count as both); text has no raw '<'.
bool tagsBalance(const std::string &svg) {
    std::vector<std::string> open;
    for (size_t i = svg.find('<'); i != std::string::npos; i = svg.find('<', i + 1)) {
        const size_t end = svg.find('>', i);
        if (end == std::string::npos)
            return false;
        const std::string tag = svg.substr(i + 1, end - i - 1);
        if (tag.empty() || tag.find('<') != std::string::npos)
            return false;
        const bool closing = tag[0] == '/', selfClosing = tag.back() == '/';
        const std::string name = tag.substr(closing, tag.find_first_of(" /", closing) - closing);
        if (closing) {
            if (open.empty() || open.back() != name)
                return false;
            open.pop_back();
        } else if (!selfClosing) {
            open.push_back(name);
        }
        i = end;
    }
    return open.empty();
}

size_t count(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1))
        ++n;
    return n;
}

// The part of the document for one panel: from <g id="NAME"> to the next panel.
std::string panel(const std::string &svg, const std::string &name) {
    const size_t begin = svg.find("<g id=\"" + name + "\">");
    REQUIRE(begin != std::string::npos);
    const size_t end = svg.find("<g id=\"", begin + 1);
    return svg.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

bool scratchHasTemporaries() {
    DIR *d = ::opendir(scratchDir().c_str());
    bool found = false;
    while (dirent *e = d ? ::readdir(d) : nullptr)
        found |= std::string(e->d_name).find(".tmp.") != std::string::npos;
    if (d)
        ::closedir(d);
    return found;
}

} // namespace

TEST_CASE("zbddc stats --plot draws the example's levels and parents", "[cli]") {
    const std::string svgPath = scratchDir() + "/wetgrass.svg";
    auto s = runZbddc("stats " + kExample + " --json --plot " + svgPath);
    REQUIRE(s.exitCode == 0);
    REQUIRE(exists(svgPath));
    const std::string svg = slurp(svgPath);
    CHECK_THAT(svg, Catch::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK_THAT(svg, Catch::EndsWith("</svg>\n"));
    CHECK(tagsBalance(svg));

    // Before the passes, by hand from the ZBDD (level = 1 + the deeper child's; a node with an
    // empty lo child is typeB): nodes 2,3 at level 1; 4,6 at 2; 5,7 (typeA) at 3; 8,9 at 4; 10 at
    // 5; 11 (typeA) at 6. One bar and one segment per level, every level of a single type.
    const std::string before = panel(svg, "before");
    CHECK(count(before, "<g class=\"bar\">") == 6);
    CHECK(count(before, "<rect class=\"seg\"") == 6);
    for (const char *tip : {"level 1: 2 ops, typeB 2", "level 2: 2 ops, typeB 2",
                            "level 3: 2 ops, typeA 2", "level 4: 2 ops, typeB 2",
                            "level 5: 1 ops, typeB 1", "level 6: 1 ops, typeA 1"})
        CHECK_THAT(before, Catch::Contains(std::string("<title>") + tip + "</title>"));

    // After the passes: one bar per schedule level, and the bars' ops add up to the schedule's,
    // both as `--json` reports them.
    const size_t sched = s.out.find("\"schedule\":");
    REQUIRE(sched != std::string::npos);
    std::smatch m;
    const std::string scheduleJson = s.out.substr(sched);
    REQUIRE(std::regex_search(scheduleJson, m, std::regex("\"ops\":([0-9]+),\"levels\":([0-9]+)")));
    const long ops = std::stol(m[1]), levels = std::stol(m[2]);
    const std::string after = panel(svg, "after");
    CHECK(long(count(after, "<g class=\"bar\">")) == levels);
    long barOps = 0;
    const std::regex tip("<title>level [0-9]+: ([0-9]+) ops");
    for (auto it = std::sregex_iterator(after.begin(), after.end(), tip); it != std::sregex_iterator(); ++it)
        barOps += std::stol((*it)[1]);
    CHECK(barOps == ops);

    // Parents, by hand: nodes 2 and 3 are read twice, the other eight ops once (11 by the output).
    const std::string parents = panel(svg, "parents");
    CHECK(count(parents, "<g class=\"bar\">") == 2);
    CHECK_THAT(parents, Catch::Contains("<title>1 parent: 8 ops</title>"));
    CHECK_THAT(parents, Catch::Contains("<title>2 parents: 2 ops</title>"));
}

TEST_CASE("zbddc stats --plot leaves no file behind on errors", "[cli]") {
    const std::string png = scratchDir() + "/plot.png";
    CHECK(runZbddc("stats " + kExample + " --plot " + png).exitCode == 2);
    CHECK_FALSE(exists(png));

    const std::string bad = writeScratch("bad.zdd", "zdd 1\nnodes nonsense\n");
    const std::string svg = scratchDir() + "/bad.svg";
    auto r = runZbddc("stats " + bad + " --plot " + svg);
    CHECK(r.exitCode == 1);
    CHECK_FALSE(exists(svg));

    // A folder in the way: refused before anything is written, so no temporary either.
    const std::string folder = scratchDir() + "/taken.svg";
    std::system(("mkdir -p '" + folder + "'").c_str());
    auto f = runZbddc("stats " + kExample + " --plot " + folder);
    CHECK(f.exitCode == 1);
    CHECK_THAT(f.err, Catch::Contains("taken.svg: is a directory, not a file"));
    CHECK_FALSE(scratchHasTemporaries());
}
