// The hostile-input suite (hostile_inputs_test.cpp) for evidence and .zdd files once answered
// silently wrong, numbers on the command line (NaN once ran, range errors printed 300 digits), and
// messages that once echoed binary bytes, named the wrong problem or exited 0 on no answer.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"
#include "tests/tools/zbddc/hostile_check.h"

#include <string>

using namespace zbddc::testing;

namespace {

// examples/wetgrass.zdd with the indicator of Rain = no naming Rain = yes a second time.
std::string wetGrassRepeatingAnIndicator() {
    std::string zdd = slurp(std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd");
    const std::string line = "1 indicator Rain no";
    REQUIRE(zdd.find(line) != std::string::npos);
    return zdd.replace(zdd.find(line), line.size(), "1 indicator Rain yes");
}

const std::string kXmlHead =
    "<?xml version=\"1.0\"?>\n<BIF VERSION=\"0.3\"><NETWORK><NAME>n</NAME>\n";
const std::string kXmlTail = "<DEFINITION><FOR>A</FOR><TABLE>0.3 0.7</TABLE></DEFINITION>\n"
                             "</NETWORK></BIF>\n";

} // namespace

TEST_CASE("evidence and models that were once answered silently wrong", "[cli][hostile]") {
    const std::vector<Hostile> cases = {
        {"batch-missing-lines",
         {{"n.bif", kTwoVariables}, {"e.evid", "3\n1 0 0\n1 1 1\n"}},
         "run n.bif --evidence e.evid",
         1,
         {"e.evid:3: the file declares 3 evidence cases but holds 2"}},
        {"batch-one-too-many",
         {{"n.bif", kTwoVariables}, {"e.evid", "3\n1 0 0\n1 1 1\n0\n0\n"}},
         "run n.bif --evidence e.evid",
         1,
         {"e.evid:5: unexpected data after 3 evidence cases"}},
        {"one-case-over-lines", // still read as the one case it is
         {{"n.bif", kTwoVariables}, {"e.evid", "1\n0 0\n"}},
         "run n.bif --route mlf --evidence e.evid",
         0,
         {},
         "PR\n-0.52287874528"},
        {"zdd-indicator-twice",
         {{"w.zdd", wetGrassRepeatingAnIndicator()}},
         "run w.zdd --task mar",
         1,
         {"w.zdd:9: input 1 repeats input 0: the indicator of Rain = yes"}},
        {"markov-all-zero",
         {{"m.uai", "MARKOV\n2\n2 2\n1\n2 0 1\n4\n0 0 0 0\n"}},
         "run m.uai --task mpe",
         1,
         {"m.uai: no assignment costs less than the upper bound (in a MARKOV network: every one "
          "has "
          "probability 0), so there is no MPE"}},
    };
    for (const Hostile &h : cases)
        check(h);
}

TEST_CASE("numbers on the command line: NaN refused, ranges said plainly, usage exits 2",
          "[cli][hostile]") {
    const std::vector<Hostile> cases = {
        {"tolerance-nan",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route lbp --tolerance nan",
         2,
         {"zbddc: --tolerance: expects a number in (0, inf), got 'nan'"}},
        {"damping-nan",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route lbp --damping nan",
         2,
         {"zbddc: --damping: expects a number in [0, 1), got 'nan'"}},
        {"damping-one",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route lbp --damping 1",
         2,
         {"zbddc: --damping: expects a number in [0, 1), got '1'"}},
        {"observed-nan",
         {{"n.bif", kTwoVariables}},
         "sample n.bif --observed nan",
         2,
         {"zbddc: --observed: expects a number in [0, 1], got 'nan'"}},
        {"iterations-zero",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route lbp --iterations 0",
         2,
         {"zbddc: --iterations: expects a positive whole number, got '0'"}},
        {"search-ms-nan",
         {{"n.bif", kTwoVariables}},
         "run n.bif --route jt --search-ms nan",
         2,
         {"zbddc: --search-ms: expects a number in [0, inf), got 'nan'"}},
        {"symbol-prefix-digit",
         {{"n.bif", kTwoVariables}},
         "n.bif -o n.so --symbol-prefix 1abc",
         2,
         {"zbddc: --symbol-prefix: expects a C identifier, got '1abc'"}},
        {"mpe-float32",
         {{"n.bif", kTwoVariables}},
         "run n.bif --task mpe --numeric float32",
         2,
         {"zbddc: --numeric float32 answers pr and mar only, not --task mpe"}},
        {"inputs-nan",
         {{"one.zdd", "zdd 1\ninputs 0\nnodes 0\nroots 1\n1\n"}, {"x.txt", "nan\n"}},
         "run one.zdd --device cpu --task eval --inputs x.txt",
         1,
         {"x.txt:1: expected input value, found 'nan'"}},
    };
    for (const Hostile &h : cases)
        check(h);
}

TEST_CASE("messages escape binary bytes and name the real problem", "[cli][hostile]") {
    const std::vector<Hostile> cases = {
        {"control-byte",
         {{"c.uai", std::string("\x03") + "BAYES\n1\n2\n"}},
         "run c.uai",
         1,
         {"c.uai:1: binary data where text was expected"}},
        {"byte-order-mark",
         {{"n.bif", "\xEF\xBB\xBF" + kTwoVariables}},
         "run n.bif --route mlf --evidence A=a",
         0,
         {},
         "PR\n-0.52287874528"},
        {"bif-zero-states",
         {{"z.bif", "network n { }\nvariable A { type discrete [ 0 ] { }; }\n"}},
         "run z.bif",
         1,
         {"z.bif:2: variable 'A' declares 0 states (a variable needs at least one)"}},
        {"hugin-escaped-quote",
         {{"q.net", "net { }\nnode A { states = (\"a\\\"0\" \"b\"); }\n"
                    "potential ( A ) { data = ( 0.3 0.7 ); }\n"}},
         "run q.net --route mlf --evidence 'A=a\"0'",
         0,
         {},
         "PR\n-0.52287874528"},
        {"wcsp-evidence-list",
         {{"t.wcsp", "t 1 2 1 5\n2\n1 0 0 1\n1 3\n"}},
         "run t.wcsp --evidence 0=1", // a cost network's variables are named by index
         0,
         {"cost 3"}},
        {"stats-of-so",
         {{"x.so", "not really"}},
         "stats x.so",
         1,
         {"x.so: not a shared object (no ELF header)"}},
        {"xmlbif-empty-outcome",
         {{"e.xml", kXmlHead +
                        "<VARIABLE TYPE=\"nature\"><NAME>A</NAME><OUTCOME>a</OUTCOME>"
                        "<OUTCOME></OUTCOME></VARIABLE>\n" +
                        kXmlTail}},
         "run e.xml",
         1,
         {"e.xml:3: empty <OUTCOME>: a state needs a name"}},
        {"xmlbif-cdata",
         {{"d.xml", kXmlHead +
                        "<VARIABLE TYPE=\"nature\"><NAME><![CDATA[A]]></NAME><OUTCOME>a"
                        "</OUTCOME><OUTCOME><![CDATA[b<c]]></OUTCOME></VARIABLE>\n" +
                        kXmlTail}},
         "run d.xml --route mlf --evidence 'A=b<c'",
         0,
         {},
         "PR\n-0.15490195998"},
    };
    for (const Hostile &h : cases)
        check(h);
}

TEST_CASE("a garbage file's token is cut short in the message", "[cli][hostile]") {
    const std::string bif = writeScratch("garbage.bif", std::string(4000, '\xba'));
    const Outcome r = runZbddc("run '" + bif + "'");
    CHECK(r.exitCode == 1);
    CHECK(r.err.find("(4000 bytes)") != std::string::npos);
    CHECK(r.err.size() < 300);
}
