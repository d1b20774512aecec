// The network readers: every benchmark BIF parses; the same small network written in BIF,
// XMLBIF, Hugin .net and UAI reads the same; bad files get one `file:line: message`.
#include "compiler/frontends/bn/bayes_net.h"

#include "tests/catch.hpp"

#include <algorithm>
#include <filesystem>

using namespace zbddc;

namespace {
// A -> C <- B, C with three states.
const char *kBif = R"(network tiny {
}
variable A {
  type discrete [ 2 ] { yes, no };
}
variable B {
  type discrete [ 2 ] { on, off };
}
variable C {
  type discrete [ 3 ] { lo, mid, hi };
}
probability ( A ) {
  table 0.3, 0.7;
}
probability ( B ) {
  table 0.6, 0.4;
}
probability ( C | A, B ) {
  (yes, on) 0.1, 0.2, 0.7;
  (yes, off) 0.2, 0.2, 0.6;
  (no, on) 0.5, 0.5, 0.0;
  (no, off) 1.0, 0.0, 0.0;
}
)";

const char *kXml = R"(<?xml version="1.0"?>
<BIF VERSION="0.3"><NETWORK><NAME>tiny</NAME>
<VARIABLE TYPE="nature"><NAME>A</NAME><OUTCOME>yes</OUTCOME><OUTCOME>no</OUTCOME></VARIABLE>
<VARIABLE TYPE="nature"><NAME>B</NAME><OUTCOME>on</OUTCOME><OUTCOME>off</OUTCOME></VARIABLE>
<VARIABLE TYPE="nature"><NAME>C</NAME><OUTCOME>lo</OUTCOME><OUTCOME>mid</OUTCOME><OUTCOME>hi</OUTCOME>
  <PROPERTY>position = (1, 2)</PROPERTY></VARIABLE>
<DEFINITION><FOR>A</FOR><TABLE>0.3 0.7</TABLE></DEFINITION>
<DEFINITION><FOR>B</FOR><TABLE>0.6 0.4</TABLE></DEFINITION>
<DEFINITION><FOR>C</FOR><GIVEN>A</GIVEN><GIVEN>B</GIVEN>
<TABLE>0.1 0.2 0.7 0.2 0.2 0.6 0.5 0.5 0.0 1.0 0.0 0.0</TABLE></DEFINITION>
</NETWORK></BIF>
)";

const char *kNet = R"(net { name = "tiny"; }
node A { states = ("yes" "no"); label = "A node"; }
node B { states = ("on" "off"); position = (10 20); }
node C { states = ("lo" "mid" "hi"); } % a comment
potential ( A ) { data = ( 0.3 0.7 ); }
potential ( B ) { data = ( 0.6 0.4 ); }
potential ( C | A B ) {
  data = ((( 0.1 0.2 0.7 ) ( 0.2 0.2 0.6 ))
          (( 0.5 0.5 0.0 ) ( 1.0 0.0 0.0 )));
}
)";

const char *kUai = R"(BAYES
3
2 2 3
3
1 0
1 1
3 0 1 2
2 0.3 0.7
2 0.6 0.4
12 0.1 0.2 0.7 0.2 0.2 0.6 0.5 0.5 0.0 1.0 0.0 0.0
)";

Result<BayesNet> read(Result<BayesNet> (*parse)(std::string_view, const std::string &),
                      std::string_view text, const ReadOptions &options = {}) {
    auto net = parse(text, "t");
    if (!net)
        return net;
    if (auto st = checkNetwork(*net, options); !st)
        return st.error();
    return net;
}

std::string errorOf(Result<BayesNet> (*parse)(std::string_view, const std::string &),
                    std::string text, const ReadOptions &options = {}) {
    auto net = read(parse, text, options);
    return net.ok() ? "no error" : net.error().str();
}

// The 1-based line of the first occurrence of `what` in `text`.
size_t lineOf(std::string_view text, std::string_view what) {
    const size_t at = text.find(what);
    return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

std::string replaced(std::string text, const std::string &from, const std::string &to) {
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}
} // namespace

TEST_CASE("every benchmark BIF parses and checks", "[bn][reader]") {
    const std::filesystem::path dir = std::filesystem::path(ZBDDC_BENCHMARKS_DIR) / "bn";
    REQUIRE(std::filesystem::exists(dir));
    size_t files = 0;
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".bif")
            continue;
        INFO(entry.path());
        auto net = readNetworkFile(entry.path().string(), {.strict = true});
        REQUIRE(net.ok());
        CHECK(!net->variables.empty());
        ++files;
    }
    CHECK(files >= 19);
}

