#include "compiler/frontends/wcsp/read_cost_network.h"
#include "compiler/frontends/wcsp/uai_cost_reader.h"
#include "compiler/frontends/wcsp/wcsp_reader.h"

#include "tests/catch.hpp"

#include <cmath>
#include <filesystem>

using namespace zbddc;

namespace {
std::string errorOf(const Result<CostNetwork> &r) {
    return r ? std::string("(no error)") : r.error().str();
}
const std::string kWcspDir = std::string(ZBDDC_BENCHMARKS_DIR) + "/wcsp";
} // namespace

TEST_CASE("wcsp: header, default costs, tuples and the upper bound", "[wcsp]") {
    const char *text = "demo 3 2 3 10\n"
                       "2 2 1\n"
                       "2 0 1 5 2\n"
                       "0 1 0\n"
                       "1 0 12\n" // >= top: forbidden
                       "1 2 0 1\n"
                       "0 3\n"
                       "0 4 0\n"; // a constant cost
    auto net = parseWcsp(text, "demo.wcsp");
    REQUIRE(net.ok());
    CHECK(net->name == "demo");
    CHECK(net->domainSizes == std::vector<uint32_t>{2, 2, 1});
    CHECK(net->upperBound == 10);
    REQUIRE(net->functions.size() == 3);
    const CostFunction &f = net->functions[0];
    CHECK(f.costAtRow(0) == 5); // (0,0) default
    CHECK(f.costAtRow(1) == 0); // (0,1)
    CHECK(f.costAtRow(2) == kForbidden);
    CHECK(f.costAtRow(3) == 5);
    CHECK(net->functions[1].costAtRow(0) == 3);
    CHECK(net->functions[2].scope.empty());
    CHECK(net->functions[2].costAtRow(0) == 4);
    // total of x0=0, x1=1, x2=0: 0 + 3 + 4
    CHECK(assignmentCost(*net, std::vector<uint32_t>{0, 1, 0}) == 7);
    CHECK(assignmentCost(*net, std::vector<uint32_t>{1, 0, 0}) == kForbidden);
}

TEST_CASE("wcsp: bad input gives one file:line message", "[wcsp]") {
    struct Case {
        const char *text;
        const char *message;
    };
    const Case cases[] = {
        {"p 2 2 1 10\n2 2\n2 0 5 0 0\n",
         "p.wcsp:3: unknown variable 5 (the problem has 2 variables)"},
        {"p 2 2 1 10\n2 2\n2 0 1 0 1\n0 1\n",
         "p.wcsp:4: unexpected end of file, expected tuple cost"},
        {"p 2 2 1 10\n2 2\n2 0 1 0 1\n0 1 -3\n",
         "p.wcsp:4: tuple cost -3 is negative (costs must be non-negative integers)"},
        {"p 2 2 1 10\n2 2\n2 0 1 0 1\n0 2 1\n",
         "p.wcsp:4: value 2 is outside the domain of variable 1 (size 2)"},
        {"p 2 2 1 99999999999999999999\n2 2\n",
         "p.wcsp:1: expected upper bound (a positive integer), found '99999999999999999999'"},
        {"p 3288888888 1 1 30\n1 0.6\n", // found by the model-readers fuzzer
         "p.wcsp:1: 3288888888 variables are more than the file could hold"},
        {"p 2 2 1 9223372036854775808\n2 2\n",
         "p.wcsp:1: upper bound 9223372036854775808 is out of range (1 to 2^63 - 1)"},
        {"p 2 2 2 10\n2 2\n1 0 0 0\n",
         "p.wcsp:3: unexpected end of file, expected arity of a cost function"},
        {"p 2 2 1 10\n2 2\n2 0 0 0 0\n", "p.wcsp:3: variable 0 appears twice in one scope"},
        {"p 2 2 1 10\n2 2\n2 0 1 0 5\n", "p.wcsp:3: 5 tuples listed for a table of 4 rows"},
        {"p 2 2 1 10\n2 2\n2 0 1 0 3000000000000\n",
         "p.wcsp:3: 3000000000000 tuples listed for a table of 4 rows"},
        {"p 3 65536 1 10\n65536 65536 65536\n3 0 1 2 0 140737488355328\n",
         "p.wcsp:3: 140737488355328 tuples are more than the file could hold"},
        {"p 2 2 1 10\n2 -3\n",
         "p.wcsp:2: domain size -3 of variable 1 (interval domains) is not supported"},
        {"p 2 2 1 10\n2 2\n2 0 1 -1 salldiff var 9\n",
         "p.wcsp:3: global cost function 'salldiff' is not supported (only cost tables are)"},
        {"p 2 2 1 10\n2 2\n1 0 0 0\nextra\n",
         "p.wcsp:4: unexpected 'extra' after the last of 1 cost functions"},
    };
    for (const Case &c : cases)
        CHECK(errorOf(parseWcsp(c.text, "p.wcsp")) == c.message);
}

TEST_CASE("wcsp: a table whose size overflows 64 bits is refused", "[wcsp]") {
    // 20 variables of domain 2^32-1... use 70 variables of domain 2^10 (700 bits).
    std::string text = "big 70 1024 1 10\n";
    for (int i = 0; i < 70; ++i)
        text += "1024 ";
    text += "\n64";
    for (int i = 0; i < 64; ++i)
        text += " " + std::to_string(i);
    text += " 0 0\n";
    CHECK(errorOf(parseWcsp(text, "big.wcsp")) ==
          "big.wcsp:3: cost function table has more than 2^64 rows");
}

