// Runs the built zbddc binary (or another built program) as a user would, capturing exit code,
// stdout and stderr.
#pragma once

#include "tests/support/scratch.h"

#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace zbddc::testing {

struct Outcome {
    int exitCode;
    std::string out;
    std::string err;
};

// Any built program: `command` is its path and arguments, as a shell reads them.
inline Outcome runProgram(const std::string &command) {
    const std::string out = scratchDir() + "/stdout", err = scratchDir() + "/stderr";
    const std::string cmd = command + " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

inline Outcome runZbddc(const std::string &args) { return runProgram(std::string(ZBDDC_EXE) + " " + args); }

} // namespace zbddc::testing
