// Random binary WCSPs of the benchmark families of Bistaffa et al. 2016 §4 and Fioretto et al. 2015
// §5: random graphs of density p (⌊n(n-1)p/2⌋ edges, connected), Barabási–Albert scale-free graphs
// with m = 2 (start from a connected pair, each new node joins two existing nodes chosen with
// probability proportional to their degree), and square grids. Every edge gets a table over domain
// d whose entries are feasible with probability `tightness` (those papers' ratio of entries
// different from -inf) with an integer cost uniform in [0, 100], forbidden otherwise. Same seed,
// same file.
//
// With --cost-shift K, every feasible cost c is written as c * 2^K + 1 and the upper bound scales
// alike: the same instance, optimal assignments and all, with costs past 2^53 for K ≥ 47 (solved
// in 64-bit integers; docs/formats/wcsp.md).
//
// Usage: wcsp_generate --family random|scale-free|grid --n N [--density 0.3] [--domain 5]
//                      [--tightness 0.5] [--seed S] [--cost-shift K] -o FILE.wcsp
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {

using Edges = std::set<std::pair<uint32_t, uint32_t>>;

void addEdge(Edges &e, uint32_t u, uint32_t v) {
    e.insert({std::min(u, v), std::max(u, v)});
}

bool connected(uint32_t n, const Edges &edges) {
    std::vector<uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](uint32_t x) {
        while (parent[x] != x)
            x = parent[x] = parent[parent[x]];
        return x;
    };
    uint32_t components = n;
    for (auto [u, v] : edges)
        if (find(u) != find(v)) {
            parent[find(u)] = find(v);
            --components;
        }
    return components <= 1;
}

Edges randomGraph(uint32_t n, double density, std::mt19937_64 &rng) {
    const auto m = static_cast<size_t>(std::floor(n * (n - 1.0) * density / 2.0));
    for (int attempt = 0;; ++attempt) {
        Edges e;
        std::uniform_int_distribution<uint32_t> pick(0, n - 1);
        while (e.size() < m) {
            const uint32_t u = pick(rng), v = pick(rng);
            if (u != v)
                addEdge(e, u, v);
        }
        if (connected(n, e) || attempt == 1000)
            return e;
    }
}

Edges scaleFree(uint32_t n, std::mt19937_64 &rng) {
    Edges e;
    std::vector<uint32_t> endpoints{0, 1}; // each node once per incident edge
    addEdge(e, 0, 1);
    for (uint32_t v = 2; v < n; ++v) {
        std::set<uint32_t> targets;
        std::uniform_int_distribution<size_t> pick(0, endpoints.size() - 1);
        while (targets.size() < std::min<uint32_t>(2, v))
            targets.insert(endpoints[pick(rng)]);
        for (uint32_t t : targets) {
            addEdge(e, v, t);
            endpoints.push_back(v);
            endpoints.push_back(t);
        }
    }
    return e;
}

Edges grid(uint32_t side) {
    Edges e;
    for (uint32_t r = 0; r < side; ++r)
        for (uint32_t c = 0; c < side; ++c) {
            if (c + 1 < side)
                addEdge(e, r * side + c, r * side + c + 1);
            if (r + 1 < side)
                addEdge(e, r * side + c, (r + 1) * side + c);
        }
    return e;
}

} // namespace

int main(int argc, char **argv) {
    std::string family, out;
    uint32_t n = 0, domain = 5;
    double density = 0.3, tightness = 0.5;
    uint64_t seed = 1;
    unsigned costShift = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--family")
            family = v;
        else if (k == "--n")
            n = static_cast<uint32_t>(std::stoul(v));
        else if (k == "--density")
            density = std::stod(v);
        else if (k == "--domain")
            domain = static_cast<uint32_t>(std::stoul(v));
        else if (k == "--tightness")
            tightness = std::stod(v);
        else if (k == "--seed")
            seed = std::stoull(v);
        else if (k == "--cost-shift")
            costShift = static_cast<unsigned>(std::stoul(v));
        else if (k == "-o")
            out = v;
        else {
            std::fprintf(stderr, "wcsp_generate: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    const auto side = static_cast<uint32_t>(std::lround(std::sqrt(static_cast<double>(n))));
    if (out.empty() || n < 2 || domain < 1 || costShift > 48 ||
        (family == "grid" && side * side != n)) {
        std::fprintf(stderr, "usage: wcsp_generate --family random|scale-free|grid --n N "
                             "(a square for grid) [--density P] [--domain D] [--tightness T] "
                             "[--seed S] [--cost-shift K (at most 48)] -o FILE.wcsp\n");
        return 2;
    }
    std::mt19937_64 rng(seed);
    Edges edges;
    if (family == "random")
        edges = randomGraph(n, density, rng);
    else if (family == "scale-free")
        edges = scaleFree(n, rng);
    else if (family == "grid")
        edges = grid(side);
    else {
        std::fprintf(stderr, "wcsp_generate: unknown family %s\n", family.c_str());
        return 2;
    }
    // Above any feasible total (each table adds at most 100, or 100 * 2^K + 1 shifted), and below
    // 2^63 as toulbar2 and zbddc require.
    const uint64_t scale = uint64_t{1} << costShift;
    const uint64_t perTable = costShift ? 100 * scale + 1 : 100;
    if (perTable > (uint64_t{INT64_MAX} - 1) / std::max<uint64_t>(edges.size(), 1)) {
        std::fprintf(stderr, "wcsp_generate: --cost-shift %u puts the upper bound past 2^63\n",
                     costShift);
        return 2;
    }
    const uint64_t top = perTable * edges.size() + 1;
    std::ofstream f(out);
    f << family << "_n" << n << "_d" << domain << "_seed" << seed << " " << n << " " << domain
      << " " << edges.size() << " " << top << "\n";
    for (uint32_t v = 0; v < n; ++v)
        f << domain << (v + 1 < n ? " " : "\n");
    std::bernoulli_distribution feasible(tightness);
    std::uniform_int_distribution<uint32_t> cost(0, 100);
    for (auto [u, v] : edges) {
        f << "2 " << u << " " << v << " " << top << " " << domain * domain << "\n";
        for (uint32_t a = 0; a < domain; ++a)
            for (uint32_t b = 0; b < domain; ++b)
                f << a << " " << b << " "
                  << (feasible(rng) ? (costShift ? cost(rng) * scale + 1 : cost(rng)) : top)
                  << "\n";
    }
    return f ? 0 : 1;
}
