// auto's pilot and its remembered choice (pipeline/route_pilot.h, route_cache.h): the pilot keeps
// the route that answers the batch faster (on mildew, where the estimate takes the slower), the
// choice is read back from the cache, a damaged cache file is ignored with a warning, a forced route and
// --estimate-only never time or remember anything, and the answers do not depend on the route.
#include "pipeline/pipeline.h"
#include "runtime/sample_evidence.h"
#include "support/timer.h"

#include "tests/catch.hpp"
#include "tests/support/scratch.h"

#include <filesystem>
#include <fstream>

using namespace zbddc;
using namespace zbddc::pipeline;

namespace {

namespace fs = std::filesystem;

std::string bundled(const std::string &name) {
    return std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/" + name + ".bif";
}

// The benchmarks' workload: forward-sampled cases with 20% of the variables observed.
std::vector<Evidence> sampledCases(const std::string &path, size_t count) {
    auto model = readModel(path, {});
    REQUIRE(model);
    REQUIRE(model->network);
    return sampleEvidence(*model->network, count, 0.2, 1);
}

OpenOptions autoOptions(const std::string &cacheDir, Task task, size_t cases) {
    OpenOptions o;
    o.target.device = DeviceKind::Cpu;
    o.task = task;
    o.expectedCases = cases;
    o.pilot.cacheDir = cacheDir;
    return o;
}

std::unique_ptr<Session> openOk(const std::string &path, const OpenOptions &o) {
    auto s = Session::open(path, o);
    REQUIRE(s);
    return std::move(*s);
}

size_t filesIn(const std::string &dir) {
    std::error_code ec;
    size_t n = 0;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it)
        ++n;
    return n;
}

// The wall time of answering `cases` on a route forced, compile included, the faster of two.
double forcedMs(const std::string &path, const std::string &route, Task task,
                const std::vector<Evidence> &cases) {
    double best = 1e300;
    for (int round = 0; round < 2; ++round) {
        OpenOptions o = autoOptions("", task, cases.size());
        o.route = route;
        const SteadyTime t0 = std::chrono::steady_clock::now();
        auto s = openOk(path, o);
        (void)s->answer(task, cases);
        best = std::min(best, msSince(t0));
    }
    return best;
}

void checkSameAnswers(Session &a, Session &b, Task task, const std::vector<Evidence> &cases) {
    const auto x = a.answer(task, cases), y = b.answer(task, cases);
    REQUIRE(x.size() == y.size());
    for (size_t i = 0; i < x.size(); ++i) {
        REQUIRE(x[i]);
        REQUIRE(y[i]);
        CHECK(std::abs(x[i]->log10 - y[i]->log10) < 1e-9);
    }
}

} // namespace

TEST_CASE("the pilot keeps the route that answers the batch faster", "[pipeline][pilot]") {
    // water on the CPU, the estimate made unsure on purpose (any ratio within the band): the
    // pilot decides, and is checked against both routes timed alone where they differ clearly
    // (the slow case below is one where the estimate alone takes the slower route).
    const std::string path = bundled("water");
    const std::string cache = testing::scratchDir() + "/pilot-water";
    const std::vector<Evidence> cases = sampledCases(path, 64);
    OpenOptions o = autoOptions(cache, Task::Mar, cases.size());
    o.pilot.cases.assign(cases.begin(), cases.begin() + 8);
    o.pilot.band = 1e300;
    auto piloted = openOk(path, o);
    INFO(piloted->routeWhy());
    CHECK(piloted->routeWhy().rfind("pilot over 8 case(s)", 0) == 0);
    const double mlf = forcedMs(path, "mlf", Task::Mar, cases);
    const double jt = forcedMs(path, "jt", Task::Mar, cases);
    INFO("mlf " << mlf << " ms, jt " << jt << " ms");
    const std::string faster = mlf < jt ? "mlf" : "jt";
    if (std::max(mlf, jt) > 3 * std::min(mlf, jt)) // a clear difference, not this machine's noise
        CHECK(piloted->route() == faster);
    // The estimate alone: kept where the pilot is off.
    OpenOptions estimateOnly = o;
    estimateOnly.pilot.enabled = false;
    auto estimated = openOk(path, estimateOnly);
    CHECK(estimated->routeWhy().rfind("auto (cpu)", 0) == 0);
    checkSameAnswers(*piloted, *estimated, Task::Mar, cases);
}