TEST_CASE("the four formats read the same network", "[bn][reader]") {
    auto bif = read(parseBif, kBif);
    REQUIRE(bif.ok());
    REQUIRE(bif->variables.size() == 3);
    CHECK(bif->variables[2].parents == std::vector<uint32_t>{0, 1});
    CHECK(bif->variables[2].cpt[2 * 3 + 1] == 0.5); // row (no, on), state mid
    for (auto parse : {parseXmlBif, parseHuginNet}) {
        auto other = read(parse, parse == parseXmlBif ? kXml : kNet);
        REQUIRE(other.ok());
        REQUIRE(other->variables.size() == 3);
        for (size_t v = 0; v < 3; ++v) {
            CHECK(other->variables[v].name == bif->variables[v].name);
            CHECK(other->variables[v].states == bif->variables[v].states);
            CHECK(other->variables[v].parents == bif->variables[v].parents);
            CHECK(other->variables[v].cpt == bif->variables[v].cpt);
        }
    }
    auto uai = read(parseUaiBayes, kUai);
    REQUIRE(uai.ok());
    for (size_t v = 0; v < 3; ++v) {
        CHECK(uai->variables[v].name == "X" + std::to_string(v));
        CHECK(uai->variables[v].parents == bif->variables[v].parents);
        CHECK(uai->variables[v].cpt == bif->variables[v].cpt);
    }
}

TEST_CASE("a BIF table with parents lists the variable's states slowest", "[bn][reader]") {
    const std::string text = replaced(kBif,
                                      "  (yes, on) 0.1, 0.2, 0.7;\n  (yes, off) 0.2, 0.2, 0.6;\n"
                                      "  (no, on) 0.5, 0.5, 0.0;\n  (no, off) 1.0, 0.0, 0.0;\n",
                                      "  table 0.1, 0.2, 0.5, 1.0,  0.2, 0.2, 0.5, 0.0,  0.7, 0.6, 0.0, 0.0;\n");
    auto net = read(parseBif, text);
    REQUIRE(net.ok());
    auto rows = read(parseBif, kBif);
    CHECK(net->variables[2].cpt == rows->variables[2].cpt);
}

TEST_CASE("bad BIF files get one file:line message", "[bn][reader]") {
    CHECK(errorOf(parseBif, replaced(kBif, "variable B", "variable A")) ==
          "t:6: duplicate variable 'A'");
    CHECK(errorOf(parseBif, replaced(kBif, "( C | A, B )", "( C | A, D )")) ==
          "t:18: unknown variable 'D'");
    CHECK(errorOf(parseBif, replaced(kBif, "(no, on)", "(no, maybe)")) ==
          "t:21: unknown state 'maybe' of variable 'B'");
    CHECK(errorOf(parseBif, replaced(kBif, "0.5, 0.5, 0.0;", "0.5, 0.5;")) ==
          "t:21: row of 'C' has 2 entries, expected 3");
    CHECK(errorOf(parseBif, replaced(kBif, "table 0.3, 0.7;", "table 0.3, 0.7, 0.1;")) ==
          "t:13: table of 'A' has 3 entries, expected 2");
    CHECK(errorOf(parseBif, replaced(kBif, "(no, off) 1.0, 0.0, 0.0;\n", "")) ==
          "t:18: CPT of 'C' misses row 3 (and has no default)");
    CHECK(errorOf(parseBif, replaced(kBif, "[ 3 ]", "[ 4 ]")) ==
          "t:10: variable 'C' declares 4 states but lists 3");
    CHECK(errorOf(parseBif, std::string(kBif) + "probability ( D ) {\n  table 1;\n}\n") ==
          "t:24: unknown variable 'D'");
    CHECK(errorOf(parseBif, std::string(kBif).substr(0, 200)).find("unexpected end of file") !=
          std::string::npos);
    CHECK(errorOf(parseBif, replaced(kBif, "table 0.3", "table zero")) ==
          "t:13: expected a probability, found 'zero'");
}

