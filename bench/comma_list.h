// A command-line value of comma-separated items ("cpu,cuda", "0,8,32"), for the benchmarks.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace zbddc::bench {

inline std::vector<std::string> commaList(const std::string &s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        out.push_back(item);
    return out;
}

} // namespace zbddc::bench
