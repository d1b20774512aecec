// The subcommands of `zbddc`. Each returns the process exit code: 0 success, 1 bad input or a
// failed run (after printing one `file:line: message` line), 2 usage error.
#pragma once

#include "compiler/frontends/load_model.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace zbddc::driver {

// How network files become ZBDDs; shared by every command that reads a model.
struct ModelOptions {
    bool strict = false;
    std::string mlfOrder = "minfill";
    uint64_t zbddNodeLimit = uint64_t{1} << 26;

    void addTo(CLI::App &command);
    // Reads or compiles the model, printing any warnings as `file:line: warning: ...`.
    Result<ZddModel> load(const std::string &path) const;
    Result<Circuit> loadCircuit(const std::string &path) const;
};

struct CompileOptions {
    std::string input;
    std::string output;
    ModelOptions model;
};

struct RunOptions {
    std::string model;
    std::string task = "pr";
    std::string evidence;     // VAR=state list or a .evid file
    std::string inputs;       // file of free-input values
    std::string device = "auto";
    std::string numeric = "auto";
    bool json = false;
    ModelOptions modelOptions;
};

struct StatsOptions {
    std::string model;
    bool json = false;
    ModelOptions modelOptions;
};

int compileCommand(const CompileOptions &options);
int runCommand(const RunOptions &options);
int statsCommand(const StatsOptions &options);

} // namespace zbddc::driver