TEST_CASE("a large batch's pilot answers two calls of different sizes on each route",
          "[pipeline][pilot]") {
    CHECK(pilotCasesFor(0) == 1);
    CHECK(pilotCasesFor(50) == 8);
    CHECK(pilotCasesFor(999) == 8);
    CHECK(pilotCasesFor(1000) == 65); // the first case, then 16 and 48 (the 48 twice)
    // alarm over 2,000 cases: its 65 first cases handed over, the estimate made unsure.
    const std::string path = bundled("alarm");
    const std::vector<Evidence> cases = sampledCases(path, 65);
    OpenOptions o = autoOptions(testing::scratchDir() + "/pilot-slope", Task::Pr, 2000);
    o.pilot.cases = cases;
    o.pilot.band = 1e300;
    auto piloted = openOk(path, o);
    INFO(piloted->routeWhy());
    CHECK(piloted->routeWhy().rfind("pilot over 65 case(s)", 0) == 0);
    CHECK(piloted->routeWhy().find("over 2000 case(s)") != std::string::npos);
    OpenOptions other = o; // handed fewer: the pilot times what it was handed
    other.pilot.cases.resize(8);
    other.pilot.cacheDir += "-fewer";
    auto fewer = openOk(path, other);
    CHECK(fewer->routeWhy().rfind("pilot over 8 case(s)", 0) == 0);
    checkSameAnswers(*piloted, *fewer, Task::Pr, cases);
}

TEST_CASE("MPE on the CPU is piloted as PR and MAR are, the tie rule's work on each route counted",
          "[pipeline][pilot]") {
    // Every route's walk now says which answers the tie rule (mpe_tie_break.h) must decide again,
    // so MPE is no longer sent to the junction tree outright: the pilot times both routes and
    // adds the rule's work on the cases each leaves to it. Whichever it keeps, the answers are
    // the same assignments as each route forced.
    const std::string path = bundled("asia");
    const std::vector<Evidence> cases = sampledCases(path, 64);
    OpenOptions o = autoOptions(testing::scratchDir() + "/mpe-cpu", Task::Mpe, cases.size());
    o.pilot.cases = cases;
    o.pilot.band = 1e300;
    auto chosen = openOk(path, o);
    INFO(chosen->routeWhy());
    CHECK(chosen->routeWhy().rfind("pilot over", 0) == 0);
    for (const char *route : {"mlf", "jt"}) {
        OpenOptions forced = o;
        forced.route = route;
        checkSameAnswers(*chosen, *openOk(path, forced), Task::Mpe, cases);
    }
}

TEST_CASE("the pilot's choice is remembered per model, task and batch size", "[pipeline][pilot]") {
    const std::string path = bundled("alarm");
    const std::string cache = testing::scratchDir() + "/pilot-cache";
    const std::vector<Evidence> cases = sampledCases(path, 16);
    OpenOptions o = autoOptions(cache, Task::Pr, cases.size());
    o.pilot.cases = cases;
    o.pilot.band = 1e300;
    auto first = openOk(path, o);
    REQUIRE(first->routeWhy().rfind("pilot over", 0) == 0);
    CHECK(filesIn(cache) == 1);

    auto second = openOk(path, o); // read back: the same route, said to be remembered
    CHECK(second->route() == first->route());
    CHECK(second->routeWhy() == first->routeWhy() + " (cached)");
    CHECK(second->takeWarnings().empty());
    checkSameAnswers(*first, *second, Task::Pr, cases);

    OpenOptions mar = o; // another task is another key: timed again
    mar.task = Task::Mar;
    auto other = openOk(path, mar);
    CHECK(other->routeWhy().rfind("pilot over", 0) == 0);
    OpenOptions single = o; // so is another batch size's decade
    single.expectedCases = 1;
    auto one = openOk(path, single);
    CHECK(one->routeWhy().rfind("pilot over 1 case(s)", 0) == 0);
    CHECK(filesIn(cache) == 3);

    // A choice the estimate makes alone (one case: the tree, 130x below the MLF's estimate) is
    // remembered too: the next run skips the estimates.
    OpenOptions clear = single;
    clear.pilot.band = 32;
    clear.pilot.cacheDir = cache + "-clear";
    auto estimated = openOk(path, clear);
    CHECK(estimated->routeWhy().rfind("auto (cpu): 1 case(s)", 0) == 0);
    auto recalled = openOk(path, clear);
    CHECK(recalled->route() == estimated->route());
    CHECK(recalled->routeWhy() == estimated->routeWhy() + " (cached)");
}

