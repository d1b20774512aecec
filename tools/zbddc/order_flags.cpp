#include "tools/zbddc/order_flags.h"

#include <CLI/CLI.hpp>

namespace zbddc {

void OrderFlags::addTo(CLI::App &app, const std::string &scope) {
    app.add_option("--order", orderFile,
                   scope + " elimination order file: variable indices, first eliminated first");
    app.add_option("--heuristic", heuristic,
                   scope + " elimination order heuristic: min-fill, min-degree or "
                           "weighted-min-fill")
        ->check(CLI::IsMember({"min-fill", "min-degree", "weighted-min-fill"}));
}

} // namespace zbddc