TEST_CASE("wcsp: large sparse tables keep their explicit rows, last tuple wins", "[wcsp]") {
    std::string text =
        "s 4 64 1 1000\n64 64 64 64\n4 0 1 2 3 7 3\n1 2 3 4 5\n1 2 3 4 6\n63 63 63 63 0\n";
    auto net = parseWcsp(text, "s.wcsp");
    REQUIRE(net.ok());
    const CostFunction &f = net->functions[0];
    CHECK(f.sparse);
    CHECK(f.rows.size() == 2);
    CHECK(f.costAtRow(((1 * 64 + 2) * 64 + 3) * 64 + 4) == 6);
    CHECK(f.costAtRow(64ull * 64 * 64 * 64 - 1) == 0);
    CHECK(f.costAtRow(5) == 7);
}

TEST_CASE("wcsp: the benchmark files parse, the global-constraint ones are refused", "[wcsp]") {
    REQUIRE(std::filesystem::exists(kWcspDir));
    for (const char *name :
         {"4queens", "warehouse", "zebra", "example", "404", "505", "CELAR6-SUB0"}) {
        auto net = readCostNetworkFile(kWcspDir + "/" + name + ".wcsp");
        INFO(name << ": " << errorOf(net));
        CHECK(net.ok());
    }
    auto sudoku = readCostNetworkFile(kWcspDir + "/unsupported/sudoku.wcsp");
    CHECK(errorOf(sudoku) == kWcspDir + "/unsupported/sudoku.wcsp:3: global cost function "
                                        "'salldiff' is not supported (only cost tables are)");
    auto disj = readCostNetworkFile(kWcspDir + "/unsupported/10_1.wcsp");
    CHECK(errorOf(disj) == kWcspDir + "/unsupported/10_1.wcsp:2: domain size -442 of variable 0 "
                                      "(interval domains) is not supported");
}

TEST_CASE("uai: MARKOV and BAYES become -ln costs", "[uai]") {
    const char *text = "MARKOV\n2\n2 3\n2\n1 0\n2 0 1\n\n2\n0.25 0.75\n6\n1 0 0.5\n0.5 0.5 0.5\n";
    auto net = parseUaiAsCostNetwork(text, "m.uai");
    REQUIRE(net.ok());
    CHECK_FALSE(net->integerCosts);
    CHECK(net->functions[0].costAtRow(0) == Approx(-std::log(0.25)));
    CHECK(net->functions[1].costAtRow(1) == kForbidden);
    CHECK(net->functions[1].costAtRow(2) == Approx(-std::log(0.5)));
    const char *bayes = "BAYES\n2\n2 2\n2\n1 0\n2 0 1\n2\n0.1 0.9\n4\n0.3 0.7 0.6 0.4\n";
    auto bn = parseUaiAsCostNetwork(bayes, "b.uai");
    REQUIRE(bn.ok());
    CHECK(assignmentCost(*bn, std::vector<uint32_t>{1, 0}) == Approx(-std::log(0.9 * 0.6)));
}

TEST_CASE("uai: bad input gives one file:line message", "[uai]") {
    struct Case {
        const char *text;
        const char *message;
    };
    const Case cases[] = {
        {"FOO\n", "m.uai:1: expected network type MARKOV or BAYES, found 'FOO'"},
        {"MARKOV\n2\n2 2\n1\n1 2\n", "m.uai:5: unknown variable 2 (the network has 2 variables)"},
        {"MARKOV\n1\n2\n1\n1 0\n3\n0.5 0.5 0.5\n",
         "m.uai:6: table of factor 0 has 3 entries, but its scope has 2 rows"},
        {"MARKOV\n1\n2\n1\n1 0\n2\n0.5 -1\n",
         "m.uai:7: table entry -1.000000 is out of range (must be finite and non-negative)"},
        {"MARKOV\n1\n2\n1\n1 0\n2\n0.5\n", "m.uai:7: unexpected end of file, expected table entry"},
        {"MARKOV\n3\n10 10 10\n1\n3 0 1 2\n1000\n0.5\n",
         "m.uai:6: table of factor 0 (1000 entries) is larger than the file could hold"},
        {"MARKOV\n3\n100000 100000 100000\n1\n3 0 1 2\n5\n",
         "m.uai:3: domain size 100000 of variable 0 is more than the file could hold"},
        {"MARKOV\n4000000000\n2 2\n", "m.uai:2: 4000000000 variables are more than the file could hold"},
        {"MARKOV\n1\n2\n1\n2 0 0\n", "m.uai:5: variable 0 appears twice in one scope"},
    };
    for (const Case &c : cases)
        CHECK(errorOf(parseUaiAsCostNetwork(c.text, "m.uai")) == c.message);
    // Domains the file could hold (it is long enough) whose product is beyond any table.
    const std::string padded =
        std::string("MARKOV\n3\n3000 3000 3000\n1\n3 0 1 2\n5\n") + std::string(6000, ' ');
    CHECK(errorOf(parseUaiAsCostNetwork(padded, "m.uai")) ==
          "m.uai:6: the scope of factor 0 has more than 2^32 rows, more than a file can hold");
}
