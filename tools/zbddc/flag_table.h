// Which flags each model kind takes on each route: one table per command, as data. A flag given
// where it does not apply is a usage error naming it (exit 2), never silently ignored.
#pragma once

#include "pipeline/model_file.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc::cli {

// A model kind on one route: the columns of the table.
enum Column : uint16_t {
    NetworkMlf = 1 << 0,
    NetworkJt = 1 << 1,
    NetworkBe = 1 << 2,
    NetworkLbp = 1 << 3,
    ZddMlf = 1 << 4,
    CostBe = 1 << 5,
    CostLbp = 1 << 6,
    ModelSo = 1 << 7,
    NetworkSo = 1 << 8,
    ProblemSo = 1 << 9,
    CostJt = 1 << 10,     // a UAI MARKOV network's factor model (pr, mar; mpe when asked)
    CircuitMlf = 1 << 11, // a d-DNNF (.nnf) or SDD (.sdd)
};
inline constexpr uint16_t kAllColumns = (1 << 12) - 1;
struct ColumnName {
    Column column;
    pipeline::ModelKind kind;
    const char *route;
};
std::span<const ColumnName> columnNames(); // every column, its kind and its route

// A flag, or a flag with one value ("--device split"), and the columns that take it.
struct FlagRule {
    std::string_view flag;
    uint16_t columns;
};
std::span<const FlagRule> runFlagRules();
std::span<const FlagRule> compileFlagRules();

// The columns of the routes a command may end in (pipeline::possibleRoutes); `compile`: those that
// write a library. Empty where none is left.
uint16_t candidateColumns(pipeline::ModelKind kind, std::span<const std::string> routes,
                          bool compile);

// The first of `given` (flags as "--name" and, for valued rules, "--name value") that no
// candidate column takes, with the words of the usage error; nothing where all apply.
std::optional<std::string> refusedFlag(std::span<const std::string> given,
                                       std::span<const FlagRule> rules, uint16_t candidates,
                                       pipeline::ModelKind kind, const std::string &route);

// Prints `zbddc: message` and returns 2, the exit code of a usage error.
int usageError(const std::string &message);
// The library's error with what the command line's flags can do about it.
Diagnostic withFlagHints(Diagnostic d);

} // namespace zbddc::cli
