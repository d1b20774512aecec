// Tiny random Markov networks written as UAI MARKOV text, and the brute-force oracle of their
// queries: every joint assignment enumerated in log space from the generated tables (no code
// shared with the reader or any route), so partition functions beyond a double are checked too.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace zbddc::testing {

struct MarkovFactor {
    std::vector<uint32_t> scope; // table order: the last varies fastest
    std::vector<double> table;
};

struct MarkovNet {
    std::vector<uint32_t> domains;
    std::vector<MarkovFactor> factors;

    // The UAI MARKOV file of this network; numbers at full precision.
    std::string uaiText() const {
        std::ostringstream out;
        out.precision(17);
        out << "MARKOV\n" << domains.size() << "\n";
        for (uint32_t d : domains)
            out << d << " ";
        out << "\n" << factors.size() << "\n";
        for (const MarkovFactor &f : factors) {
            out << f.scope.size();
            for (uint32_t v : f.scope)
                out << " " << v;
            out << "\n";
        }
        for (const MarkovFactor &f : factors) {
            out << "\n" << f.table.size() << "\n";
            for (double p : f.table)
                out << " " << p;
            out << "\n";
        }
        return out.str();
    }
};

// `n` variables of 2-3 states, factors over 0-3 variables in a shuffled order, entries in
// [0, 4) with zeros (deterministic factors); with `huge`, every factor times 10^60, so Z is far
// beyond a double.
inline MarkovNet randomMarkovNet(std::mt19937 &rng, size_t n, bool huge = false) {
    MarkovNet net;
    for (size_t v = 0; v < n; ++v)
        net.domains.push_back(2 + rng() % 2);
    const size_t m = 1 + rng() % (n + 3);
    for (size_t f = 0; f < m; ++f) {
        MarkovFactor factor;
        std::vector<uint32_t> vars(n);
        for (uint32_t v = 0; v < n; ++v)
            vars[v] = v;
        std::shuffle(vars.begin(), vars.end(), rng);
        const size_t arity = std::min<size_t>(n, f == 0 ? 0 : 1 + rng() % 3);
        factor.scope.assign(vars.begin(), vars.begin() + static_cast<std::ptrdiff_t>(arity));
        size_t rows = 1;
        for (uint32_t v : factor.scope)
            rows *= net.domains[v];
        for (size_t r = 0; r < rows; ++r) {
            const bool zero = rng() % 6 == 0;
            double p = zero ? 0.0 : std::uniform_real_distribution<double>(0.05, 4)(rng);
            factor.table.push_back(huge ? p * 1e60 : p);
        }
        net.factors.push_back(std::move(factor));
    }
    return net;
}

struct MarkovAnswers {
    double log10Z = -std::numeric_limits<double>::infinity();   // log10 Z(e)
    std::vector<std::vector<double>> marginals;                 // empty where Z(e) = 0
    double log10Mpe = -std::numeric_limits<double>::infinity(); // log10 max_x weight(x, e)
};

// log10 of one assignment's weight (-inf where a factor is 0).
inline double markovLog10Weight(const MarkovNet &net, const std::vector<uint32_t> &x) {
    double log = 0;
    for (const MarkovFactor &f : net.factors) {
        size_t row = 0;
        for (uint32_t v : f.scope)
            row = row * net.domains[v] + x[v];
        if (f.table[row] <= 0)
            return -std::numeric_limits<double>::infinity();
        log += std::log10(f.table[row]);
    }
    return log;
}

// Evidence: a state per variable, or -1 where unobserved.
inline MarkovAnswers bruteForceMarkov(const MarkovNet &net, const std::vector<int> &e) {
    const size_t n = net.domains.size();
    std::vector<double> logs;
    std::vector<std::vector<uint32_t>> xs;
    std::vector<uint32_t> x(n, 0);
    MarkovAnswers out;
    for (;;) {
        bool consistent = true;
        for (size_t v = 0; v < n && consistent; ++v)
            consistent = e[v] < 0 || static_cast<uint32_t>(e[v]) == x[v];
        if (consistent) {
            const double w = markovLog10Weight(net, x);
            if (!std::isinf(w)) {
                logs.push_back(w);
                xs.push_back(x);
            }
        }
        size_t v = 0;
        while (v < n && ++x[v] == net.domains[v])
            x[v++] = 0;
        if (v == n)
            break;
    }
    if (logs.empty())
        return out;
    const double top = *std::max_element(logs.begin(), logs.end());
    out.log10Mpe = top;
    double sum = 0;
    for (double w : logs)
        sum += std::pow(10.0, w - top);
    out.log10Z = top + std::log10(sum);
    out.marginals.resize(n);
    for (size_t v = 0; v < n; ++v)
        out.marginals[v].assign(net.domains[v], 0.0);
    for (size_t i = 0; i < logs.size(); ++i)
        for (size_t v = 0; v < n; ++v)
            out.marginals[v][xs[i][v]] += std::pow(10.0, logs[i] - top) / sum;
    return out;
}

} // namespace zbddc::testing
