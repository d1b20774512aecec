// SIGINT, SIGTERM, SIGHUP and the other terminating signals a process can catch (SIGQUIT, SIGUSR1,
// SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ) while zbddc writes a model.so or a .zdd: the process dies of
// the signal (the shell reports 130, 143 or 129) and leaves no temporary file (out.zdd.tmp.PID,
// out.so.tmp.PID) and no temporary folder (TMPDIR/zbddc-XXXXXX) behind; the target is either
// absent or whole. Started as nohup starts it, a hangup does not stop it.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <poll.h>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace zbddc::testing;
namespace fs = std::filesystem;

namespace {

// A chain of `n` four-state variables: compiling 1500 of them into a .so takes a few seconds here.
std::string chainNetwork(const std::string &path, int n = 1500) {
    std::ofstream out(path);
    out << "network chain { }\n";
    for (int i = 0; i < n; ++i)
        out << "variable X" << i << " { type discrete [ 4 ] { a, b, c, d }; }\n";
    out << "probability ( X0 ) { table 0.25, 0.25, 0.25, 0.25; }\n";
    for (int i = 1; i < n; ++i)
        out << "probability ( X" << i << " | X" << i - 1 << " ) { (a) 0.7, 0.1, 0.1, 0.1; "
            << "(b) 0.1, 0.7, 0.1, 0.1; (c) 0.1, 0.1, 0.7, 0.1; (d) 0.1, 0.1, 0.1, 0.7; }\n";
    return path;
}

// Every signal that ends a process by default and that it can catch.
constexpr int kTerminating[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,
                                SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ};

// Whether `dir` holds an entry whose name contains `part`.
bool holds(const fs::path &dir, const std::string &part) {
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec))
        if (entry.path().filename().string().find(part) != std::string::npos)
            return true;
    return false;
}

// Starts zbddc INPUT -o OUTPUT with TMPDIR set, its output thrown away; with `ignoreHangup` as
// `nohup` starts it (SIGHUP ignored across exec).
pid_t startZbddc(const std::string &input, const std::string &output, const std::string &tmpdir,
                 bool ignoreHangup = false) {
    const pid_t pid = fork();
    if (pid == 0) {
        for (int signal : kTerminating) // as a shell starts it, not as Catch left them
            std::signal(signal, signal == SIGHUP && ignoreHangup ? SIG_IGN : SIG_DFL);
        const rlimit noCore{0, 0}; // SIGQUIT and SIGXFSZ would dump a core
        setrlimit(RLIMIT_CORE, &noCore);
        setenv("TMPDIR", tmpdir.c_str(), 1);
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(ZBDDC_EXE, ZBDDC_EXE, input.c_str(), "-o", output.c_str(), (char *)nullptr);
        _exit(127);
    }
    return pid;
}

// Signals `pid` once `ready` says so (polled every 2 ms) or after `timeout`; returns its wait
// status.
int signalWhen(pid_t pid, int signal, const std::function<bool()> &ready,
               std::chrono::milliseconds timeout) {
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

// Whether the model.so of a chain network is whole: it loads and answers P(X0=a, X1=b) =
// 0.25 * 0.1 (the chain's first two tables) in the UAI PR format (log10).
bool answersChain(const std::string &so) {
    const Outcome run = runZbddc("run '" + so + "' --task pr --evidence X0=a,X1=b");
    std::istringstream lines(run.out);
    std::string task;
    double log10 = 0;
    return run.exitCode == 0 && (lines >> task >> log10) && task == "PR" &&
           std::abs(log10 - std::log10(0.025)) < 1e-9;
}

// Only `expected` names in `dir`.
void checkHoldsOnly(const fs::path &dir, const std::vector<std::string> &expected) {
    for (const auto &entry : fs::directory_iterator(dir)) {
        INFO("left behind: " << entry.path());
        CHECK(std::find(expected.begin(), expected.end(), entry.path().filename()) !=
              expected.end());
    }
}

} // namespace

