// The hostile-input suite's one check (hostile_inputs_test.cpp says what it proves): a case runs
// in a folder of its own with TMPDIR inside it; its exit status, stderr line by line, and that the
// folder then holds exactly its inputs and expected outputs, and TMPDIR nothing.
#pragma once

#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace zbddc::testing {

struct Hostile {
    std::string name;
    std::vector<std::pair<std::string, std::string>> files; // written into the case's folder
    std::string args;                                       // run in that folder
    int exitCode = 1;
    std::vector<std::string>
        err;                 // stderr, line by line: each expected line is a prefix of its line
    std::string outHas = {}; // a text stdout must contain ("" for none)
    std::vector<std::string> outputs = {}; // files the run creates
};

inline std::vector<std::string> linesOf(const std::string &text) {
    std::vector<std::string> lines;
    size_t at = 0;
    for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
        lines.push_back(text.substr(at, nl - at));
    if (at < text.size())
        lines.push_back(text.substr(at)); // an unterminated last line still counts
    return lines;
}

inline std::set<std::string> entriesOf(const std::string &dir) {
    std::set<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(dir))
        names.insert(e.path().filename().string());
    return names;
}

inline void check(const Hostile &h) {
    INFO(h.name << ": zbddc " << h.args);
    const std::string dir = scratchDir() + "/hostile-" + h.name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir + "/tmp");
    std::set<std::string> expected = {"tmp"};
    for (const auto &[name, text] : h.files) {
        writeScratch("hostile-" + h.name + "/" + name, text);
        expected.insert(name);
    }
    for (const std::string &name : h.outputs)
        expected.insert(name);
    const std::string out = dir + ".stdout", err = dir + ".stderr";
    const std::string cmd = "cd '" + dir + "' && TMPDIR='" + dir + "/tmp' " + ZBDDC_EXE + " " +
                            h.args + " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == h.exitCode);
    const std::vector<std::string> lines = linesOf(slurp(err));
    INFO("stderr: " << slurp(err));
    REQUIRE(lines.size() == h.err.size());
    for (size_t i = 0; i < lines.size(); ++i)
        CHECK(lines[i].rfind(h.err[i], 0) == 0);
    if (!h.outHas.empty())
        CHECK(slurp(out).find(h.outHas) != std::string::npos);
    CHECK(entriesOf(dir) == expected);
    CHECK(entriesOf(dir + "/tmp").empty());
}

inline const std::string kTwoVariables = "network n { }\n"
                                         "variable A { type discrete [ 2 ] { a, b }; }\n"
                                         "variable B { type discrete [ 2 ] { a, b }; }\n"
                                         "probability ( A ) { table 0.3, 0.7; }\n"
                                         "probability ( B | A ) { (a) 0.1, 0.9; (b) 0.5, 0.5; }\n";

} // namespace zbddc::testing
