// The hostile-input suite: inputs that once crashed zbddc, were answered silently wrong, left files
// behind or got an unhelpful message, run through the binary as a user would. Each case runs in a
// folder of its own with TMPDIR inside it and checks the exit status, stderr line by line, and that
// nothing was left behind: the folder then holds exactly its inputs and the outputs it expects, and
// TMPDIR is empty.
//
// Cases that need more machinery live beside this file with the same tag: truncated and foreign
// .so files (truncated_so_test.cpp), signals mid-write (signal_cleanup_test.cpp,
// cleanup_on_signal_test.cpp), a full stdout and running out of memory (malformed_test.cpp),
// flags that do not apply (cli_usage_errors_test.cpp). `test_cli "[hostile]"` runs all of them.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"
#include "tests/tools/zbddc/hostile_check.h"

#include <algorithm>
#include <filesystem>
#include <set>

using namespace zbddc::testing;
namespace fs = std::filesystem;

namespace {

std::string manyParents(int parents) {
    std::string bif = "network n { }\n";
    for (int i = 0; i <= parents; ++i)
        bif += "variable P" + std::to_string(i) + " { type discrete [ 2 ] { a, b }; }\n";
    for (int i = 0; i < parents; ++i)
        bif += "probability ( P" + std::to_string(i) + " ) { table 0.5, 0.5; }\n";
    bif += "probability ( P" + std::to_string(parents) + " | P0";
    for (int i = 1; i < parents; ++i)
        bif += ", P" + std::to_string(i);
    return bif + " ) { default 0.5, 0.5; }\n";
}

std::string chainWcsp(int n) {
    std::string w = "chain " + std::to_string(n) + " 2 " + std::to_string(n - 1) + " 1000\n";
    for (int i = 0; i < n; ++i)
        w += i ? " 2" : "2";
    w += "\n";
    for (int i = 0; i + 1 < n; ++i)
        w += "2 " + std::to_string(i) + " " + std::to_string(i + 1) + " 0 1\n1 1 1\n";
    return w;
}

} // namespace

TEST_CASE("inputs that once crashed zbddc end in one line", "[cli][hostile]") {
    const std::vector<Hostile> cases = {
        {"forty-parents",
         {{"p.bif", manyParents(40)}},
         "run p.bif --task pr",
         1,
         {"p.bif:83: the CPT of 'P40' (40 parents) has 2^41 entries, more than the 2^32"}},
        {"sixty-four-parents",
         {{"p.bif", manyParents(64)}},
         "run p.bif --task pr",
         1,
         {"p.bif:131: the CPT of 'P64' (64 parents) has 2^65 entries"}}, // wrapped to 0 rows once
        {"chain-200k-stats",
         {{"c.wcsp", chainWcsp(200000)}},
         "stats c.wcsp",
         0,
         {},
         "variables: 2e+05"},
        {"wide-incomplete",
         {{"w.wcsp", "wide 2 100000 1 1\n100000 100000\n2 0 1 0 1\n0 0 1\n"}},
         "run w.wcsp --incomplete-tables",
         1,
         {"w.wcsp: incomplete tables: input table 0 has 9999999999 feasible rows"}},
        {"sapporo-2e9-levels",
         {{"s.zdd", "_i 2000000000\n_o 1\n_n 1\n4 1 F T\n4\n"}},
         "run s.zdd",
         1,
         {"s.zdd:1: _i 2000000000: at most 16777216 levels"}},
        {"dev-zero", {}, "run /dev/zero", 1, {"/dev/zero: unknown model type"}},
        {"dev-urandom", {}, "stats /dev/urandom", 1, {"/dev/urandom: unknown model type"}},
        // libFuzzer's reproducer: a BAYES header with a variable count the file cannot hold.
        {"uai-huge-count",
         {{"r.uai", std::string("\x03"
                                "BAYES\x0b  2\n206103314\n4 0\n")}},
         "run r.uai",
         1,
         {"r.uai:1: "}},
    };
    for (const Hostile &h : cases)
        check(h);
}

