// SIGINT and SIGTERM while zbddc writes a model.so: the process dies of the signal (the shell
// reports 130 or 143) and leaves no temporary file (out.so.tmp.PID, .out.so.partial-PID) and no
// temporary folder (TMPDIR/zbddc-XXXXXX) behind; the target is either absent or whole.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace zbddc::testing;
namespace fs = std::filesystem;

namespace {

// A chain of 1500 four-state variables: compiling it into a .so takes a few seconds here.
std::string chainNetwork(const std::string &path) {
    std::ofstream out(path);
    out << "network chain { }\n";
    for (int i = 0; i < 1500; ++i)
        out << "variable X" << i << " { type discrete [ 4 ] { a, b, c, d }; }\n";
    out << "probability ( X0 ) { table 0.25, 0.25, 0.25, 0.25; }\n";
    for (int i = 1; i < 1500; ++i)
        out << "probability ( X" << i << " | X" << i - 1 << " ) { (a) 0.7, 0.1, 0.1, 0.1; "
            << "(b) 0.1, 0.7, 0.1, 0.1; (c) 0.1, 0.1, 0.7, 0.1; (d) 0.1, 0.1, 0.1, 0.7; }\n";
    return path;
}

// Whether `dir` holds an entry whose name contains `part`.
bool holds(const fs::path &dir, const std::string &part) {
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec))
        if (entry.path().filename().string().find(part) != std::string::npos)
            return true;
    return false;
}

// zbddc INPUT -o OUTPUT with TMPDIR set, signalled once `ready` says so (polled every 2 ms) or
// after `timeout`; returns the wait status.
int runAndSignal(const std::string &input, const std::string &output, const std::string &tmpdir,
                 int signal, const std::function<bool()> &ready, std::chrono::milliseconds timeout) {
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("TMPDIR", tmpdir.c_str(), 1);
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(ZBDDC_EXE, ZBDDC_EXE, input.c_str(), "-o", output.c_str(), (char *)nullptr);
        _exit(127);
    }
    const auto end = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (!ready() && std::chrono::steady_clock::now() < end)
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status; // finished before the moment came
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    kill(pid, signal);
    waitpid(pid, &status, 0);
    return status;
}

} // namespace

TEST_CASE("a signal while writing a model.so leaves nothing behind", "[cli][signals]") {
    const fs::path dir = fs::path(scratchDir()) / "signals";
    const fs::path tmp = dir / "tmp";
    fs::create_directories(tmp);
    const std::string input = chainNetwork((dir / "chain.bif").string());
    const std::string output = (dir / "out.so").string();
    // The moments: while the object files sit in a temporary folder, while the C compiler writes
    // .out.so.partial-PID (it is killed too: else it would finish the file after the cleanup),
    // and at fixed times through the compile.
    struct Moment {
        std::string name;
        std::function<bool()> ready;
        int timeoutMs;
    };
    std::vector<Moment> moments = {
        {"temporary folder", [&] { return holds(tmp, "zbddc-"); }, 20000},
        {"partial .so", [&] { return holds(dir, ".partial-"); }, 20000}};
    for (int ms : {50, 600, 1500})
        moments.push_back({std::to_string(ms) + " ms", [] { return false; }, ms});
    size_t signalled = 0;
    for (int signal : {SIGINT, SIGTERM})
        for (const Moment &moment : moments) {
            INFO("signal " << signal << " at: " << moment.name);
            fs::remove(output);
            const int status = runAndSignal(input, output, tmp.string(), signal, moment.ready,
                                            std::chrono::milliseconds(moment.timeoutMs));
            const bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == signal;
            CHECK((finished || killed));
            signalled += killed;
            for (const auto &entry : fs::directory_iterator(dir))
                CHECK((entry.path().filename() == "chain.bif" || entry.path().filename() == "tmp" ||
                       entry.path().filename() == "out.so"));
            CHECK(fs::is_empty(tmp)); // no zbddc-XXXXXX folder left
            if (fs::exists(output)) // whole: it loads and answers
                CHECK(runZbddc("run '" + output + "' --task pr").exitCode == 0);
        }
    CHECK(signalled >= 6); // the moments were reached, not all runs finished first
}
