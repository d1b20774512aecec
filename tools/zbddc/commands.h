// The subcommands of `zbddc`. Each returns the process exit code: 0 success, 1 bad input or a
// failed run (after printing one `file:line: message` line), 2 usage error.
#pragma once

#include "backends/tensor/cuda/host_device_split.h"
#include "compiler/frontends/bn/bayes_net.h"
#include "compiler/junction_tree/junction_tree_stats.h"
#include "pipeline/load_model.h"
#include "tools/zbddc/order_flags.h"

#include "runtime/tasks.h"

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace zbddc::cli {

// How network files become ZBDDs; shared by every command that reads a model.
struct ModelOptions {
    bool strict = false;
    std::string mlfOrder = "frontier";
    uint64_t zbddNodeLimit = uint64_t{1} << 26;

    void addTo(CLI::App &command);
    // Reads or compiles the model, printing any warnings as `file:line: warning: ...`.
    Result<ZddModel> load(const std::string &path) const;
    Result<Circuit> loadCircuit(const std::string &path) const;
};

// The bucket-elimination route's own flags (.wcsp, MARKOV .uai), registered by
// addCostNetwork*Options (cmd_run_cost_network.h) on the command whose options hold them.
struct CostNetworkCompileOptions {
    bool elimination = false; // --elimination: a BAYES .uai into a problem.so, not its MLF
    OrderFlags order;
};

struct CostNetworkRunOptions {
    OrderFlags order;
    bool incompleteTables = false;
    uint64_t splitThreshold = kDefaultSplitThresholdEntries; // --device split
    std::string devices; // --devices all|N|a,b,... (GPUs of bucket elimination; "" one GPU)
};

// `--route lbp` and its flags (cmd_run_loopy.cpp); unset values (0, negative, "") take the
// runtime's defaults and tell a flag given from one left out.
struct LoopyRunOptions {
    uint32_t iterations = 0;
    double tolerance = -1;
    double damping = -1;
    std::string schedule;
    std::string program; // messages (the dedicated loops) or tensor (a lowered TensorProgram)
    bool approximate = false; // route auto may fall back to LBP where no exact route fits
    bool anyGiven() const {
        return iterations || tolerance >= 0 || damping >= 0 || !schedule.empty() ||
               !program.empty();
    }
};

struct CompileOptions {
    std::string input;
    std::string output;
    ModelOptions model;
    int optLevel = 0;               // -O0..-O3 for the CPU backend (0: linear-time fast path)
    std::string emit;               // "", "c", "ll" (CPU backend), "cu" or "ptx" (CUDA backend)
    std::string numeric = "float64"; // float64 or log (compiled-in numeric mode of a .so)
    std::string semiring;           // compiled-in semiring of a .so; "" = the model's own
    std::string symbolPrefix;       // --symbol-prefix: exports also as PREFIX_... (a .so only)
    std::string route;              // networks into a .so: mlf, jt or auto (""; the default)
    uint32_t batch = 0;             // --route jt: cases per run compiled in (0: by table size)
    CostNetworkCompileOptions costNetwork;
};

struct RunOptions {
    std::string model;
    std::string task; // "": the route's own (pr for circuits, mpe for cost networks)
    std::string evidence;     // VAR=state list or a .evid file
    std::string evidenceFormat; // --evidence-format single|batch; "": by the file's structure
    std::string output;         // -o FILE: results into FILE instead of stdout
    bool uaiOutput = false;     // --uai-output: results into `<model file name>.<TASK>`
    std::string inputs;       // file of free-input values
    std::string device = "auto";  // auto, cpu (LLVM JIT), cuda or reference
    std::string route = "auto";   // networks: mlf, jt or auto (cmd_run_junction_tree.cpp)
    double searchMs = 1000;       // the junction tree's order search bound
    std::string numeric = "auto";
    int optLevel = 0;             // the JIT's -O level
    bool cpuLoop = false;         // --device cpu: the data-driven loop instead of JIT code
    bool cpuJit = false;          // --device cpu: JIT code whatever the size (-O implies it)
    std::optional<uint32_t> hostLevelOps; // GPU: narrow end levels on the JIT (DeviceOptions)
    bool json = false;
    ModelOptions modelOptions;
    CostNetworkRunOptions costNetwork;
    LoopyRunOptions loopy;
};

struct StatsOptions {
    std::string model;
    bool json = false;
    int scheduleLevel = 2;      // --schedule-level (compiler/passes/pipeline.h)
    std::string passes;         // --passes=a,b,c overrides the -O list
    bool noFuse = false;
    bool timePasses = false;
    std::string plot;           // --plot FILE.svg (compiler/passes/stats_plot.h)
    ModelOptions modelOptions;
    OrderFlags eliminationOrder; // --order / --heuristic: .wcsp, MARKOV .uai, and --route jt
    std::string route;           // --route jt: the junction tree's sizes; "" the model's own route
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
int sampleCommand(const SampleOptions &options); // cmd_sample.cpp

// CPU backend outputs: a model.so, or --emit=c / --emit=ll (cmd_compile_cpu.cpp).
int compileCpuOutput(const CompileOptions &options, const zbddc::Circuit &circuit);
// CUDA backend outputs: --emit=cu / --emit=ptx (cmd_compile_cuda.cpp).
int compileCudaOutput(const CompileOptions &options, const zbddc::Circuit &circuit);
int runCommand(const RunOptions &options);
// Shared by the run routes (cmd_run.cpp): the cases of --evidence (none: one empty case), and
// the batch printed (UAI text or JSON); returns the exit code.
// A batch .evid prints in the 2010 layout (`batchLayout`), anything else as one case (output.h).
Result<EvidenceFile> evidenceCases(const RunOptions &options, const std::vector<Variable> &variables);
int printTaskResults(const RunOptions &options, Task task,
                     const std::vector<Result<TaskResult>> &results,
                     const std::vector<Variable> &variables, bool batchLayout);
// A network's route (cmd_run_junction_tree.cpp): runs the junction tree and returns its exit
// code, or returns nothing (and why) where the MLF route is to run.
std::optional<int> runNetworkByRoute(const RunOptions &options, std::string &mlfWhy);
// Which route answers `cases` cases of a network: `route` (mlf, jt) as asked, or for auto the
// estimated work of each (cmd_run_junction_tree.cpp).
struct RouteChoice {
    bool junctionTree = false;
    std::string why;
};
// `--device auto` with one case runs on the CPU on every route: a command line on the GPU pays
// for its CUDA context and module loads (110-200 ms for one MLF case on the H100, against 5-100
// ms on its host's CPU; BENCHMARKS.md "The auto route, per device"). Batches go to the GPU.
inline bool singleCaseRunsOnCpu(size_t cases) { return cases <= 1; }

// `onGpu`: where the chosen route will run (the routes' costs per case differ by device).
RouteChoice chooseNetworkRoute(const std::string &route, uint64_t zbddNodeLimit,
                               const zbddc::BayesNet &net, const zbddc::JunctionTreeStats &jt,
                               size_t cases, bool onGpu);
// `zbddc NET -o net.so` (cmd_compile_network.cpp): writes the junction tree's network.so and
// returns the exit code, or returns nothing (and says so) where the MLF route is to compile.
std::optional<int> compileNetworkByRoute(const CompileOptions &options);
// `zbddc run net.so` on a network .so of either route (cmd_run_network_library.cpp).
int runNetworkLibraryCommand(const RunOptions &options);
bool isNetworkFile(const std::string &path); // .bif, .xml, .xmlbif, .net, BAYES .uai
// `zbddc run MODEL --route lbp` (cmd_run_loopy.cpp), on any model file; `why` says how the
// route was chosen.
int runLoopyCommand(const RunOptions &options, const std::string &why);
// What --approximate weighs an exact route's tables against (cmd_run_loopy.cpp).
double physicalMemoryBytes();
// Registers --iterations, --tolerance, --damping, --schedule and --approximate.
void addLoopyRunOptions(CLI::App &run, LoopyRunOptions &options);
// `zbddc stats MODEL --route lbp`: the factor graph and the GPU design (cmd_stats_loopy.cpp).
int statsLoopyCommand(const StatsOptions &options);
int statsCommand(const StatsOptions &options);
// `zbddc stats NET --route jt` (cmd_stats_junction_tree.cpp).
int statsJunctionTreeCommand(const StatsOptions &options);

// The command line parsed and the command run (main.cpp); exit_guard.cpp's main() calls it.
int parseAndRun(int argc, char **argv);

} // namespace zbddc::cli
