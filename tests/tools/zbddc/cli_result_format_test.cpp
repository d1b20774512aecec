// `zbddc run` output as the UAI scorers read it, parsed by tests/support/uai_result_reader.h
// (written to the specifications, not to our printer): one case in the 2014+ layout, a batch in
// the 2010 layout, zero probabilities readable by `>>`, impossible cases keeping their line, pure
// MPE blocks for cost networks, and results written to files with -o and --uai-output.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"
#include "tests/support/uai_result_reader.h"

#include <cmath>
#include <limits>

using namespace zbddc::testing;

namespace {

// A: P(a0) = 0.3. B | A: a0 -> (0.9, 0.1), a1 -> (0, 1), so B = b0 with A = a1 is impossible.
// C | B: b0 -> (0.2, 0.3, 0.5), b1 -> (0.6, 0.4, 0).
const char *kNetwork = R"(network n { }
variable A { type discrete [ 2 ] { a0, a1 }; }
variable B { type discrete [ 2 ] { b0, b1 }; }
variable C { type discrete [ 3 ] { c0, c1, c2 }; }
probability ( A ) { table 0.3, 0.7; }
probability ( B | A ) { (a0) 0.9, 0.1; (a1) 0.0, 1.0; }
probability ( C | B ) { (b0) 0.2, 0.3, 0.5; (b1) 0.6, 0.4, 0.0; }
)";

std::string network() { return writeScratch("format.bif", kNetwork); }

// By hand: P(B = b1) = 0.3 * 0.1 + 0.7 = 0.73; P(A = a1, B = b0) = 0.
constexpr double kPrB1 = 0.73;

} // namespace

TEST_CASE("run: one case prints the 2014+ layout, a batch the 2010 layout", "[cli][format]") {
    const std::string net = network();
    for (const char *route : {"mlf", "jt"}) {
        INFO(route);
        const std::string flags = std::string(" --route ") + route + " --device cpu";
        const auto one = runZbddc("run '" + net + "' --task pr --evidence B=b1" + flags);
        REQUIRE(one.exitCode == 0);
        const auto single = readUai2014(one.out, "PR");
        REQUIRE(single.has_value());
        CHECK(single->log10 == Approx(std::log10(kPrB1)).epsilon(1e-12));
        CHECK_FALSE(readUai2010(one.out, "PR").has_value()); // no count line

        // Cases: B = b1; A = a1 and B = b0 (impossible); nothing observed.
        const std::string evid = writeScratch("three.evid", "3\n1 1 1\n2 0 1 1 0\n0\n");
        const auto pr = runZbddc("run '" + net + "' --task pr --evidence '" + evid + "'" + flags);
        REQUIRE(pr.exitCode == 0);
        const auto cases = readUai2010(pr.out, "PR");
        REQUIRE(cases.has_value());
        REQUIRE(cases->size() == 3);
        CHECK((*cases)[0].log10 == Approx(std::log10(kPrB1)).epsilon(1e-12));
        CHECK((*cases)[1].log10 == std::numeric_limits<double>::lowest()); // P(e) = 0, readable
        CHECK(std::abs((*cases)[2].log10) < 1e-12);

        const auto mar = runZbddc("run '" + net + "' --task mar --evidence '" + evid + "'" + flags);
        CHECK(mar.exitCode == 1); // the impossible case fails alone
        CHECK(mar.err.find("case 1: ") != std::string::npos);
        const auto marginals = readUai2010(mar.out, "MAR");
        REQUIRE(marginals.has_value());
        REQUIRE(marginals->size() == 3);
        CHECK((*marginals)[1].marginals.empty());
        REQUIRE((*marginals)[0].marginals.size() == 3);
        // P(A | B = b1) = (0.03, 0.7) / 0.73; C | b1 is its CPT row.
        CHECK((*marginals)[0].marginals[0][0] == Approx(0.03 / kPrB1).epsilon(1e-12));
        CHECK((*marginals)[0].marginals[2][1] == Approx(0.4).epsilon(1e-12));
        REQUIRE((*marginals)[2].marginals.size() == 3);
        CHECK((*marginals)[2].marginals[1][0] == Approx(0.27).epsilon(1e-12)); // P(b0)

        const auto mpe = runZbddc("run '" + net + "' --task mpe --evidence '" + evid + "'" + flags);
        CHECK(mpe.exitCode == 1);
        const auto states = readUai2010(mpe.out, "MPE");
        REQUIRE(states.has_value());
        REQUIRE(states->size() == 3);
        CHECK((*states)[0].states == std::vector<long>{1, 1, 0}); // a1 b1 c0: 0.7 * 0.6
        CHECK((*states)[1].states.empty());
        CHECK((*states)[2].states == std::vector<long>{1, 1, 0});
    }
}

TEST_CASE("run: zero probability and impossible single cases", "[cli][format]") {
    const std::string net = network();
    const auto pr = runZbddc("run '" + net + "' --task pr --evidence A=a1,B=b0 --device cpu");
    REQUIRE(pr.exitCode == 0);
    const auto single = readUai2014(pr.out, "PR");
    REQUIRE(single.has_value());
    CHECK(single->log10 == std::numeric_limits<double>::lowest());
    const auto json = runZbddc("run '" + net + "' --task pr --evidence A=a1,B=b0 --json");
    REQUIRE(json.exitCode == 0);
    CHECK(json.out.find("\"log10\":null,\"zero_probability\":true") != std::string::npos);
    CHECK(json.out.find("\"value\":0,") != std::string::npos);
    // A single impossible MPE case prints no half-answered block.
    const auto mpe = runZbddc("run '" + net + "' --task mpe --evidence A=a1,B=b0 --device cpu");
    CHECK(mpe.exitCode == 1);
    CHECK(mpe.out.empty());
    CHECK(mpe.err.find("probability 0") != std::string::npos);
}

