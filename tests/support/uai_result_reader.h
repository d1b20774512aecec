// A reader of UAI result files written from the competitions' specifications, independent of
// zbddc's printer, as a scorer would read them: numbers through C++'s `>>`.
//   2014 and later: the task line, then a solution; `-BEGIN-` starts another, the last counts.
//   2010: the task line, the number of evidence cases, then one solution line per case.
// A solution is one line: PR `log10`; MAR `n` then, per variable, `k` and k probabilities; MPE
// `n` then n state indices. Anything else makes the reader return nothing.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace zbddc::testing {

struct UaiSolution {
    double log10 = 0;                            // PR
    std::vector<std::vector<double>> marginals; // MAR
    std::vector<long> states;                   // MPE
};

namespace uai_reader_detail {

inline bool readSolution(const std::string &task, const std::string &line, UaiSolution &s) {
    std::istringstream in(line);
    if (task == "PR") {
        if (!(in >> s.log10))
            return false;
    } else if (task == "MAR") {
        long n = 0;
        if (!(in >> n) || n < 0)
            return false;
        for (long v = 0; v < n; ++v) {
            long k = 0;
            if (!(in >> k) || k <= 0)
                return false;
            std::vector<double> p(static_cast<size_t>(k));
            for (double &x : p)
                if (!(in >> x))
                    return false;
            s.marginals.push_back(std::move(p));
        }
    } else if (task == "MPE") {
        long n = 0;
        if (!(in >> n) || n < 0)
            return false;
        for (long v = 0; v < n; ++v) {
            long state = -1;
            if (!(in >> state) || state < 0)
                return false;
            s.states.push_back(state);
        }
    } else {
        return false;
    }
    std::string rest;
    return !(in >> rest); // a solution line holds nothing else
}

inline std::vector<std::string> lines(const std::string &text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            out.push_back(line);
    return out;
}

} // namespace uai_reader_detail

// The 2014+ layout: the task and the last solution.
inline std::optional<UaiSolution> readUai2014(const std::string &text, const std::string &task) {
    const auto lines = uai_reader_detail::lines(text);
    if (lines.size() < 2 || lines[0] != task)
        return std::nullopt;
    std::optional<UaiSolution> last;
    for (size_t i = 1; i < lines.size(); ++i) {
        if (lines[i] == "-BEGIN-")
            continue;
        UaiSolution s;
        if (!uai_reader_detail::readSolution(task, lines[i], s))
            return std::nullopt;
        last = std::move(s);
    }
    return last;
}

// The 2010 layout: one solution per evidence case.
inline std::optional<std::vector<UaiSolution>> readUai2010(const std::string &text,
                                                           const std::string &task) {
    const auto lines = uai_reader_detail::lines(text);
    if (lines.size() < 2 || lines[0] != task)
        return std::nullopt;
    std::istringstream countLine(lines[1]);
    long count = -1;
    std::string rest;
    if (!(countLine >> count) || count < 0 || (countLine >> rest) ||
        lines.size() != static_cast<size_t>(count) + 2)
        return std::nullopt;
    std::vector<UaiSolution> cases(static_cast<size_t>(count));
    for (size_t c = 0; c < cases.size(); ++c)
        if (!uai_reader_detail::readSolution(task, lines[c + 2], cases[c]))
            return std::nullopt;
    return cases;
}

} // namespace zbddc::testing
