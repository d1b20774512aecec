// The subcommands of `zbddc`. Each returns the process exit code: 0 success, 1 bad input or a
// failed run (after printing one `file:line: message` line), 2 usage error.
#pragma once

#include <string>
#include <vector>

namespace zbddc::driver {

struct CompileOptions {
    std::string input;
    std::string output;
};

struct RunOptions {
    std::string model;
    std::string task = "pr";
    std::string evidence;     // VAR=state list or a .evid file
    std::string inputs;       // file of free-input values
    std::string device = "auto";
    std::string numeric = "auto";
    bool json = false;
};

struct StatsOptions {
    std::string model;
    bool json = false;
};

int compileCommand(const CompileOptions &options);
int runCommand(const RunOptions &options);
int statsCommand(const StatsOptions &options);

} // namespace zbddc::driver