TEST_CASE("a signal while writing a model.so leaves nothing behind", "[cli][signals][hostile]") {
    const fs::path dir = fs::path(scratchDir()) / "signals";
    const fs::path tmp = dir / "tmp";
    fs::create_directories(tmp);
    const std::string input = chainNetwork((dir / "chain.bif").string());
    const std::string output = (dir / "out.so").string();
    // The moments: while the object files sit in a temporary folder, while the C compiler writes
    // out.so.tmp.PID (it is killed too: else it would finish the file after the cleanup),
    // and at fixed times through the compile.
    struct Moment {
        std::string name;
        std::function<bool()> ready;
        int timeoutMs;
    };
    const Moment folder{"temporary folder", [&] { return holds(tmp, "zbddc-"); }, 20000};
    const Moment partial{"partial .so", [&] { return holds(dir, "out.so.tmp."); }, 20000};
    std::vector<std::pair<int, Moment>> runs;
    for (int signal : {SIGINT, SIGTERM}) {
        for (const Moment &moment : {folder, partial})
            runs.push_back({signal, moment});
        for (int ms : {50, 600})
            runs.push_back({signal, {std::to_string(ms) + " ms", [] { return false; }, ms}});
    }
    // The others while the C compiler writes: it must be killed with its process group, else it
    // finishes out.so.tmp.PID after zbddc is gone.
    for (int signal : {SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ})
        runs.push_back({signal, partial});
    size_t signalled = 0;
    for (const auto &[signal, moment] : runs) {
        INFO("signal " << signal << " at: " << moment.name);
        fs::remove(output);
        const int status = signalWhen(startZbddc(input, output, tmp.string()), signal, moment.ready,
                                      std::chrono::milliseconds(moment.timeoutMs));
        const bool finished = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == signal;
        CHECK((finished || killed));
        signalled += killed;
        checkHoldsOnly(dir, {"chain.bif", "tmp", "out.so"});
        CHECK(fs::is_empty(tmp)); // no zbddc-XXXXXX folder left
        if (fs::exists(output))
            CHECK(answersChain(output));
    }
    CHECK(signalled >= 13); // the moments were reached, not all runs finished first
}

TEST_CASE("a signal while writing a .zdd removes the half-written temporary file",
          "[cli][signals][hostile]") {
    const fs::path dir = fs::path(scratchDir()) / "signals-zdd";
    fs::create_directories(dir);
    // 250 variables: a .zdd of 130 KB, more than a pipe holds.
    const std::string input = chainNetwork((dir / "chain.bif").string(), 250);
    const std::string output = (dir / "out.zdd").string();
    for (int signal : kTerminating) {
        INFO("signal " << signal);
        // zbddc writes out.zdd.tmp.PID: made a FIFO here first, the write blocks in the middle
        // once we have read a little and the pipe is full, and the signal comes then.
        const pid_t pid = startZbddc(input, output, dir.string());
        const std::string tmp = output + ".tmp." + std::to_string(pid);
        REQUIRE(mkfifo(tmp.c_str(), 0644) == 0);
        const int fifo = open(tmp.c_str(), O_RDONLY | O_NONBLOCK);
        pollfd readable{fifo, POLLIN, 0};
        for (int i = 0; i < 200 && poll(&readable, 1, 100) == 0;) // up to 20 s for zbddc to write
            i += waitpid(pid, nullptr, WNOHANG) == 0 ? 1 : 200;   // not if it died meanwhile
        char some[4096];
        const ssize_t got = read(fifo, some, sizeof some);
        const int status = signalWhen(pid, signal, [] { return true; }, {});
        close(fifo);
        REQUIRE(got > 0);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == signal);
        checkHoldsOnly(dir, {"chain.bif"}); // neither out.zdd.tmp.PID nor out.zdd
    }
}

TEST_CASE("zbddc started with SIGHUP ignored (nohup) finishes its output after a hangup",
          "[cli][signals][hostile]") {
    const fs::path dir = fs::path(scratchDir()) / "signals-nohup";
    const fs::path tmp = dir / "tmp";
    fs::create_directories(tmp);
    const std::string input = chainNetwork((dir / "chain.bif").string(), 250);
    const std::string output = (dir / "out.so").string();
    const int status =
        signalWhen(startZbddc(input, output, tmp.string(), true), SIGHUP,
                   [&] { return holds(tmp, "zbddc-"); }, std::chrono::milliseconds(20000));
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(answersChain(output));
    CHECK(fs::is_empty(tmp));
}
