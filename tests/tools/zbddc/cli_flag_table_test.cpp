// The flag table walked whole: every flag of `run` and of the compile command, on every model
// kind and route, through the built zbddc. Where the table says a flag does not apply the run is
// a usage error (exit 2) naming the flag; where it applies, no usage error names it.
#include "tools/zbddc/flag_table.h"

#include "runtime/shared_objects/shared_object_check.h"

#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <map>
#include <string>

using namespace zbddc;
using namespace zbddc::cli;
using namespace zbddc::testing;

namespace {

const std::string kSeeds = ZBDDC_SOURCE_DIR "/tests/fuzz/seeds/";

// A model of each kind: a BAYES .uai (every network route reads it), a .zdd, a MARKOV .uai (every
// cost-network route reads it, the junction tree included), a d-DNNF, and the three libraries
// compiled from them once.
std::map<pipeline::ModelKind, std::string> models() {
    using K = pipeline::ModelKind;
    static std::map<K, std::string> paths;
    if (!paths.empty())
        return paths;
    const std::string dir = scratchDir();
    paths[K::Network] = kSeeds + "tiny.uai";
    paths[K::Zdd] = ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd";
    paths[K::CostNetwork] = kSeeds + "markov.uai";
    paths[K::Circuit] = kSeeds + "tiny_c2d.nnf";
    paths[K::ModelLibrary] = dir + "/flags-model.so";
    paths[K::NetworkLibrary] = dir + "/flags-network.so";
    paths[K::ProblemLibrary] = dir + "/flags-problem.so";
    REQUIRE(runZbddc("'" + paths[K::Zdd] + "' -o '" + paths[K::ModelLibrary] + "'").exitCode == 0);
    REQUIRE(runZbddc("'" + paths[K::Network] + "' -o '" + paths[K::NetworkLibrary] + "' --route jt")
                .exitCode == 0);
    REQUIRE(runZbddc("'" + paths[K::CostNetwork] + "' -o '" + paths[K::ProblemLibrary] + "'")
                .exitCode == 0);
    return paths;
}

// What follows each flag on the command line: a value every model accepts where one exists.
std::string argumentsOf(const std::string &rule, bool compile) {
    const std::string dir = scratchDir();
    static const std::map<std::string, std::string> values = {
        {"--task", "--task mpe"},
        {"--evidence", "--evidence '" + writeScratch("flags-none.evid", "0\n") + "'"},
        {"--evidence-format",
         "--evidence-format single --evidence '" + writeScratch("flags-none.evid", "0\n") + "'"},
        {"--uai-output", "--uai-output"},
        {"--device", "--device cpu"},
        {"--inputs", "--inputs '" + writeScratch("flags-inputs.txt", "") + "'"},
        {"-O", "-O 1"},
        {"--host-level-ops", "--host-level-ops 4"},
        {"--mlf-order", "--mlf-order paper"},
        {"--zbdd-node-limit", "--zbdd-node-limit 1000000"},
        {"--search-ms", "--search-ms 5"},
        {"--order", "--order '" + writeScratch("flags.order", "0\n") + "'"},
        {"--heuristic", "--heuristic min-fill"},
        {"--split-threshold", "--split-threshold 10"},
        {"--devices", "--devices 1"},
        {"--iterations", "--iterations 5"},
        {"--tolerance", "--tolerance 0.001"},
        {"--damping", "--damping 0.1"},
        {"--update-order", "--update-order flooding"},
        {"--emit", "--emit c"},
        {"--semiring", "--semiring max-product"},
        {"--symbol-prefix", "--symbol-prefix flags"},
        {"--batch", "--batch 2"},
        {"--weights", "--weights '" + kSeeds + "tiny.weights'"},
        {"--weight-cases", "--weight-cases '" + kSeeds + "tiny_header.wcases'"},
        {"--agents", "--agents '" + writeScratch("flags.agents", "0 0 0\n") + "'"},
        {"--phase-timeout", "--phase-timeout 5"},
    };
    if (rule == "--output")
        return compile ? "" : "-o '" + dir + "/flags.out'";
    if (rule == "--numeric")
        return compile ? "--numeric log" : "--numeric float64";
    auto it = values.find(rule);
    return it != values.end() ? it->second : rule; // a plain flag, or a flag with its value
}

void walk(std::span<const FlagRule> rules, bool compile) {
    const auto paths = models();
    for (const FlagRule &rule : rules) {
        if (rule.flag == "--route" || rule.flag == "--approximate")
            continue; // every line names its route; --approximate is for route auto (below)
        for (const ColumnName &column : columnNames()) {
            const bool library = column.column & (ModelSo | NetworkSo | ProblemSo);
            // A MARKOV network's junction tree answers runs; it compiles into no library.
            if (compile && (library || std::string_view(column.route) == "lbp" ||
                            column.column == CostJt))
                continue;
            const std::string model = paths.at(column.kind);
            const std::string out = scratchDir() + "/flags-out" + (compile ? ".so" : "");
            const std::string args =
                (compile ? "'" + model + "' -o '" + out + "'" : "run '" + model + "'") +
                " --route " + column.route + " " + argumentsOf(std::string(rule.flag), compile);
            const auto r = runProgram("cd '" + scratchDir() + "' && " ZBDDC_EXE " " + args);
            const bool applies = rule.columns & column.column;
            INFO("zbddc " << args << "\nexit " << r.exitCode << ": " << r.err);
            const std::string flag(rule.flag.substr(0, rule.flag.find(' ')));
            if (applies) {
                CHECK(r.err.find("does not apply") == std::string::npos);
            } else {
                CHECK(r.exitCode == 2);
                CHECK(r.err.find(flag) != std::string::npos);
                CHECK(r.err.find("does not apply") != std::string::npos);
            }
        }
    }
}

} // namespace

