// A scratch folder per test process under the build folder, and the file helpers the tests use on
// what they write there. The folder is emptied on first use: it is named by the process id, and
// an earlier process with the same id left its files there (a test that checks a file is not
// written then found the old one).
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace zbddc::testing {

inline std::string scratchDir() {
    static const std::string dir = [] {
        std::string d =
            std::string(ZBDDC_BINARY_DIR) + "/test-scratch-" + std::to_string(::getpid());
        std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "'").c_str());
        return d;
    }();
    return dir;
}

inline std::string writeScratch(const std::string &name, const std::string &text) {
    const std::string path = scratchDir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

inline std::string slurp(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline bool exists(const std::string &path) {
    return ::access(path.c_str(), F_OK) == 0;
}

} // namespace zbddc::testing
