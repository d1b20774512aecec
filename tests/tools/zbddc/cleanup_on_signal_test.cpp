// The registry of support/cleanup_on_signal.h in a forked child that raises a signal at a chosen
// point: registered files and folders go, the process dies of the signal, and what was released,
// never registered, or covered by no installed handler (a library's host) stays.
#include "support/cleanup_on_signal.h"

#include "tests/catch.hpp"
#include "tests/support/scratch.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>

using namespace zbddc;
namespace fs = std::filesystem;

namespace {

// Runs `body` in a forked child that exits 0 after it (3 if it throws: the child must never
// return into the test runner); returns the child's wait status.
int inChild(const std::function<void()> &body) {
    const pid_t pid = fork();
    if (pid == 0) {
        for (int signal : {SIGINT, SIGTERM, SIGHUP}) // as a program starts, not Catch's handlers
            std::signal(signal, SIG_DFL);
        try {
            body();
        } catch (...) {
            _exit(3);
        }
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

void touch(const fs::path &path) { std::ofstream(path) << "x"; }

fs::path freshFolder(const std::string &name) {
    const fs::path dir = fs::path(testing::scratchDir()) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

} // namespace

TEST_CASE("a fatal signal removes registered files and folders and kills the process",
          "[cli][signals][hostile]") {
    const fs::path dir = freshFolder("registry");
    const fs::path file = dir / "out.zdd.tmp.1", folder = dir / "zbddc-abc123",
                   released = dir / "renamed.tmp.1", bystander = dir / "input.bif";
    for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
        INFO("signal " << signal);
        const int status = inChild([&] {
            installCleanupOnSignal();
            CleanupOnSignal onFile(file.string(), CleanupOnSignal::Kind::File);
            touch(file);
            CleanupOnSignal onFolder(folder.string(), CleanupOnSignal::Kind::Folder);
            fs::create_directories(folder);
            for (int i = 0; i < 300; ++i) // more entries than one getdents64 buffer holds
                touch(folder / ("part" + std::to_string(i) + ".o"));
            CleanupOnSignal onReleased(released.string(), CleanupOnSignal::Kind::File);
            touch(released);
            onReleased.release(); // renamed into place, say: no longer ours to remove
            touch(bystander);
            std::raise(signal);
        });
        CHECK(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == signal);
        CHECK_FALSE(fs::exists(file));
        CHECK_FALSE(fs::exists(folder));
        CHECK(fs::exists(released));
        CHECK(fs::exists(bystander));
        fs::remove(released);
    }
}

TEST_CASE("a signal ignored when the program starts stays ignored (nohup)", "[cli][signals][hostile]") {
    const fs::path file = freshFolder("registry-nohup") / "out.zdd.tmp.1";
    const int status = inChild([&] {
        std::signal(SIGHUP, SIG_IGN);
        installCleanupOnSignal();
        CleanupOnSignal onFile(file.string(), CleanupOnSignal::Kind::File);
        touch(file);
        std::raise(SIGHUP);
        onFile.release();
    });
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(fs::exists(file));
}

TEST_CASE("registering paths takes no signal: without the handler, a signal removes nothing",
          "[cli][signals][hostile]") {
    const fs::path file = freshFolder("registry-library") / "out.zdd.tmp.1";
    const int status = inChild([&] {
        CleanupOnSignal onFile(file.string(), CleanupOnSignal::Kind::File);
        touch(file);
        std::raise(SIGTERM);
    });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == SIGTERM);
    CHECK(fs::exists(file));
}