TEST_CASE("BIF blocks skip property statements and name any other stray item", "[bn][reader]") {
    const char *bif = "variable A { property p = 1; type discrete [ 2 ] { a0, a1 }; property q; }\n"
                      "probability ( A ) { property r; table 0.4, 0.6; }\n";
    auto net = parseBif(bif, "t");
    REQUIRE(net.ok());
    REQUIRE(net->variables.size() == 1);
    CHECK(net->variables[0].states == std::vector<std::string>{"a0", "a1"});
    CHECK(net->variables[0].cpt == std::vector<double>{0.4, 0.6});
    CHECK(errorOf(parseBif, "variable A {\n  kind x; }") ==
          "t:2: expected 'type', 'property' or '}', found 'kind'");
    CHECK(errorOf(parseBif, "variable A { property p; }") == "t:1: variable 'A' has no type");
    CHECK(errorOf(parseBif, "variable A { type discrete [ 1 ] { a }; }\n"
                            "probability ( A ) { tabel 1; }") ==
          "t:2: expected 'table', 'default', '(' or '}', found 'tabel'");
}

TEST_CASE("cycles are errors that name the cycle", "[bn][reader]") {
    const std::string cyclic = replaced(kBif, "probability ( A ) {\n  table 0.3, 0.7;",
                                        "probability ( A | C ) {\n  default 0.3, 0.7;");
    CHECK(errorOf(parseBif, cyclic) == "t:18: cycle in the network: C -> A -> C");
}

TEST_CASE("rows off 1 warn, or fail under strict", "[bn][reader]") {
    const std::string off = replaced(kBif, "table 0.6, 0.4;", "table 0.6, 0.41;");
    auto net = read(parseBif, off);
    REQUIRE(net.ok());
    REQUIRE(net->warnings.size() == 1);
    CHECK(net->warnings[0].str() == "t:15: CPT of 'B': row 0 sums to 1.01, not 1");
    CHECK(errorOf(parseBif, off, {.strict = true}) == "t:15: CPT of 'B': row 0 sums to 1.01, not 1");
    // Within the tolerance (1e-6), nothing is said.
    auto close = read(parseBif, replaced(kBif, "table 0.6, 0.4;", "table 0.6, 0.4000001;"));
    REQUIRE(close.ok());
    CHECK(close->warnings.empty());
    CHECK(errorOf(parseBif, replaced(kBif, "table 0.6, 0.4;", "table 1.6, -0.6;")).find(
              "not a probability") != std::string::npos);
}

TEST_CASE("bad XMLBIF, Hugin and UAI files get one file:line message", "[bn][reader]") {
    CHECK(errorOf(parseXmlBif, replaced(kXml, "<GIVEN>B</GIVEN>", "<GIVEN>Q</GIVEN>")) ==
          "t:9: unknown variable 'Q'");
    CHECK(errorOf(parseXmlBif, replaced(kXml, "0.3 0.7</TABLE>", "0.3 0.7 0.2</TABLE>")) ==
          "t:7: CPT of 'A' has 3 entries, expected 2");
    CHECK(errorOf(parseXmlBif, replaced(kXml, "</NETWORK>", "")).find("unexpected </BIF>") !=
          std::string::npos);
    CHECK(errorOf(parseHuginNet, replaced(kNet, "node B", "node A")) == "t:3: duplicate node 'A'");
    CHECK(errorOf(parseHuginNet, replaced(kNet, "( 0.6 0.4 )", "( 0.6 )")) ==
          "t:6: potential of 'B' has 1 entries, expected 2");
    CHECK(errorOf(parseHuginNet, replaced(kNet, "C | A B", "C | A Z")) == "t:7: unknown node 'Z'");
    CHECK(errorOf(parseUaiBayes, replaced(kUai, "12 0.1", "11 0.1")) ==
          "t:10: table of factor 2 has 11 entries, but its scope has 12 rows");
    CHECK(errorOf(parseUaiBayes, replaced(kUai, "3 0 1 2", "3 0 1 7")) ==
          "t:7: unknown variable 7 (the network has 3 variables)");
    CHECK(errorOf(parseUaiBayes, replaced(kUai, "BAYES", "MARKOV")) ==
          "t:1: a MARKOV network is not a Bayesian network (expected BAYES)");
    CHECK(errorOf(parseUaiBayes, replaced(kUai, "1 1\n3 0 1 2", "1 0\n3 0 1 2")) ==
          "t:6: variable 0 is the child of two functions");
    // A parent listed twice is refused in every format (the BIF reader names it while parsing).
    const std::string twice = "parent 'A' of 'C' listed twice";
    CHECK(errorOf(parseXmlBif, replaced(kXml, "<GIVEN>B</GIVEN>", "<GIVEN>A</GIVEN>")).find(twice) !=
          std::string::npos);
    CHECK(errorOf(parseHuginNet, replaced(kNet, "C | A B", "C | A A")).find(twice) !=
          std::string::npos);
    CHECK(errorOf(parseUaiBayes, replaced(kUai, "3 0 1 2", "3 0 0 2")).find("appears twice") !=
          std::string::npos);
    // A domain no table in the file could hold is refused before its states are named (the
    // fuzzer's 2e9-state input ran out of memory here).
    const std::string huge = "BAYES\n2\n2061033314 2\n2\n1 1\n1 1\n2 0.5 0.5\n2 0.5 0.5\n";
    CHECK(errorOf(parseUaiBayes, huge).find("domain size 2061033314 of variable 0 is more than") !=
          std::string::npos);
}

