#include "bench/child_process.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

namespace zbddc::bench {

ChildRun runChild(const std::vector<std::string> &argv, double limit) {
    ChildRun r;
    if (!onPath(argv.at(0))) {
        r.missing = true;
        return r;
    }
    const auto t0 = Clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        std::vector<char *> args;
        for (const auto &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        setpgid(0, 0); // its own group, so that the limit kills cc1 too
        execvp(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    struct rusage usage {};
    for (;;) {
        if (wait4(pid, &status, WNOHANG, &usage) == pid)
            break;
        if (since(t0) > limit) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            wait4(pid, &status, 0, &usage);
            r.timedOut = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.seconds = since(t0);
    r.peakMiB = usage.ru_maxrss / 1024.0;
    r.ok = !r.timedOut && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return r;
}

bool onPath(const std::string &program) {
    if (program.find('/') != std::string::npos)
        return ::access(program.c_str(), X_OK) == 0;
    const char *path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && ::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0)
            return true;
    return false;
}

double selfPeakMiB() {
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss / 1024.0;
}

} // namespace zbddc::bench
