// Runs the built zbddc binary as a user would, capturing exit code, stdout and stderr.
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

inline Outcome runZbddc(const std::string &args) {
    const std::string out = scratchDir() + "/stdout", err = scratchDir() + "/stderr";
    const std::string cmd = std::string(ZBDDC_EXE) + " " + args + " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

} // namespace zbddc::testing
