// Every malformed .zdd ends with one line `file:line: what is wrong` on stderr, exit code 1, and
// no output file left behind.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <algorithm>

using namespace zbddc::testing;

namespace {
struct Malformed {
    const char *name;
    std::string text;
    const char *expected; // the whole stderr line after "<file>:"
};

const std::string kHead = "zdd 1\nvariable A 2 a0 a1\ninputs 2\n0 indicator A a0\n1 parameter 0.5\n";

std::vector<Malformed> cases() {
    return {
        {"empty", "", "1: empty file, expected 'zdd 1'"},
        {"truncated", kHead + "nodes 2\n2 1 0 1\n", "7: unexpected end of file: expected 2 nodes lines, found 1"},
        {"garbage", std::string("zdd 1\n\0\x01\xff", 9), "2: binary data where text was expected"},
        {"wrong-count", kHead + "nodes 1\n2 1 0 1\n3 0 2 1\nroots 1\n3\n", "8: expected 'roots', found '3'"},
        {"duplicate-id", kHead + "nodes 2\n2 1 0 1\n2 0 0 1\n", "8: duplicate node id 2"},
        {"out-of-range-id", kHead + "nodes 1\n4294967295 1 0 1\n", "7: node id 4294967295 is out of range (at most 4294967294)"},
        {"missing-node", kHead + "nodes 1\n2 1 0 5\n", "7: hi child 5 is not a node defined above (children come first; cycles are impossible)"},
        {"cycle", kHead + "nodes 2\n2 1 0 3\n3 0 0 2\n", "7: hi child 3 is not a node defined above (children come first; cycles are impossible)"},
        {"unknown-variable", "zdd 1\ninputs 1\n0 indicator Fog yes\n", "3: unknown variable 'Fog'"},
        {"non-numeric", "zdd 1\ninputs 1\n0 parameter abc\n", "3: expected parameter value, found 'abc'"},
        {"out-of-range-number", kHead + "nodes 1\n2 7 0 1\n", "7: variable 7 is out of range (there are 2 inputs)"},
        {"negative-parameter", "zdd 1\ninputs 1\n0 parameter -1\n", "3: parameter value must be a finite non-negative number"},
        {"infinite-parameter", "zdd 1\ninputs 1\n0 parameter 1e999\n", "3: expected parameter value, found '1e999'"},
    };
}
} // namespace

TEST_CASE("malformed .zdd inputs: one line, exit 1, no output file", "[cli][malformed]") {
    for (const Malformed &m : cases()) {
        SECTION(m.name) {
            const std::string in = writeScratch(std::string(m.name) + ".zdd", m.text);
            const std::string out = scratchDir() + "/" + m.name + ".out.zdd";
            for (const std::string &args : {in + " -o " + out, "run " + in, "stats " + in}) {
                INFO(args);
                auto r = runZbddc(args);
                CHECK(r.exitCode == 1);
                CHECK(r.err == in + ":" + m.expected + "\n");
                CHECK_FALSE(exists(out));
            }
        }
    }
}

TEST_CASE("a missing input file is a clear error", "[cli][malformed]") {
    auto r = runZbddc("run /nonexistent.zdd");
    CHECK(r.exitCode == 1);
    CHECK(r.err == "/nonexistent.zdd: cannot read file: No such file or directory\n");
}

TEST_CASE("an unwritable output leaves nothing behind", "[cli][malformed]") {
    const std::string example = std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd";
    auto r = runZbddc(example + " -o /nonexistent-dir/model.zdd");
    CHECK(r.exitCode == 1);
    CHECK(r.err == "/nonexistent-dir/model.zdd: cannot write file: No such file or directory\n");
}

TEST_CASE("results lost on a full disk fail the run with the OS's reason", "[cli][malformed][hostile]") {
    const std::string example = std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd";
    const std::string err = scratchDir() + "/full-stderr";
    const int status = std::system((std::string(ZBDDC_EXE) + " run " + example +
                                    " --task pr >/dev/full 2>'" + err + "'")
                                       .c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(slurp(err) ==
          "zbddc: cannot write the results to standard output: No space left on device\n");
}

TEST_CASE("running out of memory is one line and exit 1, not an abort", "[cli][malformed][hostile]") {
    // Under a 1 GB address space. A 100,000-variable chain used to end in std::bad_alloc (the
    // elimination order kept an n x n matrix): its order is linear in memory now and it answers.
    const std::string path = scratchDir() + "/long-chain.wcsp";
    {
        std::ofstream f(path);
        const int n = 100000;
        f << "chain " << n << " 2 " << n - 1 << " 1000\n";
        for (int v = 0; v < n; ++v)
            f << (v ? " 2" : "2");
        f << "\n";
        for (int v = 0; v + 1 < n; ++v)
            f << "2 " << v << " " << v + 1 << " 0 1\n0 0 1\n";
    }
    const std::string err = scratchDir() + "/oom-stderr";
    auto runLimited = [&](const std::string &model) {
        return std::system(("ulimit -v 1000000; " + std::string(ZBDDC_EXE) + " run " + model +
                            " --task mpe --device cpu >/dev/null 2>'" + err + "'")
                               .c_str());
    };
    int status = runLimited(path);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    // 28 binary variables, every pair constrained: bucket elimination needs 2^27-entry tables
    // (1 GB each), which the limit refuses.
    const std::string dense = scratchDir() + "/dense.wcsp";
    {
        std::ofstream f(dense);
        const int n = 28;
        f << "dense " << n << " 2 " << n * (n - 1) / 2 << " 1000\n";
        for (int v = 0; v < n; ++v)
            f << (v ? " 2" : "2");
        f << "\n";
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                f << "2 " << a << " " << b << " 0 1\n1 1 1\n";
    }
    status = runLimited(dense);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    const std::string message = slurp(err);
    CHECK(std::count(message.begin(), message.end(), '\n') == 1);
    CHECK(message.find("out of") != std::string::npos);
    CHECK(message.find("memory") != std::string::npos);
}