TEST_CASE("every flag of run, on every model kind and route, as the flag table says",
          "[cli][flags]") {
    walk(runFlagRules(), false);
    // --approximate lets route auto fall back to lbp; a route named takes no fallback.
    const std::string wcsp = kSeeds + "tiny.wcsp";
    CHECK(runZbddc("run '" + wcsp + "' --approximate").exitCode == 0);
    CHECK(runZbddc("run '" + wcsp + "' --route be --approximate").exitCode == 2);
    // A flag's value on its own: --evidence-format reads an --evidence file.
    CHECK(runZbddc("run '" + wcsp + "' --evidence-format single").exitCode == 2);
    // Route auto on a MARKOV network asked PR or MAR takes its junction tree, whose order search
    // these flags steer; asked MPE it takes bucket elimination, which searches no order.
    const std::string markov = kSeeds + "markov.uai";
    for (const char *task : {"pr", "mar"})
        for (const char *flag :
             {"--search-ms 5", "--heuristic search", "--heuristic search --search-ms 5"}) {
            const auto r = runZbddc("run '" + markov + "' --json --task " + task + " " + flag);
            INFO(task << " " << flag << ": " << r.err);
            CHECK(r.exitCode == 0);
            CHECK(r.out.find("\"route\":\"jt\"") != std::string::npos);
        }
    for (const char *flag : {"--search-ms 5", "--heuristic search"}) {
        const auto r = runZbddc("run '" + markov + "' --task mpe " + flag);
        CHECK(r.exitCode == 2);
        CHECK(r.err.find("does not apply") != std::string::npos);
    }
}

TEST_CASE("every flag of the compile command, on every model kind and route, as the flag table "
          "says",
          "[cli][flags]") {
    walk(compileFlagRules(), true);
    // A network compiled by bucket elimination is a problem.so (its CPTs as costs), never its
    // network.so.
    const std::string so = scratchDir() + "/flags-bif.so";
    const auto bif = runZbddc("'" + kSeeds + "tiny.bif' -o '" + so + "' --elimination");
    CHECK(bif.exitCode == 0);
    CHECK(sharedObjectKind(so) == "problem.so");
}
