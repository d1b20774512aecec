// The routes' own flags, registered on the commands that take them (main.cpp registers the rest),
// and the list of flags given, which the flag table (flag_table.h) checks.
#include "tools/zbddc/cli_checks.h"
#include "tools/zbddc/commands.h"
#include "tools/zbddc/flag_table.h"
#include "tools/zbddc/output.h"

#include <CLI/CLI.hpp>

#include <cmath>

namespace zbddc::cli {

void ModelOptions::addTo(CLI::App &command) {
    command.add_flag("--strict", strict, "Network rows that do not sum to 1 are errors, not warnings");
    command.add_option("--mlf-order", mlfOrder, "ZBDD variable order for networks: frontier, paper or minfill")
        ->check(CLI::IsMember({"frontier", "paper", "minfill"}));
    command.add_option("--zbdd-node-limit", zbddNodeLimit, "Largest ZBDD (nodes) a network may compile into")
        ->check(wholeNumber(true));
    command.add_option("--weights", weights,
                       "Literal weights of a .nnf or .sdd (docs/formats/circuits.md; default 1)");
}

void OrderFlags::addTo(CLI::App &app, const std::string &scope) {
    const std::vector<std::string> &names = pipeline::orderHeuristicNames();
    app.add_option("--order", orderFile,
                   scope + " elimination order file: variable indices, first eliminated first");
    app.add_option("--heuristic", heuristic,
                   scope + " elimination order heuristic: " + choiceList(names) +
                       " (search: junction trees)")
        ->check(CLI::IsMember(names));
}

void addCostNetworkCompileOptions(CLI::App &app, CostNetworkCompileOptions &f) {
    app.add_flag("--elimination", f.elimination,
                 "Compile a BAYES .uai by bucket elimination (MPE) into a problem.so instead of "
                 "its MLF (.wcsp and MARKOV .uai always take this route; --route be)");
    f.order.addTo(app, "(problem.so, --route jt)");
}

void addCostNetworkRunOptions(CLI::App &run, CostNetworkRunOptions &f) {
    f.order.addTo(run, "(.wcsp, MARKOV .uai, --route jt)");
    run.add_flag("--incomplete-tables", f.incompleteTables,
                 "(.wcsp) keep only rows below the upper bound in every table "
                 "(Bistaffa et al. 2017 §IV)");
    run.add_option("--split-threshold", f.splitThreshold,
                   "(.wcsp, --device split) buckets of at least this many entries (output rows x "
                   "eliminated values) run on the GPU, smaller ones on the CPU")
        ->check(wholeNumber(false));
    run.add_option("--devices", f.devices,
                   "the GPUs to use: all, a count, or ordinals such as 0,2 (0,0: two logical "
                   "devices on GPU 0). Bucket elimination (.wcsp, MARKOV .uai) spreads independent "
                   "buckets over them and slices large ones across them; the junction-tree route "
                   "and the MLF split their cases evenly over them");
    run.add_flag("--distributed", f.distributed,
                 "(.wcsp, MARKOV .uai; under mpirun) DPOP: agents on MPI ranks send UTIL tables up "
                 "a pseudo-tree and VALUE messages down (docs/distributed.md)");
    run.add_option("--agents", f.agentsFile,
                   "(--distributed) the agent of each variable, in variable order; default one "
                   "agent per variable");
    run.add_option("--phase-timeout", f.phaseTimeout,
                   "(--distributed) seconds a rank waits without any message before it ends the "
                   "run with an error")
        ->check(finiteNumber(0, HUGE_VAL, true, true, "0", "inf"));
}

void addLoopyRunOptions(CLI::App &run, LoopyRunOptions &f) {
    run.add_option("--iterations", f.iterations,
                   "(--route lbp) most flooding sweeps or residual rounds (default 1000)")
        ->check(wholeNumber(true));
    run.add_option("--tolerance", f.tolerance,
                   "(--route lbp) converged when every message is within this of its update "
                   "(default 1e-6)")
        ->check(finiteNumber(0, HUGE_VAL, true, true, "0", "inf"));
    run.add_option("--damping", f.damping,
                   "(--route lbp) share of the old message kept, in [0, 1) (default 0)")
        ->check(finiteNumber(0, 1, false, true, "0", "1"));
    run.add_option("--update-order", f.updateOrder,
                   "(--route lbp) the order messages are updated in: flooding (default) or "
                   "residual")
        ->check(CLI::IsMember({"flooding", "residual"}));
    // Its older name, refused: `Schedule` is the circuit's scheduling IR (ir/schedule.h).
    run.add_option("--schedule", f.updateOrder, "--update-order's older name, refused")
        ->check(renamedTo("--update-order"));
    run.add_flag("--approximate", f.approximate,
                 "(--route auto) answer by loopy BP where no exact route fits in memory");
}

std::vector<std::string> givenFlags(const CLI::App &command) {
    std::vector<std::string> given;
    for (const CLI::Option *option : command.get_options()) {
        if (option->count() == 0 || option->get_positional())
            continue;
        const std::string name = option->get_name();
        given.push_back(name);
        if ((name == "--device" || name == "--heuristic") && !option->results().empty())
            given.push_back(name + " " + option->results().back());
    }
    return given;
}

} // namespace zbddc::cli
