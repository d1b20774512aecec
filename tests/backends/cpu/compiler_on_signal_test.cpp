// The C compiler is a tree of processes (cc, collect2, ld) and ld creates its output when it
// starts: a fatal signal must kill the whole tree before the temporary file is removed, or a
// survivor writes it again afterwards. A shell script stands in for the compiler, with a
// grandchild that writes the temporary file (and a witness outside) a second after it starts.
#include "backends/cpu/shared_object.h"
#include "support/cleanup_on_signal.h"

#include "tests/catch.hpp"
#include "tests/support/scratch.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace zbddc;
namespace fs = std::filesystem;

namespace {

// Runs `body` in a forked child, which exits 0 if it returns true, else 1 (3 if it throws: the
// child must never return into the test runner); returns the child's pid.
pid_t startChild(const std::function<bool()> &body) {
    const pid_t pid = fork();
    if (pid == 0) {
        for (int signal : {SIGINT, SIGTERM, SIGHUP}) // as a program starts, not Catch's handlers
            std::signal(signal, SIG_DFL);
        try {
            _exit(body() ? 0 : 1);
        } catch (...) {
            _exit(3);
        }
    }
    return pid;
}

// Whether some folder in `tmp` holds a file named `name`.
bool someFolderHolds(const fs::path &tmp, const std::string &name) {
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(tmp, ec))
        if (fs::exists(entry.path() / name, ec))
            return true;
    return false;
}

fs::path freshFolder(const std::string &name) {
    const fs::path dir = fs::path(testing::scratchDir()) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

} // namespace

TEST_CASE("a fatal signal kills the compiler's whole process tree before removing its output",
          "[cpu][so][signals]") {
    const fs::path dir = freshFolder("compiler-signal"), tmp = dir / "tmp";
    fs::create_directories(tmp);
    const fs::path target = dir / "model.so", witness = dir / "late-writer-survived";
    // $1 is the temporary file (compileIntoPlace appends -o PARTIAL; $0 is "-o").
    const std::string script = "touch \"$TMPDIR/started\"; (sleep 1; echo late > \"$1\"; "
                               "echo late > '" + witness.string() + "') & sleep 30";
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
        INFO("signal " << signal);
        const pid_t pid = startChild([&] {
            setenv("TMPDIR", tmp.c_str(), 1);
            installCleanupOnSignal();
            TempDir folder;
            if (!folder.create("zbddc"))
                return false;
            return compileIntoPlace({"sh", "-c", script}, target.string(),
                                    (folder.path / "cc.log").string())
                .ok();
        });
        const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!someFolderHolds(tmp, "started") && std::chrono::steady_clock::now() < end)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        const bool started = someFolderHolds(tmp, "started");
        kill(pid, started ? signal : SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        REQUIRE(started);
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == signal);
        // Past the moment the grandchild would have written, had it survived.
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        CHECK_FALSE(fs::exists(witness));
        for (const auto &entry : fs::directory_iterator(dir)) // no model.so.tmp.PID
            CHECK(entry.path().filename() == "tmp");
        CHECK(fs::is_empty(tmp)); // no zbddc-XXXXXX folder
    }
}

TEST_CASE("the compiler leads its own process group only under the handler, no signal held",
          "[cpu][so][signals]") {
    const fs::path dir = freshFolder("compiler-group");
    const fs::path report = dir / "group";
    // The shell's pid, process group (field 5 of /proc/PID/stat; its name "sh" has no space) and
    // blocked signals (the signals held while it was spawned must not stay held in it).
    const std::string script = "echo $$ $(cut -d' ' -f5 /proc/$$/stat) "
                               "$(grep SigBlk /proc/$$/status | cut -f2) > '" +
                               report.string() + "'";
    for (bool handler : {false, true}) {
        INFO("handler installed: " << handler);
        fs::remove(report);
        const pid_t pid = startChild([&] {
            if (handler)
                installCleanupOnSignal();
            return runSystemCompiler({"sh", "-c", script}, (dir / "log").string()).ok();
        });
        int status = 0;
        waitpid(pid, &status, 0);
        REQUIRE(WIFEXITED(status));
        REQUIRE(WEXITSTATUS(status) == 0);
        pid_t shell = 0, group = 0;
        std::string blocked;
        std::ifstream(report) >> shell >> group >> blocked;
        REQUIRE(shell > 0);
        CHECK(blocked == "0000000000000000");
        // Without it the compiler shares the host's group (this test's), where a terminal's ^C
        // reaches it; with it, it leads a group the handler can kill whole.
        CHECK(group == (handler ? shell : getpgrp()));
    }
}
