// `--order FILE` and `--heuristic NAME`: the elimination order flags that run, compile and stats
// share for the bucket-elimination route (docs/cli.md).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace zbddc {

struct OrderFlags {
    std::string orderFile;
    std::string heuristic = "min-fill";

    // Registers both options on `app`; `scope` starts their help, e.g. "(.wcsp)".
    void addTo(CLI::App &app, const std::string &scope);
};

} // namespace zbddc
