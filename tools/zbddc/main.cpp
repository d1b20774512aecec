// zbddc: compile arithmetic circuits (ZBDD-compressed MLFs, elimination schedules) and run them.
#include "support/gpu_settings.h"
#include "support/progress.h"
#include "tools/zbddc/cli_checks.h"
#include "tools/zbddc/commands.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>

using namespace zbddc::cli;

int zbddc::cli::parseAndRun(int argc, char **argv) {
    zbddc::gpuSettings = zbddc::gpuSettingsFromVariables(std::getenv); // ZBDDC_NCCL, ZBDDC_CACHE_DIR
    CLI::App app{"zbddc " ZBDDC_VERSION " - a compiler for arithmetic circuits\n\n"
                 "  zbddc INPUT -o OUTPUT\n  zbddc run MODEL [options]\n  zbddc stats MODEL [--json] [--plot FILE.svg]"};
    app.set_version_flag("--version", "zbddc " ZBDDC_VERSION);

    CompileOptions compile;
    app.add_option("input", compile.input, "Model to compile (.zdd, .bif, .xmlbif, .net, .uai; .wcsp into a problem.so)");
    app.add_option("-o,--output", compile.output,
                   "Output file (.so compiled model, .zdd, or .txt for a circuit dump)");
    app.add_option("-O", compile.optLevel, "CPU optimisation level 0..3 (0: linear-time fast path)")
        ->check(CLI::Range(0, 3));
    app.add_option("--emit", compile.emit,
                   "Write a stage of the route instead: zbdd, circuit, schedule (the MLF's), c, ll "
                   "(CPU), cu or ptx (CUDA); c of a cost network: its problem.so's C")
        ->check(CLI::IsMember({"zbdd", "circuit", "schedule", "c", "ll", "cu", "ptx"}));
    app.add_option("--semiring", compile.semiring,
                   "Semiring compiled into a .so: sum-product (PR, MAR) or max-product (MPE); "
                   "default the model's own")
        ->check(CLI::IsMember({"sum-product", "max-product", "max-sum", "min-sum"}));
    app.add_option("--numeric", compile.numeric, "Numeric mode of a compiled model: float64 or log")
        ->check(CLI::IsMember({"float64", "log"}));
    app.add_option("--symbol-prefix", compile.symbolPrefix,
                   "Export every function of the .so also as NAME_... (NAME_eval for zbdd_eval), "
                   "so that several models link into one program")
        ->check(cIdentifier());
    app.add_option("--route", compile.route,
                   "A network into a .so: mlf (its circuit, a model.so), jt (its junction tree, a "
                   "network.so), be (bucket elimination, a problem.so) or auto (default: the "
                   "route `zbddc run` takes for one case)")
        ->check(CLI::IsMember({"mlf", "jt", "be", "auto"}));
    app.add_option("--batch", compile.batch,
                   "(--route jt) cases per run compiled into the network.so (default: as many as "
                   "64 MiB of tables hold, at most 64)")
        ->check(CLI::Range(1u, 1u << 16));
    compile.model.addTo(app);
    addCostNetworkCompileOptions(app, compile.costNetwork);

    RunOptions run;
    CLI::App *runCmd = app.add_subcommand("run", "Answer a query on a model");
    runCmd->add_option("model", run.model, "Model file (.zdd, .bif, .xmlbif, .net, .uai, .wcsp, model.so, problem.so)")->required();
    runCmd->add_option("--task", run.task,
                       "eval, pr, mar or mpe (default pr; mpe for .wcsp and MARKOV problems)")
        ->check(CLI::IsMember({"eval", "pr", "mar", "mpe"}));
    runCmd->add_option("--evidence", run.evidence, "A UAI .evid file, or VAR=state[,VAR=state...]");
    runCmd->add_option("--evidence-format", run.evidenceFormat,
                       "single or batch: how to read an .evid file its line structure cannot "
                       "decide (default: by structure)")
        ->check(CLI::IsMember({"single", "batch"}));
    auto *runOutput =
        runCmd->add_option("-o,--output", run.output, "Write the results to FILE (atomically)");
    runCmd->add_flag("--uai-output", run.uaiOutput,
                     "Write the results to <model file name>.<TASK> in the working directory, as "
                     "the UAI competitions' tools name them")
        ->excludes(runOutput);
    runCmd->add_option("--inputs", run.inputs, "File of values for the free inputs");
    runCmd->add_option("--weight-cases", run.modelOptions.weightCases,
                       "A .nnf's or .sdd's batch of literal weightings, one result per case "
                       "(docs/formats/circuits.md)");
    runCmd->add_option("--device", run.device,
                       "auto (cuda if a GPU is usable, else cpu), cpu (LLVM JIT), cuda or reference; "
                       "split (.wcsp: small buckets on the CPU, large on the GPU)")
        ->check(CLI::IsMember({"auto", "cpu", "cuda", "reference", "split"}));
    runCmd->add_option("-O", run.optLevel, "JIT optimisation level 0..3 for --device cpu")
        ->check(CLI::Range(0, 3));
    auto *cpuLoop = runCmd->add_flag(
        "--cpu-loop", run.cpuLoop,
        "--device cpu: evaluate with the data-driven batched loop (no code generation); by "
        "default the CPU takes it unless the circuit is under 10^4 ops and the batch 10^4 cases "
        "or more");
    runCmd->add_flag("--cpu-jit", run.cpuJit,
                     "--device cpu: evaluate with LLVM-JIT straight-line code whatever the size")
        ->excludes(cpuLoop);
    runCmd->add_option("--host-level-ops", run.hostLevelOps,
                       "on the GPU, PR and MAR run the circuit's leading and trailing levels of "
                       "at most N ops on the host's LLVM JIT, in float64 (default 0: every level "
                       "on the GPU)");
    runCmd->add_option("--numeric", run.numeric,
                       "auto, float64 or log; float32 or log32 (pr and mar on the GPU, each answer "
                       "with its error bound, float64 or log where the bound exceeds 1e-2)")
        ->check(CLI::IsMember({"auto", "float64", "log", "float32", "log32"}));
    runCmd->add_option("--route", run.route,
                       "networks: mlf (the compiled MLF), jt (junction tree) or auto (the cheaper "
                       "by an estimate of both, timed on a few cases where the estimates are "
                       "close; default); cost networks: be (bucket elimination, "
                       "their default); any model: lbp (loopy belief propagation, approximate)")
        ->check(CLI::IsMember({"auto", "mlf", "jt", "be", "lbp"}));
    runCmd->add_option("--search-ms", run.searchMs,
                       "(--route jt) stop starting randomised orders after this many milliseconds")
        ->check(finiteNumber(0, HUGE_VAL, false, true, "0", "inf"));
    runCmd->add_flag("--json", run.json, "Print one JSON object (see docs/cli.md)");
    runCmd->add_flag("--estimate-only", run.estimateOnly,
                     "(--route auto) choose the route by its estimate alone: no pilot timing of "
                     "both routes and no remembered choice (reproducible runs)");
    run.modelOptions.addTo(*runCmd);
    addCostNetworkRunOptions(*runCmd, run.costNetwork);
    addLoopyRunOptions(*runCmd, run.loopy);

    StatsOptions stats;
    CLI::App *statsCmd = app.add_subcommand("stats", "Print a model's size and shape");
    statsCmd->add_option("model", stats.model, "Model file (.zdd, a network, .wcsp, MARKOV .uai)")->required();
    statsCmd->add_flag("--json", stats.json, "Print one JSON object");
    statsCmd->add_option("--schedule-level", stats.scheduleLevel,
                         "Which pass list builds the schedule, 0..3 (default 2)")
        ->check(CLI::Range(0, 3));
    statsCmd->add_option("--passes", stats.passes, "Comma-separated pass list instead of the level's");
    statsCmd->add_flag("--no-fuse", stats.noFuse, "Leave out the op-merging passes");
    statsCmd->add_flag("--time-passes", stats.timePasses, "Print each pass's time and memory to stderr");
    statsCmd->add_option("--plot", stats.plot, "Also draw the level profiles and parents histogram (FILE.svg)");
    stats.modelOptions.addTo(*statsCmd);
    stats.eliminationOrder.addTo(*statsCmd, "(.wcsp, MARKOV .uai, --route jt)");
    statsCmd->add_option("--route", stats.route,
                         "jt: the junction tree's sizes (cliques, separators, levels) instead of "
                         "the model's own route; lbp: the factor graph and the GPU design")
        ->check(CLI::IsMember({"jt", "lbp"}));
    statsCmd
        ->add_option("--search-ms", stats.searchMs,
                     "(--route jt --heuristic search) stop starting randomised orders after "
                     "this many milliseconds")
        ->check(finiteNumber(0, HUGE_VAL, false, true, "0", "inf"));

    SampleOptions sample;
    CLI::App *sampleCmd =
        app.add_subcommand("sample", "Write sampled evidence cases (UAI batch .evid): forward-"
                                     "sampled from a network, Gibbs-sampled from another model");
    sampleCmd
        ->add_option("model", sample.network,
                     "A Bayesian network, Markov network (MARKOV .uai) or cost network (.wcsp)")
        ->required();
    sampleCmd->add_option("--cases", sample.cases, "Number of cases (default 2000)")
        ->check(wholeNumber(true));
    sampleCmd
        ->add_option("--observed", sample.observed,
                     "Share of the variables observed in each case (default 0.2)")
        ->check(finiteNumber(0, 1, false, false, "0", "1"));
    sampleCmd->add_option("--seed", sample.seed, "Random seed (default 1)");
    sampleCmd->add_option("-o", sample.output, "Output .evid file (default: standard output)");

    // --quiet / --progress, accepted before or after the subcommand.
    bool quiet = false, progress = false;
    for (CLI::App *command : {&app, runCmd, statsCmd, sampleCmd}) {
        command->add_flag("--quiet", quiet, "No progress lines on stderr");
        command->add_flag("--progress", progress,
                          "Progress lines on stderr for long work even when stderr is not a "
                          "terminal (default: on a terminal, after 2 s)");
    }

    app.require_subcommand(0, 1);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        std::cerr << "zbddc: " << e.what() << " (see zbddc --help)\n";
        return 2;
    }

    if (quiet && progress) {
        std::cerr << "zbddc: --quiet and --progress exclude each other (see zbddc --help)\n";
        return 2;
    }
    const bool float32 = run.numeric == "float32" || run.numeric == "log32";
    if (*runCmd && float32 && (run.task == "mpe" || run.task == "eval")) {
        std::cerr << "zbddc: --numeric " << run.numeric << " answers pr and mar only, not --task "
                  << run.task << " (see zbddc --help)\n";
        return 2;
    }
    progressMode = quiet ? ProgressMode::Off : progress ? ProgressMode::On : ProgressMode::Auto;
    if (*runCmd) {
        run.given = givenFlags(*runCmd);
        return runCommand(run);
    }
    if (*statsCmd)
        return statsCommand(stats);
    if (*sampleCmd)
        return sampleCommand(sample);
    if (compile.input.empty() || compile.output.empty()) {
        std::cerr << "zbddc: expected INPUT -o OUTPUT, or a subcommand (see zbddc --help)\n";
        return 2;
    }
    compile.given = givenFlags(app);
    return compileCommand(compile);
}
