#include "compiler/mlf/mlf_frontier.h"

#include "compiler/mlf/mlf_possible.h"


#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <set>

namespace zbddc {

namespace {
// The network as the model sees it: CPT families (a variable and its parents) and, per variable,
// the families it belongs to, and log of the number of X's possible states (a state that occurs
// in no term splits no sub-family; a variable fixed by determinism costs nothing).
struct FamilyGraph {
    std::vector<std::vector<uint32_t>> family;    // [cpt] members
    std::vector<std::vector<uint32_t>> memberOf;  // [variable] cpts
    std::vector<double> logStates;                // [variable]
    size_t work = 0;                              // size of one cost evaluation

    explicit FamilyGraph(const BayesNet &net) {
        const size_t n = net.variables.size();
        family.resize(n);
        memberOf.resize(n);
        logStates.resize(n);
        const std::vector<std::vector<char>> possible = possibleStates(net);
        for (uint32_t v = 0; v < n; ++v) {
            family[v] = net.variables[v].parents;
            family[v].push_back(v);
            for (uint32_t x : family[v])
                memberOf[x].push_back(v);
            const auto states = std::count(possible[v].begin(), possible[v].end(), 1);
            logStates[v] = std::log(static_cast<double>(std::max<std::ptrdiff_t>(states, 1)));
            work += family[v].size() + 1;
        }
    }
};

double logAdd(double a, double b) { // log(e^a + e^b) without overflow
    if (a < b)
        std::swap(a, b);
    return b == -std::numeric_limits<double>::infinity() ? a : a + std::log1p(std::exp(b - a));
}

// Frontier weights per cut: w[i] = Σ log|X| over the X placed at or above i that still share a
// family with a variable at or below i (X = order[i] included).
std::vector<double> cutWeights(const FamilyGraph &g, const std::vector<uint32_t> &order,
                               std::vector<uint32_t> &pos) {
    const size_t n = order.size();
    for (uint32_t i = 0; i < n; ++i)
        pos[order[i]] = i;
    std::vector<double> delta(n + 1, 0.0);
    std::vector<uint32_t> reach(n, 0);
    for (const auto &members : g.family) {
        uint32_t last = 0;
        for (uint32_t x : members)
            last = std::max(last, pos[x]);
        for (uint32_t x : members)
            reach[x] = std::max(reach[x], last);
    }
    for (uint32_t x = 0; x < n; ++x) {
        delta[pos[x]] += g.logStates[x];
        delta[reach[x] + 1] -= g.logStates[x];
    }
    std::vector<double> w(n);
    double run = 0;
    for (size_t i = 0; i < n; ++i)
        w[i] = run += delta[i];
    return w;
}

double logCost(const FamilyGraph &g, const std::vector<uint32_t> &order,
               std::vector<uint32_t> &pos) {
    double total = -std::numeric_limits<double>::infinity();
    for (double w : cutWeights(g, order, pos))
        total = logAdd(total, w);
    return total;
}

// Greedy vertex-separation order from `start`: each next variable is the one after which the
// frontier (placed variables with a family not yet complete) weighs least; ties go to the
// variable that closes most families, then to the lowest index (determinism).
std::vector<uint32_t> greedySeparationOrder(const FamilyGraph &g, uint32_t start) {
    const size_t n = g.family.size();
    std::vector<uint32_t> unplacedIn(n), openFamilies(n), order;
    std::vector<char> placed(n, 0);
    for (uint32_t c = 0; c < n; ++c)
        unplacedIn[c] = static_cast<uint32_t>(g.family[c].size());
    for (uint32_t x = 0; x < n; ++x)
        openFamilies[x] = static_cast<uint32_t>(g.memberOf[x].size());
    std::vector<uint32_t> closing(n, 0), touched; // scratch: families closed per member
    double frontier = 0;
    auto place = [&](uint32_t v) {
        placed[v] = 1;
        order.push_back(v);
        frontier += g.logStates[v];
        for (uint32_t c : g.memberOf[v])
            if (--unplacedIn[c] == 0)
                for (uint32_t x : g.family[c])
                    if (--openFamilies[x] == 0)
                        frontier -= g.logStates[x];
    };
    // Frontier weight after placing v, and the number of families v would complete.
    auto after = [&](uint32_t v, size_t &closed) {
        double w = frontier + g.logStates[v];
        touched.clear();
        closed = 0;
        for (uint32_t c : g.memberOf[v]) {
            if (unplacedIn[c] != 1)
                continue;
            ++closed;
            for (uint32_t x : g.family[c]) {
                if (closing[x]++ == 0)
                    touched.push_back(x);
            }
        }
        for (uint32_t x : touched) {
            if (closing[x] == openFamilies[x])
                w -= g.logStates[x];
            closing[x] = 0;
        }
        return w;
    };
    // Candidates: a variable sharing a family with a placed one ("boundary") changes the frontier
    // in ways that depend on what is placed, so each is evaluated every step. Any other variable
    // can close only families of its own alone, so its weight after placing is the frontier plus
    // a constant of its own: those wait in `apart`, best first, and only the best is evaluated.
    // Scanning every unplaced variable every step made 20,000 independent variables take 13 s.
    std::vector<char> inBoundary(n, 0);
    std::vector<uint32_t> boundary;
    using Apart = std::tuple<double, int, uint32_t>; // (weight - frontier, -closed, v)
    std::set<Apart> apart;
    std::vector<Apart> apartKey(n);
    for (uint32_t v = 0; v < n; ++v) {
        size_t closed = 0;
        const double w = after(v, closed); // nothing placed: the frontier is 0
        apartKey[v] = {w, -static_cast<int>(closed), v};
        apart.insert(apartKey[v]);
    }
    auto placeAndTrack = [&](uint32_t v) {
        if (inBoundary[v])
            inBoundary[v] = 0;
        else
            apart.erase(apartKey[v]);
        place(v);
        for (uint32_t c : g.memberOf[v])
            for (uint32_t x : g.family[c])
                if (!placed[x] && !inBoundary[x]) {
                    inBoundary[x] = 1;
                    apart.erase(apartKey[x]);
                    boundary.push_back(x);
                }
        std::erase_if(boundary, [&](uint32_t x) { return placed[x]; });
    };
    placeAndTrack(start);
    std::vector<uint32_t> candidates;
    while (order.size() < n) {
        candidates = boundary;
        if (!apart.empty())
            candidates.push_back(std::get<2>(*apart.begin()));
        std::sort(candidates.begin(), candidates.end()); // the scan's order: ties to the lowest index
        uint32_t best = UINT32_MAX;
        double bestW = 0;
        size_t bestClosed = 0;
        for (uint32_t v : candidates) {
            size_t closed;
            const double w = after(v, closed);
            if (best == UINT32_MAX || w < bestW - 1e-9 ||
                (w < bestW + 1e-9 && closed > bestClosed)) {
                best = v;
                bestW = w;
                bestClosed = closed;
            }
        }
        placeAndTrack(best);
    }
    return order;
}

// Moves single variables to the best position within `window` places while the cost drops.
void sift(const FamilyGraph &g, std::vector<uint32_t> &order, double &cost, size_t &budget) {
    const size_t n = order.size();
    std::vector<uint32_t> pos(n), trial;
    const size_t window = std::max<size_t>(8, std::min<size_t>(n, 20000 / std::max<size_t>(n, 1)));
    for (bool improved = true; improved && budget > 0;) {
        improved = false;
        for (uint32_t x = 0; x < n && budget > 0; ++x) {
            const size_t from = std::find(order.begin(), order.end(), x) - order.begin();
            std::vector<uint32_t> rest = order;
            rest.erase(rest.begin() + from);
            size_t bestAt = from;
            const size_t lo = from > window ? from - window : 0, hi = std::min(n - 1, from + window);
            for (size_t at = lo; at <= hi && budget > 0; ++at, --budget) {
                if (at == from)
                    continue;
                trial = rest;
                trial.insert(trial.begin() + at, x);
                const double c = logCost(g, trial, pos);
                if (c < cost - 1e-9) {
                    cost = c;
                    bestAt = at;
                }
            }
            if (bestAt != from) {
                rest.insert(rest.begin() + bestAt, x);
                order = std::move(rest);
                improved = true;
            }
        }
    }
}
} // namespace

double frontierLogCost(const BayesNet &net, const std::vector<uint32_t> &order) {
    FamilyGraph g(net);
    std::vector<uint32_t> pos(order.size());
    return logCost(g, order, pos);
}

double frontierLogWidth(const BayesNet &net, const std::vector<uint32_t> &order) {
    FamilyGraph g(net);
    std::vector<uint32_t> pos(order.size());
    const auto w = cutWeights(g, order, pos);
    return w.empty() ? 0.0 : *std::max_element(w.begin(), w.end());
}

std::vector<uint32_t> searchFrontierOrder(const BayesNet &net,
                                          const std::vector<std::vector<uint32_t>> &seeds,
                                          size_t work) {
    const FamilyGraph g(net);
    const size_t n = net.variables.size();
    if (n == 0)
        return {};
    std::vector<uint32_t> pos(n);
    std::vector<std::vector<uint32_t>> candidates = seeds;
    // Greedy starts: every variable on small networks; on large ones the first variables of the
    // seeds and a spread of others (the greedy step is quadratic in n).
    const size_t starts = std::min<size_t>(n, std::max<size_t>(4, 4'000'000 / (n * n + 1)));
    for (size_t s = 0; s < starts; ++s)
        candidates.push_back(greedySeparationOrder(g, static_cast<uint32_t>(s * n / starts)));
    for (const auto &seed : seeds)
        if (!seed.empty())
            candidates.push_back(greedySeparationOrder(g, seed.front()));
    std::vector<std::pair<double, size_t>> ranked;
    for (size_t i = 0; i < candidates.size(); ++i)
        ranked.push_back({logCost(g, candidates[i], pos), i});
    std::sort(ranked.begin(), ranked.end());
    // Improve the best few; one evaluation costs about g.work + n steps.
    size_t budget = std::max<size_t>(1000, work / (g.work + n));
    std::vector<uint32_t> best;
    double bestCost = std::numeric_limits<double>::infinity();
    for (size_t k = 0; k < std::min<size_t>(3, candidates.size()); ++k) {
        std::vector<uint32_t> order = candidates[ranked[k].second];
        double cost = logCost(g, order, pos);
        size_t share = budget / (3 - k);
        budget -= share;
        sift(g, order, cost, share);
        budget += share;
        if (cost < bestCost) {
            bestCost = cost;
            best = std::move(order);
        }
    }
    return best;
}

} // namespace zbddc
