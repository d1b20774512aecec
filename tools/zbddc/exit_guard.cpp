// The process's one exit path: an exception no command caught (std::bad_alloc from a size a file
// asked for, above all) becomes one line and exit 1 instead of an abort, and results that could
// not be written (stdout on a full disk, a closed pipe) fail the run instead of vanishing.
#include "tools/zbddc/commands.h"
#include "support/cleanup_on_signal.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <new>

namespace {

// Flushes stdout and reports a write error with the OS's reason; false when output was lost.
bool stdoutWritten() {
    errno = 0;
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        const int err = errno;
        std::cerr << "zbddc: cannot write the results to standard output"
                  << (err ? std::string(": ") + std::strerror(err) : std::string()) << "\n";
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char **argv) {
    zbddc::installCleanupOnSignal(); // no terminating signal leaves a temporary file behind
    int status = 1;
    try {
        status = zbddc::cli::parseAndRun(argc, argv);
    } catch (const std::bad_alloc &) {
        std::cerr << "zbddc: out of memory (the input asks for more than this machine has)\n";
        return 1;
    } catch (const std::exception &e) {
        std::cerr << "zbddc: internal error: " << e.what() << "\n";
        return 1;
    }
    if (!stdoutWritten())
        return status == 0 ? 1 : status;
    return status;
}