TEST_CASE("readNetworkFile names unknown extensions and missing files", "[bn][reader]") {
    CHECK(readNetworkFile("model.txt").error().str().find("unknown network format") != std::string::npos);
    CHECK(readNetworkFile("/nonexistent/x.bif").error().str() ==
          "/nonexistent/x.bif: cannot read file: No such file or directory");
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "zbddc-dir.bif";
    std::filesystem::create_directories(dir);
    CHECK(readNetworkFile(dir.string()).error().str() == dir.string() + ": is a directory, not a file");
    std::filesystem::remove(dir);
}

TEST_CASE("empty networks and unterminated comments are errors at their line", "[bn][reader]") {
    CHECK(errorOf(parseBif, "") == "t:1: no variables: the network is empty");
    CHECK(errorOf(parseHuginNet, "net { }\n") == "t:1: no variables: the network is empty");
    // The comment used to swallow the rest of the file, variable B with it.
    CHECK(errorOf(parseBif, replaced(kBif, "variable B", "/* variable B")) ==
          "t:" + std::to_string(lineOf(kBif, "variable B")) + ": unterminated /* comment");
}

TEST_CASE("10^5 states read in linear time, duplicates still found", "[bn][readers]") {
    // Each reader looked names up by scanning: 10^5 states took 6-15 s. Hashes now; this checks
    // the answers on such a file (ctest's time limit is the guard, not a timer here).
    const int n = 100000;
    std::string states, hugin, table, xml;
    for (int s = 0; s < n; ++s) {
        states += (s ? ", s" : "s") + std::to_string(s);
        hugin += " \"s" + std::to_string(s) + "\"";
        table += (s ? ", " : "") + std::string(s == 0 ? "1" : "0");
        xml += "<OUTCOME>s" + std::to_string(s) + "</OUTCOME>";
    }
    const std::string bif = "network big { }\nvariable A { type discrete [ " + std::to_string(n) +
                            " ] { " + states + " }; }\nvariable B { type discrete [ 2 ] { x, y }; }\n" +
                            "probability ( A ) { table " + table + "; }\n" +
                            "probability ( B | A ) { (s99999) 0.25, 0.75; default 0.5, 0.5; }\n";
    auto net = parseBif(bif, "big.bif");
    REQUIRE(net.ok());
    CHECK(net->variables[0].states.size() == size_t(n));
    CHECK(net->variables[1].cpt[2 * 99999] == 0.25);
    CHECK(net->variables[1].cpt[2 * 5] == 0.5);
    CHECK(net->findState(0, "s77777") == 77777);
    CHECK(net->findState(0, "nope") == UINT32_MAX);
    const std::string dup = replaced(bif, "s99999 }", "s5 }");
    CHECK(errorOf(parseBif, dup) == "t:2: duplicate state 's5' of 'A'");
    std::string data = table;
    std::replace(data.begin(), data.end(), ',', ' ');
    auto h = parseHuginNet("net { }\nnode A { states = (" + hugin + " ); }\npotential ( A ) { data = ( " +
                               data + " ); }\n",
                           "big.net");
    REQUIRE(h.ok());
    CHECK(h->variables[0].states.size() == size_t(n));
    CHECK(errorOf(parseHuginNet, "net { }\nnode A { states = (" + hugin + " \"s3\" ); }\n")
              .find("duplicate state 's3'") != std::string::npos);
    auto x = parseXmlBif("<BIF><NETWORK><VARIABLE><NAME>A</NAME>" + xml +
                             "</VARIABLE><DEFINITION><FOR>A</FOR><TABLE>" + data +
                             "</TABLE></DEFINITION></NETWORK></BIF>",
                         "big.xml");
    REQUIRE(x.ok());
    CHECK(x->variables[0].states.size() == size_t(n));
}
