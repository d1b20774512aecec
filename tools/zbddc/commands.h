// The subcommands of `zbddc`. Each returns the process exit code: 0 success, 1 bad input or a
// failed run (after printing one `file:line: message` line), 2 usage error. They parse flags
// into the pipeline's structs (pipeline/pipeline.h) and print what comes back; every route,
// order and device decision is the pipeline's.
#pragma once

#include "backends/tensor/devices/host_device_split.h"
#include "pipeline/pipeline.h"
#include "runtime/tasks.h"

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace zbddc::cli {

// How model files are read (--strict, --mlf-order, --zbdd-node-limit).
struct ModelOptions : pipeline::ReadingOptions {
    void addTo(CLI::App &command);
};

// --order FILE and --heuristic NAME; `scope` starts their help, e.g. "(.wcsp)".
struct OrderFlags : pipeline::OrderOptions {
    void addTo(CLI::App &app, const std::string &scope);
};

struct CostNetworkCompileOptions {
    bool elimination = false; // --elimination: a BAYES .uai into a problem.so, not its MLF
    OrderFlags order;
};

struct CostNetworkRunOptions {
    OrderFlags order;
    bool incompleteTables = false;
    uint64_t splitThreshold = kDefaultSplitThresholdEntries; // --device split
    std::string devices; // --devices all|N|a,b,... ("" one GPU)
    bool distributed = false; // --distributed: DPOP over MPI ranks (cmd_run_distributed.cpp)
    std::string agentsFile;   // --agents FILE: the agent of each variable
    double phaseTimeout = 60; // --phase-timeout S: a rank's longest wait without a message
};

// `--route lbp` and its flags; unset values (0, negative, "") take the runtime's defaults.
struct LoopyRunOptions : pipeline::LoopyFlags {
    bool approximate = false; // route auto may fall back to LBP where no exact route fits
};

struct CompileOptions {
    std::string input;
    std::string output;
    ModelOptions model;
    int optLevel = 0;                // -O0..-O3 for the CPU backend
    std::string emit;                // "", a stage of the route (zbdd, circuit, c, ll, cu, ptx)
    std::string numeric = "float64"; // float64 or log (compiled-in numeric mode of a .so)
    std::string semiring;            // compiled-in semiring of a .so; "" = the model's own
    std::string symbolPrefix;        // --symbol-prefix: exports also as PREFIX_... (a .so only)
    std::string route;               // mlf, jt, be or auto (""; the default)
    uint32_t batch = 0;              // --route jt: cases per run compiled in (0: by table size)
    CostNetworkCompileOptions costNetwork;
    std::vector<std::string> given; // the flags given, as the flag table names them
};

struct RunOptions {
    std::string model;
    std::string task;           // "": the route's own (pr for circuits, mpe for cost networks)
    std::string evidence;       // VAR=state list or a .evid file
    std::string evidenceFormat; // --evidence-format single|batch; "": by the file's structure
    std::string output;         // -o FILE: results into FILE instead of stdout
    bool uaiOutput = false;     // --uai-output: results into `<model file name>.<TASK>`
    std::string inputs;         // file of free-input values
    std::string device = "auto"; // auto, cpu, cuda, reference or split
    std::string route = "auto";  // mlf, jt, be, lbp or auto
    double searchMs = 1000;      // the junction tree's order search bound
    std::string numeric = "auto";
    int optLevel = 0;            // the JIT's -O level
    bool cpuLoop = false;        // the data-driven loop instead of JIT code
    bool cpuJit = false;         // JIT code whatever the size (-O implies it)
    std::optional<uint32_t> hostLevelOps; // GPU: narrow end levels on the JIT
    bool json = false;
    bool estimateOnly = false;   // --estimate-only: auto by the estimate alone, no pilot, no cache
    ModelOptions modelOptions;
    CostNetworkRunOptions costNetwork;
    LoopyRunOptions loopy;
    std::vector<std::string> given; // the flags given, as the flag table names them
};

struct StatsOptions {
    std::string model;
    bool json = false;
    int scheduleLevel = 2;      // --schedule-level (compiler/passes/pipeline.h)
    std::string passes;         // --passes=a,b,c overrides the -O list
    bool noFuse = false;
    bool timePasses = false;
    std::string plot;           // --plot FILE.svg (stats_plot.h)
    ModelOptions modelOptions;
    OrderFlags eliminationOrder; // --order / --heuristic: .wcsp, MARKOV .uai, and --route jt
    std::string route;           // --route jt|lbp; "" the model's own route
    double searchMs = 1000;      // --search-ms: time bound of --heuristic search
};

struct SampleOptions {
    std::string network;
    size_t cases = 2000;
    double observed = 0.2; // Fast-BNI's workload: 20% of the variables observed
    uint64_t seed = 1;
    std::string output; // "": standard output
};

int compileCommand(const CompileOptions &options);
int runCommand(const RunOptions &options);
// `zbddc run PROBLEM --distributed` under mpirun: DPOP over the ranks (cmd_run_distributed.cpp).
int runDistributedCommand(const RunOptions &options);
// A cost network's optimum printed (cmd_run.cpp); `moreJson`: further members of its JSON object.
int printSolution(const RunOptions &options, const TaskResult &result,
                  const std::vector<Variable> &variables, const std::string &moreJson);
int sampleCommand(const SampleOptions &options);
int statsCommand(const StatsOptions &options);
// --route jt|lbp, or a cost network's bucket elimination (cmd_stats_route.cpp).
int statsRouteCommand(const StatsOptions &options);

// Flags of the routes' own, registered on a command (flags.cpp).
void addCostNetworkCompileOptions(CLI::App &app, CostNetworkCompileOptions &options);
void addCostNetworkRunOptions(CLI::App &run, CostNetworkRunOptions &options);
void addLoopyRunOptions(CLI::App &run, LoopyRunOptions &options);
// The flags given on `command`, as the flag table names them ("--device" and "--device split").
std::vector<std::string> givenFlags(const CLI::App &command);

// The command line parsed and the command run (main.cpp); exit_guard.cpp's main() calls it.
int parseAndRun(int argc, char **argv);

} // namespace zbddc::cli
