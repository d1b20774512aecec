// examples/batch_async.cpp run as a user runs it: on the bundled wetgrass.zdd and on asia, every
// answer it prints, synchronous and asynchronous, against the reference evaluator (values to the
// six digits it prints, the same marginals' and assignment's layout, the same errors for the
// cases of probability 0), and its own verdict that both agree.
#include "runtime/evidence.h"
#include "runtime/tasks.h"
#include "pipeline/load_model.h"

#include "tests/catch.hpp"
#include "tests/support/close.h"
#include "tests/support/run_zbddc.h"

#include <cstdlib>
#include <sstream>

using namespace zbddc;

namespace {

// A printed answer's words ("Rain:", "Rain=yes") and numbers, in order; or its error.
struct Printed {
    std::string error;
    std::vector<std::string> words;
    std::vector<double> numbers;
};

Printed parse(const std::string &answer) {
    Printed p;
    if (answer.rfind("error: ", 0) == 0) {
        p.error = answer.substr(7);
        return p;
    }
    std::istringstream in(answer);
    for (std::string token; in >> token;) {
        for (const char *prefix : {"P(e)=", "P(x,e)="})
            if (token.rfind(prefix, 0) == 0)
                token = token.substr(std::string(prefix).size());
        char *end = nullptr;
        const double v = std::strtod(token.c_str(), &end);
        if (!token.empty() && *end == '\0')
            p.numbers.push_back(v);
        else
            p.words.push_back(token);
    }
    return p;
}

// The reference evaluator's answer in the same words and numbers.
Printed expected(const Circuit &c, Task task, const Evidence &e) {
    const auto r = runTask(c, task, e);
    Printed p;
    if (!r) {
        p.error = r.error().message;
        return p;
    }
    if (task == Task::Mpe)
        p.words.push_back("max");
    p.numbers.push_back(r->value);
    for (size_t v = 0; v < r->marginals.size(); ++v) {
        p.words.push_back(c.variables[v].name + ":");
        p.numbers.insert(p.numbers.end(), r->marginals[v].begin(), r->marginals[v].end());
    }
    for (size_t v = 0; v < r->assignment.size(); ++v)
        p.words.push_back(c.variables[v].name + "=" + c.variables[v].states[r->assignment[v]]);
    return p;
}

// The example's folder: this build's, or ZBDDC_EXAMPLE_DIR's (install_test.sh points it at the
// examples built against an installed zbddc).
std::string exampleDir() {
    const char *dir = std::getenv("ZBDDC_EXAMPLE_DIR");
    return dir && *dir ? dir : ZBDDC_BINARY_DIR "/examples";
}

// Runs the example on `model` and `lists` (none: its defaults) and checks every answer line.
void checkExample(const std::string &model, const std::vector<std::string> &lists,
                  const std::string &arguments) {
    const auto run = testing::runProgram(exampleDir() + "/zbdd_batch_async " + arguments);
    INFO(run.out << run.err);
    REQUIRE(run.exitCode == 0);
    CHECK_THAT(run.out, Catch::Contains("the asynchronous answers equal the synchronous ones"));
    auto circuit = loadCircuit(model);
    REQUIRE(circuit.ok());
    size_t answers = 0;
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
        // "mar case 1 async: P(e)=0.26 Rain: 0.692308 0.307692 WetGrass: 1 0"
        std::istringstream head(line);
        std::string task, word, mode;
        size_t index = 0;
        if (!(head >> task >> word >> index >> mode) || word != "case" || !parseTask(task))
            continue;
        INFO(line);
        REQUIRE(index < lists.size());
        auto e = parseEvidenceList(lists[index], circuit->variables);
        REQUIRE(e.ok());
        const Printed want = expected(*circuit, *parseTask(task), *e);
        const Printed got = parse(line.substr(line.find(": ") + 2));
        CHECK(got.error == want.error);
        CHECK(got.words == want.words);
        REQUIRE(got.numbers.size() == want.numbers.size());
        for (size_t k = 0; k < want.numbers.size(); ++k)
            CHECK(testing::close(got.numbers[k], want.numbers[k], 1e-5)); // printed to 6 digits
        ++answers;
    }
    CHECK(answers == 3 * 2 * lists.size()); // PR, MAR and MPE, synchronous and asynchronous
}

} // namespace

TEST_CASE("the batch example answers the bundled model as the reference, both ways", "[example]") {
    checkExample(ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd",
                 {"", "WetGrass=yes", "Rain=no,WetGrass=yes", "Rain=yes,Rain=no"}, "");
}

TEST_CASE("the batch example answers asia as the reference, both ways", "[example]") {
    const std::string asia = std::string(ZBDDC_BENCHMARKS_DIR) + "/bn/asia.bif";
    // The last case is impossible: `either` is tub or lung, deterministically.
    const std::vector<std::string> lists = {"", "asia=yes,xray=yes", "smoke=yes,dysp=no",
                                            "either=no,lung=yes"};
    std::string arguments = "'" + asia + "'";
    for (const std::string &l : lists)
        arguments += " '" + l + "'";
    checkExample(asia, lists, arguments);
}
