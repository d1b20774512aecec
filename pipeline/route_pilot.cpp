#include "pipeline/route_pilot.h"
#include "pipeline/mpe_tie_break.h"
#include "pipeline/route_cache.h"
#include "support/timer.h"

#include <algorithm>
#include <cstdio>

namespace zbddc::pipeline {

namespace {

// Cases timed on each route: enough that a per-case time is not one case's noise, few enough
// that the pilot stays a small share of a batch of hundreds.
constexpr size_t kPilotCases = 8;
// From a batch of this many cases on, each route answers two calls of different sizes after its
// first case, and the batch is projected from the difference: a route's time a case falls with
// the size of a call (the tree takes its full tables from 16 cases on; the MLF's loop answers a
// lane block at a time, and its per-call work is a large share of a few cases), so a few cases
// answered once rank the routes wrongly (alarm: the tree one case at a time 0.12-0.23 ms a case,
// 0.006-0.019 from 16 on). The two sizes both reach the tree's full tables.
constexpr size_t kSlopeBatch = 1000;
constexpr size_t kSlopeSmall = 16, kSlopeLarge = 48;

struct Trial {
    const RouteKind *kind = nullptr;
    std::unique_ptr<Route> route;
    std::string failed;   // why it did not compile
    double compileMs = 0;
    double firstMs = 0;   // the first case alone (lazy set-up included)
    double perCaseMs = 0; // each later case
    double batchMs = 0;   // the whole batch projected: compile, first case, the rest
    // MPE: the share of the timed answers the tie rule decides again (mpe_tie_break.h): neither
    // ruled untied by the route's walk nor decided by the rule's own walk (TaskResult's
    // mpeLowestKey, taken as the rule's tree's).
    double ruledShare = 0;
};

std::string ms(double v) {
    char text[32];
    std::snprintf(text, sizeof text, v < 10 ? "%.2g ms" : "%.0f ms", v);
    return text;
}

Trial timeRoute(const RouteKind &kind, RouteInput in, Task task, std::span<const Evidence> cases) {
    Trial t;
    t.kind = &kind;
    SteadyTime t0 = std::chrono::steady_clock::now();
    auto route = kind.compile(in);
    t.compileMs = msSince(t0);
    if (!route) {
        t.failed = route.error().message;
        return t;
    }
    t.route = std::move(*route);
    TaskOptions options;
    options.numeric = in.options.target.numeric;
    std::vector<Evidence> own;
    if (cases.empty()) { // no cases handed over: the prior, as often as a batch's would be
        own.assign(pilotCasesFor(in.options.expectedCases), noEvidence(t.route->variables()));
        cases = own;
    }
    size_t answered = 0, ruled = 0;
    const auto timed = [&](std::span<const Evidence> some) {
        const SteadyTime start = std::chrono::steady_clock::now();
        const std::vector<Result<TaskResult>> results = t.route->answer(task, some, options);
        const double took = msSince(start);
        for (const Result<TaskResult> &r : results) {
            ++answered;
            ruled += mayHoldTie(r) && !r->mpeLowestKey;
        }
        return took;
    };
    t.firstMs = timed(cases.first(1));
    t.perCaseMs = t.firstMs;
    if (cases.size() >= 1 + kSlopeSmall + kSlopeLarge) {
        // The larger call once untimed: a call's first time at a size pays its threads' first
        // touch of their tiles and the tree's plan for that many cases, which a batch pays once.
        (void)timed(cases.subspan(1 + kSlopeSmall, kSlopeLarge));
        const double small = timed(cases.subspan(1, kSlopeSmall));
        const double large = timed(cases.subspan(1 + kSlopeSmall, kSlopeLarge));
        const double slope = (large - small) / static_cast<double>(kSlopeLarge - kSlopeSmall);
        // Noise can make the larger call no slower: then its own time a case, an upper bound.
        t.perCaseMs = slope > 0 ? slope : large / static_cast<double>(kSlopeLarge);
    } else if (cases.size() > 1) {
        t.perCaseMs = timed(cases.subspan(1)) / static_cast<double>(cases.size() - 1);
    }
    const double later = static_cast<double>(std::max<size_t>(in.options.expectedCases, 1) - 1);
    t.batchMs = t.compileMs + t.firstMs + later * t.perCaseMs;
    t.ruledShare = answered ? static_cast<double>(ruled) / static_cast<double>(answered) : 0;
    return t;
}

// MPE: each trial's batch with the tie rule's work on the cases it would decide again, a CPU
// junction-tree MPE each, priced at the junction tree's own time a case (water: the MLF's walk
// left every case to the rule until it reported ties, and then most of them none).
void addTieRuleWork(Trial &a, Trial &b, size_t batch) {
    const Trial &tree = a.kind == &kJunctionTreeRoute ? a : b;
    if (!tree.route)
        return;
    for (Trial *t : {&a, &b})
        if (t->route)
            t->batchMs += static_cast<double>(batch) * t->ruledShare * tree.perCaseMs;
}

std::string describe(const Trial &t) {
    if (!t.failed.empty())
        return std::string(t.kind->name) + " did not compile (" + t.failed + ")";
    char ruled[64] = "";
    if (t.ruledShare > 0)
        std::snprintf(ruled, sizeof ruled, " (%.0f%% of cases to the tie rule)",
                      100 * t.ruledShare);
    return std::string(t.kind->name) + " " + ms(t.perCaseMs) + "/case, " + ms(t.compileMs) +
           " compile, " + ms(t.batchMs) + " the batch" + ruled;
}

// A route may take the network out of the model file as it compiles (the junction tree keeps
// it): the first trial compiles from a copy of what a network's routes read. Only a network's
// routes are piloted, so `m` holds one.
ModelFile networkCopy(const ModelFile &m) {
    ModelFile copy = modelFileOf(*m.network, m.path);
    copy.tree = m.tree;
    copy.treeOrder = m.treeOrder;
    return copy;
}

bool remembers(const ModelFile &model, const OpenOptions &o) {
    return model.kind == ModelKind::Network && o.route == "auto" && o.task && o.pilot.enabled &&
           o.pilot.useCache;
}

std::optional<std::string> cacheKey(RouteInput in) {
    if (!remembers(in.model, in.options))
        return std::nullopt;
    return routeCacheKey(in.model, in.options, in.placement);
}

} // namespace

size_t pilotCasesFor(size_t batch) {
    if (batch >= kSlopeBatch)
        return 1 + kSlopeSmall + kSlopeLarge;
    return std::min(kPilotCases, std::max<size_t>(batch, 1));
}

std::optional<RouteChoice> rememberedRoute(RouteInput in, std::vector<Diagnostic> &warnings) {
    const std::optional<std::string> key = cacheKey(in);
    if (!key)
        return std::nullopt;
    auto cached = readCachedRoute(routeCacheFolder(in.options.pilot), *key, warnings);
    const RouteKind *kind = cached ? findRoute(cached->route) : nullptr;
    if (kind != &kMlfRoute && kind != &kJunctionTreeRoute)
        return std::nullopt;
    return RouteChoice{kind, cached->why + " (cached)"};
}

void rememberRoute(RouteInput in, const RouteChoice &choice) {
    if (const std::optional<std::string> key = cacheKey(in); key && choice.rememberable)
        writeCachedRoute(routeCacheFolder(in.options.pilot), *key,
                         {std::string(choice.route->name), choice.why});
}

bool pilotApplies(const RouteChoice &estimated, const OpenOptions &options) {
    return options.route == "auto" && options.pilot.enabled && options.task && estimated.runnerUp &&
           estimated.estimateRatio <= options.pilot.band;
}

Result<PilotedRoute> pilotRoute(RouteInput in, const RouteChoice &estimated) {
    const PilotOptions &pilot = in.options.pilot;
    const SteadyTime t0 = std::chrono::steady_clock::now();
    const Task task = *in.options.task;
    const size_t batch = std::max<size_t>(in.options.expectedCases, 1);
    const size_t handed = std::min(pilotCasesFor(batch), pilot.cases.size());
    const std::span<const Evidence> cases(pilot.cases.data(), handed);
    const size_t count = handed ? handed : pilotCasesFor(batch); // else the prior's
    // The estimate's choice first: were the other not to compile, it is kept as before.
    ModelFile copy = networkCopy(in.model);
    Trial first = timeRoute(*estimated.route, {copy, in.options, in.placement}, task, cases);
    Trial second = timeRoute(*estimated.runnerUp, in, task, cases);
    if (!first.route && !second.route)
        return error(first.failed);
    if (task == Task::Mpe)
        addTieRuleWork(first, second, batch);
    const bool keepFirst = first.route && (!second.route || first.batchMs <= second.batchMs);
    Trial &kept = keepFirst ? first : second;
    char why[480];
    std::snprintf(why, sizeof why,
                  "pilot over %zu case(s) (%s, estimates within %.3gx): %s against %s, over %zu "
                  "case(s)",
                  count, ms(msSince(t0)).c_str(), estimated.estimateRatio,
                  describe(kept).c_str(), describe(keepFirst ? second : first).c_str(),
                  in.options.expectedCases);
    const bool both = first.route && second.route; // a failed compile is not remembered
    kept.route->forgetCalls();
    PilotedRoute piloted{{kept.kind, why}, std::move(kept.route)};
    piloted.choice.rememberable = both;
    rememberRoute(in, piloted.choice);
    return piloted;
}

} // namespace zbddc::pipeline
