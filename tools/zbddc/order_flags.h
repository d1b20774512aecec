// `--order FILE` and `--heuristic NAME`: the elimination order flags that run, compile and stats
// share for the bucket-elimination and junction-tree routes (docs/cli.md).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace zbddc {

struct OrderFlags {
    std::string orderFile;
    std::string heuristic = "min-fill";

    // Registers both options on `app`; `scope` starts their help, e.g. "(.wcsp)". `extra` names
    // heuristics a command accepts beyond greedyOrder's (stats: "search", for --route jt).
    void addTo(CLI::App &app, const std::string &scope, const std::vector<std::string> &extra = {});
};

} // namespace zbddc
