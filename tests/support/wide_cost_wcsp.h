// Random WCSPs whose costs and optima lie beyond 2^53 (float64 would round them), written as
// .wcsp text, with their own brute-force oracle in 128-bit integers: it reads the tuples it
// generated, not the parsed network, so it shares no code with the reader or the solvers.
#pragma once

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace zbddc::testing {

struct WideCostWcsp {
    std::string text;
    uint64_t upperBound = 0;
    std::vector<uint32_t> domains;
    struct Function {
        std::vector<uint32_t> scope;
        uint64_t defaultCost = 0;
        std::vector<uint64_t> costs; // every row, the default filled in
    };
    std::vector<Function> functions;

    // The exact total of an assignment, or -1 when it reaches the upper bound.
    __int128 cost(const std::vector<uint32_t> &a) const {
        __int128 total = 0;
        for (const Function &f : functions) {
            uint64_t row = 0;
            for (uint32_t v : f.scope)
                row = row * domains[v] + a[v];
            total += f.costs[row];
        }
        return total < static_cast<__int128>(upperBound) ? total : -1;
    }

    // The least total over the assignments that agree with `evidence` (UINT32_MAX: free), or -1.
    __int128 optimum(const std::vector<uint32_t> &evidence = {}) const {
        std::vector<uint32_t> a(domains.size(), 0);
        for (size_t v = 0; v < evidence.size(); ++v)
            if (evidence[v] != UINT32_MAX)
                a[v] = evidence[v];
        __int128 best = -1;
        while (true) {
            if (const __int128 c = cost(a); c >= 0 && (best < 0 || c < best))
                best = c;
            size_t v = domains.size();
            while (v-- > 0) {
                if (!evidence.empty() && evidence[v] != UINT32_MAX)
                    continue;
                if (++a[v] < domains[v])
                    break;
                a[v] = 0;
            }
            if (v == SIZE_MAX)
                return best;
        }
    }
};

// `n` variables of domain 2..3, `m` functions of arity 1..3 with costs near 2^`scaleBits` and
// odd low bits (so a float64 sum would round), a few forbidden (at or above the bound), a few
// tables listed sparsely with a default. The upper bound is 2^`boundBits` (at most 63: then
// 2^63 - 1).
inline WideCostWcsp wideCostWcsp(std::mt19937_64 &rng, uint32_t n, uint32_t m,
                                 unsigned scaleBits, unsigned boundBits) {
    WideCostWcsp w;
    w.upperBound = boundBits >= 63 ? UINT64_C(0x7fffffffffffffff) : uint64_t{1} << boundBits;
    auto pick = [&](uint64_t lo, uint64_t hi) {
        return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
    };
    auto cost = [&]() -> uint64_t {
        if (pick(0, 9) == 0)
            return w.upperBound + pick(0, 1); // forbidden, at or above the bound
        return (uint64_t{1} << scaleBits) + 2 * pick(0, uint64_t{1} << 30) + 1;
    };
    for (uint32_t v = 0; v < n; ++v)
        w.domains.push_back(static_cast<uint32_t>(pick(2, 3)));
    std::ostringstream body;
    for (uint32_t i = 0; i < m; ++i) {
        WideCostWcsp::Function f;
        const uint32_t arity = static_cast<uint32_t>(pick(1, std::min<uint32_t>(3, n)));
        while (f.scope.size() < arity) {
            const uint32_t v = static_cast<uint32_t>(pick(0, n - 1));
            if (std::find(f.scope.begin(), f.scope.end(), v) == f.scope.end())
                f.scope.push_back(v);
        }
        uint64_t rows = 1;
        for (uint32_t v : f.scope)
            rows *= w.domains[v];
        const bool sparse = pick(0, 2) == 0;
        f.defaultCost = sparse ? cost() : 0;
        f.costs.assign(rows, f.defaultCost);
        std::vector<uint64_t> listed;
        for (uint64_t r = 0; r < rows; ++r)
            if (!sparse || pick(0, 1)) {
                f.costs[r] = cost();
                listed.push_back(r);
            }
        body << f.scope.size();
        for (uint32_t v : f.scope)
            body << ' ' << v;
        body << ' ' << f.defaultCost << ' ' << listed.size() << '\n';
        for (uint64_t r : listed) {
            std::vector<uint32_t> digits(f.scope.size());
            uint64_t rest = r;
            for (size_t k = f.scope.size(); k-- > 0;) {
                digits[k] = static_cast<uint32_t>(rest % w.domains[f.scope[k]]);
                rest /= w.domains[f.scope[k]];
            }
            for (uint32_t d : digits)
                body << d << ' ';
            body << f.costs[r] << '\n';
        }
        // Every listed cost at or above the bound reads as forbidden; so does the oracle's.
        for (uint64_t &c : f.costs)
            c = std::min(c, w.upperBound);
        w.functions.push_back(std::move(f));
    }
    std::ostringstream text;
    text << "wide " << n << " 3 " << m << ' ' << w.upperBound << '\n';
    for (uint32_t d : w.domains)
        text << d << ' ';
    text << '\n' << body.str();
    w.text = text.str();
    return w;
}

} // namespace zbddc::testing
