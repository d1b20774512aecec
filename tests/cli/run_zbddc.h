// Runs the built zbddc binary as a user would, capturing exit code, stdout and stderr.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace zbddc::testing {

struct Outcome {
    int exitCode;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string scratchDir() {
    static const std::string dir = [] {
        std::string d = std::string(ZBDDC_BINARY_DIR) + "/test-scratch-" + std::to_string(::getpid());
        std::system(("mkdir -p '" + d + "'").c_str());
        return d;
    }();
    return dir;
}

inline Outcome runZbddc(const std::string &args) {
    const std::string out = scratchDir() + "/stdout", err = scratchDir() + "/stderr";
    const std::string cmd = std::string(ZBDDC_EXE) + " " + args + " >'" + out + "' 2>'" + err + "'";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

inline std::string writeScratch(const std::string &name, const std::string &text) {
    const std::string path = scratchDir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

inline bool exists(const std::string &path) { return ::access(path.c_str(), F_OK) == 0; }

} // namespace zbddc::testing