TEST_CASE("run: a batch file of one case still prints the 2010 layout", "[cli][format]") {
    const std::string net = network();
    const std::string evid = writeScratch("one.evid", "1\n1 1 1\n");
    const auto r = runZbddc("run '" + net + "' --task pr --evidence '" + evid + "'");
    REQUIRE(r.exitCode == 0);
    const auto cases = readUai2010(r.out, "PR");
    REQUIRE(cases.has_value());
    REQUIRE(cases->size() == 1);
    CHECK((*cases)[0].log10 == Approx(std::log10(kPrB1)).epsilon(1e-12));
}

TEST_CASE("run --evidence-format reads what the structure cannot decide", "[cli][format]") {
    const std::string net = network();
    // A batch of two cases (B = b0; nothing), or one case spread over lines observing the pairs
    // (1, 1) and (0, 0): B = b1 and A = a0.
    const std::string evid = writeScratch("ambiguous.evid", "2\n1 1 0\n0\n");
    const auto detected = runZbddc("run '" + net + "' --task pr --evidence '" + evid + "'");
    REQUIRE(detected.exitCode == 0);
    CHECK(readUai2010(detected.out, "PR").has_value());
    const auto single = runZbddc("run '" + net + "' --task pr --evidence-format single --evidence '" +
                                 evid + "'");
    REQUIRE(single.exitCode == 0);
    const auto answer = readUai2014(single.out, "PR");
    REQUIRE(answer.has_value());
    CHECK(answer->log10 == Approx(std::log10(0.3 * 0.1)).epsilon(1e-12));
    const auto batch = runZbddc("run '" + net + "' --evidence-format batch --evidence '" +
                                writeScratch("line.evid", "1 1 1\n") + "'");
    CHECK(batch.exitCode == 1);
    CHECK(batch.err.find("line.evid:1: a batch starts with the number of cases") !=
          std::string::npos);
    CHECK(runZbddc("run '" + net + "' --evidence-format 2010").exitCode == 2);
}

TEST_CASE("run -o and --uai-output write the results to files", "[cli][format]") {
    const std::string net = network();
    const std::string file = scratchDir() + "/answer.MAR";
    const auto toFile = runZbddc("run '" + net + "' --task mar --evidence B=b1 -o '" + file + "'");
    REQUIRE(toFile.exitCode == 0);
    CHECK(toFile.out.empty());
    const auto onStdout = runZbddc("run '" + net + "' --task mar --evidence B=b1");
    CHECK(slurp(file) == onStdout.out);
    CHECK(readUai2014(slurp(file), "MAR").has_value());
    // --uai-output: <model file name>.<TASK> in the working directory.
    const std::string dir = scratchDir() + "/uai-out";
    REQUIRE(std::system(("mkdir -p '" + dir + "'").c_str()) == 0);
    const std::string cmd = "cd '" + dir + "' && '" ZBDDC_EXE "' run '" + net +
                            "' --task pr --evidence B=b1 --uai-output";
    REQUIRE(std::system(cmd.c_str()) == 0);
    const auto written = readUai2014(slurp(dir + "/format.bif.PR"), "PR");
    REQUIRE(written.has_value());
    CHECK(written->log10 == Approx(std::log10(kPrB1)).epsilon(1e-12));
    CHECK(runZbddc("run '" + net + "' -o x --uai-output").exitCode == 2);
    // An unwritable target fails the run and leaves nothing behind.
    const auto bad = runZbddc("run '" + net + "' -o '" + scratchDir() + "/no/such/dir/x.PR'");
    CHECK(bad.exitCode == 1);
    CHECK(bad.err.find("cannot write file") != std::string::npos);
}

TEST_CASE("run: a cost network's MPE block holds only the solution", "[cli][format]") {
    const std::string uai = writeScratch("format.uai", "MARKOV\n3\n2 2 3\n3\n1 0\n2 0 1\n2 1 2\n"
                                                       "2\n0.4 0.6\n4\n1.0 0.5 0.5 0.0\n"
                                                       "6\n0.1 0.2 0.3 0.4 0.5 0.6\n");
    const auto text = runZbddc("run '" + uai + "'");
    REQUIRE(text.exitCode == 0);
    const auto solution = readUai2014(text.out, "MPE");
    REQUIRE(solution.has_value());
    CHECK(solution->states.size() == 3);
    // The cost goes to stderr, in full: the same text as the JSON's.
    const auto json = runZbddc("run '" + uai + "' --json");
    REQUIRE(json.exitCode == 0);
    const size_t at = json.out.find("\"cost\": ") + 8;
    const std::string jsonCost = json.out.substr(at, json.out.find(',', at) - at);
    CHECK(text.err == "cost " + jsonCost + "\n");
    const std::string file = scratchDir() + "/format.MPE";
    REQUIRE(runZbddc("run '" + uai + "' -o '" + file + "'").exitCode == 0);
    CHECK(slurp(file) == text.out);
}
