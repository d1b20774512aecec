#include "tools/zbddc/order_flags.h"

#include <CLI/CLI.hpp>

namespace zbddc {

void OrderFlags::addTo(CLI::App &app, const std::string &scope,
                       const std::vector<std::string> &extra) {
    std::vector<std::string> names = {"min-fill", "min-degree", "weighted-min-fill", "min-weight"};
    names.insert(names.end(), extra.begin(), extra.end());
    std::string list;
    for (size_t i = 0; i < names.size(); ++i)
        list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    app.add_option("--order", orderFile,
                   scope + " elimination order file: variable indices, first eliminated first");
    app.add_option("--heuristic", heuristic, scope + " elimination order heuristic: " + list)
        ->check(CLI::IsMember(names));
}

} // namespace zbddc