TEST_CASE("a damaged route cache file is ignored with a warning and written again",
          "[pipeline][pilot]") {
    const std::string path = bundled("asia");
    const std::string cache = testing::scratchDir() + "/pilot-damaged";
    OpenOptions o = autoOptions(cache, Task::Mar, 4);
    o.pilot.band = 1e300; // no cases handed over: the pilot times the prior
    auto first = openOk(path, o);
    REQUIRE(filesIn(cache) == 1);
    const std::string file = fs::directory_iterator(cache)->path().string();
    for (const char *damage : {"", "zbddc route choice 1\nkey other\nroute jt\nwhy x\n",
                               "zbddc route choice 1\x01\xff garbage"}) {
        std::ofstream(file, std::ios::binary | std::ios::trunc) << damage;
        auto again = openOk(path, o);
        const std::vector<Diagnostic> warnings = again->takeWarnings();
        REQUIRE(warnings.size() == 1);
        CHECK(warnings[0].file == file);
        CHECK(warnings[0].message.find("ignored") != std::string::npos);
        CHECK(again->routeWhy().rfind("pilot over", 0) == 0); // timed again
        auto third = openOk(path, o);                          // and remembered again
        CHECK(third->routeWhy().find("(cached)") != std::string::npos);
        CHECK(third->takeWarnings().empty());
    }
}

TEST_CASE("a forced route and --estimate-only neither time nor remember", "[pipeline][pilot]") {
    const std::string path = bundled("asia");
    const std::string cache = testing::scratchDir() + "/pilot-bypassed";
    for (const char *route : {"mlf", "jt"}) {
        OpenOptions o = autoOptions(cache, Task::Mar, 4);
        o.pilot.band = 1e300;
        o.route = route;
        auto s = openOk(path, o);
        CHECK(s->route() == route);
        CHECK(s->routeWhy() == std::string("asked for (--route ") + route + ")");
    }
    OpenOptions off = autoOptions(cache, Task::Mar, 4);
    off.pilot.band = 1e300;
    off.pilot.enabled = false;
    auto s = openOk(path, off);
    CHECK(s->routeWhy().rfind("auto (cpu)", 0) == 0);
    OpenOptions noTask = off; // no task to time (a compile): the estimate decides
    noTask.pilot.enabled = true;
    noTask.task.reset();
    auto compiled = openOk(path, noTask);
    CHECK(compiled->routeWhy().rfind("auto (cpu)", 0) == 0);
    CHECK(filesIn(cache) == 0);
}

TEST_CASE("mildew: the pilot takes the junction tree the estimate passes over", "[.][slow][pilot]") {
    // mildew on the CPU: the estimate takes the MLF (4.4M ZBDD nodes) where the junction tree
    // answers a batch many times faster (BENCHMARKS.md, "Which route, every network").
    const std::string path = bundled("mildew");
    const std::vector<Evidence> cases = sampledCases(path, 200);
    OpenOptions o = autoOptions(testing::scratchDir() + "/pilot-mildew", Task::Mar, cases.size());
    o.pilot.cases.assign(cases.begin(), cases.begin() + 8);
    OpenOptions estimateOnly = o;
    estimateOnly.pilot.enabled = false;
    CHECK(openOk(path, estimateOnly)->route() == "mlf");
    auto piloted = openOk(path, o);
    INFO(piloted->routeWhy());
    CHECK(piloted->route() == "jt");
}
