// Flags that do not apply, values that cannot be, and messages that name what to do: each case is
// a usage error (exit 2) or a failed run (exit 1) with one line naming the flag or the file.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <algorithm>
#include <string>

using namespace zbddc::testing;

namespace {

// `variables` independent binary variables whose prior rows sum to 0.9 (a warning each).
std::string badRows(int variables) {
    std::string bif = "network bad { }\n";
    for (int v = 0; v < variables; ++v)
        bif += "variable V" + std::to_string(v) + " { type discrete [ 2 ] { a, b }; }\n";
    for (int v = 0; v < variables; ++v)
        bif += "probability ( V" + std::to_string(v) + " ) { table 0.5, 0.4; }\n";
    return writeScratch("bad_rows.bif", bif);
}

size_t lines(const std::string &text) { return std::count(text.begin(), text.end(), '\n'); }

const std::string kExample = ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd";
const std::string kWcsp = ZBDDC_SOURCE_DIR "/tests/fuzz/seeds/tiny.wcsp";

} // namespace

TEST_CASE("flags that do not apply are usage errors naming them", "[cli][usage][hostile]") {
    const std::string net = writeScratch("usage.bif", "network n { }\n"
                                                      "variable A { type discrete [ 2 ] { a, b }; }\n"
                                                      "probability ( A ) { table 0.3, 0.7; }\n");
    struct Case {
        std::string args, flag;
    };
    const Case cases[] = {
        {"run '" + net + "' --route mlf --heuristic min-fill", "--heuristic"},
        {"run '" + kExample + "' --order '" + net + "'", "--order"},
        {"run '" + net + "' --incomplete-tables", "--incomplete-tables"},
        {"run '" + net + "' --split-threshold 10", "--split-threshold"},
        {"run '" + net + "' --split-threshold -5", "--split-threshold"},
        {"run '" + net + "' --zbdd-node-limit -1", "--zbdd-node-limit"},
        {"run '" + net + "' --zbdd-node-limit 0", "--zbdd-node-limit"},
        {"'" + net + "' -o '" + scratchDir() + "/u.zdd' --semiring max-product", "--semiring"},
        {"'" + net + "' -o '" + scratchDir() + "/u.so' --route mlf --heuristic min-fill",
         "--heuristic"},
        {"stats '" + kWcsp + "' --plot '" + scratchDir() + "/u.svg'", "--plot"},
        {"stats '" + net + "' --route jt --no-fuse", "--no-fuse"},
    };
    for (const Case &c : cases) {
        INFO(c.args);
        const auto r = runZbddc(c.args);
        CHECK(r.exitCode == 2);
        CHECK(lines(r.err) == 1);
        CHECK(r.err.find(c.flag) != std::string::npos);
        CHECK(r.out.empty());
    }
    CHECK_FALSE(exists(scratchDir() + "/u.zdd"));
    CHECK_FALSE(exists(scratchDir() + "/u.so"));
    CHECK_FALSE(exists(scratchDir() + "/u.svg"));
}

TEST_CASE("messages say what to do", "[cli][usage][hostile]") {
    const std::string net = writeScratch("usage2.bif", "network n { }\n"
                                                       "variable A { type discrete [ 2 ] { a, b }; }\n"
                                                       "probability ( A ) { table 0.3, 0.7; }\n");
    // A word without '=' that is no file: not "cannot read file".
    const auto evidence = runZbddc("run '" + net + "' --evidence asia");
    CHECK(evidence.exitCode == 1);
    CHECK(evidence.err ==
          "zbddc: --evidence 'asia': no such file (evidence is a UAI .evid file, or a list "
          "VAR=state[,VAR=state...])\n");
    // The node limit names its flag and the route that needs none.
    const auto limit = runZbddc("run '" + badRows(12) + "' --route mlf --zbdd-node-limit 3");
    CHECK(limit.exitCode == 1);
    CHECK(limit.err.find("--zbdd-node-limit N raises the limit") != std::string::npos);
    CHECK(limit.err.find("--route jt") != std::string::npos);
    // 30 bad rows: 10 warning lines and a count, not 30 lines.
    const auto warned = runZbddc("run '" + badRows(30) + "' --route mlf");
    CHECK(warned.exitCode == 0);
    size_t warnings = 0;
    for (size_t at = 0; (at = warned.err.find(": warning: ", at)) != std::string::npos; ++at)
        ++warnings;
    CHECK(warnings == 10);
    CHECK(warned.err.find("zbddc: 20 more warnings not shown") != std::string::npos);
}

TEST_CASE("--progress shows long work's steps anywhere, --quiet nowhere", "[cli][usage][hostile]") {
    const std::string net = badRows(30);
    const auto shown = runZbddc("run '" + net + "' --route mlf --progress");
    CHECK(shown.exitCode == 0);
    CHECK(shown.err.find("zbddc: multiplying CPTs into the MLF: ") != std::string::npos);
    const auto quiet = runZbddc("run '" + net + "' --route mlf --quiet");
    CHECK(quiet.exitCode == 0);
    CHECK(quiet.err.find("multiplying CPTs") == std::string::npos);
    // Without either, stderr that is not a terminal (as here) gets none.
    CHECK(runZbddc("run '" + net + "' --route mlf").err.find("multiplying") == std::string::npos);
    CHECK(runZbddc("--quiet run '" + net + "' --progress").exitCode == 2);
}