TEST_CASE("inputs that were once answered silently wrong", "[cli][hostile]") {
    const std::string conflictNote =
        "zbddc: note: variable 'A' is observed as 'a' and 'b', so P(e) = 0";
    const std::vector<Hostile> cases = {
        // Evidence is a set: a repeat is accepted, two states make P(e) = 0 (the last one won).
        {"evidence-repeat",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route mlf --evidence A=a,A=a",
         0,
         {},
         "-0.52287874528"},
        {"evidence-conflict",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route mlf --evidence A=a,A=b",
         0,
         {conflictNote},
         "PR\n-1.7976931348623157e+308"},
        {"evidence-conflict-jt",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route jt --evidence A=a,A=b",
         0,
         {conflictNote, "zbddc: note: route jt"},
         "PR\n-1.7976931348623157e+308"},
        {"evidence-conflict-mar",
         {{"n.bif", kTwoVariables}, {"e.evid", "2\n1 0 0\n2 0 0 0 1\n"}},
         "run n.bif --route mlf --task mar --evidence e.evid",
         1,
         {"zbddc: note: case 1: variable 'A' is observed as 'a' and 'b', so P(e) = 0",
          "zbddc: case 1: n.bif: MAR is undefined: the evidence has probability 0"},
         "MAR\n2\n2 2 1 0 2 0.1"},
        {"evidence-conflict-wcsp",
         {{"m.uai", "MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 2 3 4\n"}, {"e.evid", "2 0 0 0 1\n"}},
         "run m.uai --task mpe --evidence e.evid",
         1,
         {"e.evid: the evidence contradicts itself: variable 'X0' is observed as '0' and '1'"}},
        {"xmlbif-given-twice",
         {{"g.xml",
           "<?xml version=\"1.0\"?>\n<BIF VERSION=\"0.3\"><NETWORK><NAME>n</NAME>\n"
           "<VARIABLE "
           "TYPE=\"nature\"><NAME>A</NAME><OUTCOME>a</OUTCOME><OUTCOME>b</OUTCOME></VARIABLE>\n"
           "<VARIABLE "
           "TYPE=\"nature\"><NAME>B</NAME><OUTCOME>a</OUTCOME><OUTCOME>b</OUTCOME></VARIABLE>\n"
           "<DEFINITION><FOR>A</FOR><TABLE>0.3 0.7</TABLE></DEFINITION>\n"
           "<DEFINITION><FOR>B</FOR><GIVEN>A</GIVEN><GIVEN>A</GIVEN>"
           "<TABLE>0.1 0.9 0.5 0.5 0.1 0.9 0.5 0.5</TABLE></DEFINITION>\n</NETWORK></BIF>\n"}},
         "run g.xml",
         1,
         {"g.xml:6: parent 'A' of 'B' listed twice"}},
        {"hugin-parent-twice",
         {{"d.net",
           "net { }\nnode A { states = (\"a\" \"b\"); }\nnode C { states = (\"a\" \"b\"); }\n"
           "potential ( A ) { data = ( 0.3 0.7 ); }\n"
           "potential ( C | A A ) { data = ((( 0.1 0.9 ) ( 0.5 0.5 )) (( 0.1 0.9 ) ( 0.5 0.5 ))); "
           "}\n"}},
         "run d.net",
         1,
         {"d.net:5: parent 'A' of 'C' listed twice"}},
        {"unterminated-comment",
         {{"c.bif", "network n { }\n/* open\nvariable A { type discrete [ 2 ] { a, b }; }\n"
                    "probability ( A ) { table 0.3, 0.7; }\n"}},
         "run c.bif",
         1,
         {"c.bif:2: unterminated /* comment"}},
        {"empty-network",
         {{"e.bif", "network n { }\n"}},
         "run e.bif",
         1,
         {"e.bif:1: no variables: the network is empty"}},
        {"empty-file",
         {{"e.bif", ""}},
         "run e.bif",
         1,
         {"e.bif:1: no variables: the network is empty"}},
        {"terminal-root",
         {{"one.zdd", "zdd 1\ninputs 0\nnodes 0\nroots 1\n1\n"}},
         "run one.zdd --device cpu --task eval",
         0,
         {},
         "EVAL\n1 1"},
    };
    for (const Hostile &h : cases)
        check(h);
}

TEST_CASE("names with blanks and '#' survive a .zdd round trip", "[cli][hostile]") {
    const Hostile h{"names",
                    {{"n.net", "net { }\nnode A { states = (\"a b\" \"c#d\"); }\n"
                               "potential ( A ) { data = ( 0.3 0.7 ); }\n"}},
                    "n.net -o n.zdd && " + std::string(ZBDDC_EXE) +
                        " run n.zdd --task mar --evidence 'A=c#d'",
                    0,
                    {},
                    "MAR\n1 2 0 1",
                    {"n.zdd"}};
    check(h);
}

TEST_CASE("messages say what is wrong and where", "[cli][hostile]") {
    const std::vector<Hostile> cases = {
        {"unterminated-string",
         {{"u.net", "net { }\nnode A { states = (\"a\" \"b); }\n"}},
         "run u.net",
         1,
         {"u.net:2: unterminated string"}},
        {"evidence-word",
         {{"n.bif", kTwoVariables}},
         "run n.bif --evidence A",
         1,
         {"zbddc: --evidence 'A': no such file (evidence is a UAI .evid file, or a list"}},
        {"directory", {}, "run tmp", 1, {"tmp: is a directory, not a file"}},
        {"wcsp-default-task",
         {{"t.wcsp", "t 1 2 1 5\n2\n1 0 0 1\n1 3\n"}},
         "run t.wcsp",
         0,
         {"cost 0"},
         "MPE\n1 0"},
    };
    for (const Hostile &h : cases)
        check(h);
}
