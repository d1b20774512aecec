// Files and folders that a fatal signal must not leave behind (out.zdd.tmp.PID,
// out.so.tmp.PID, /tmp/zbddc-XXXXXX): code registers them while they exist, and the handler
// a program installs (installCleanupOnSignal, in main only: a library must not take its host's
// signals) kills the child processes that could write them again, removes them, and dies of the
// same signal, so the shell still reports 128 + signal (130 for SIGINT, 143 for SIGTERM). The
// signals are kFatalSignals: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE
// and SIGXFSZ (a write past `ulimit -f`).
//
// The handler only calls async-signal-safe functions (kill, waitpid, nanosleep, unlink, rmdir,
// open, the getdents64 system call, signal, raise): paths live in fixed slots filled before they
// are published.
//
// A child (the C compiler) is a tree: cc starts collect2, which starts ld, which creates the
// output file. Killing cc alone can leave ld to create and write out.so.tmp.PID after the
// cleanup, so with the handler installed a child leads a process group of its own, which the
// handler kills and reaps (the program is the subreaper of its children's children) before it
// removes anything.
#pragma once

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <string>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace zbddc {

namespace cleanup_detail {

inline constexpr int kPathSlots = 64;
inline constexpr int kChildSlots = 16;
inline constexpr size_t kPathBytes = 4096;

enum : int { kFree = 0, kFile = 1, kFolder = 2, kFilling = 3 };

struct PathSlot {
    std::atomic<int> kind{kFree};
    char path[kPathBytes];
};
inline PathSlot pathSlots[kPathSlots];
inline std::atomic<pid_t> childSlots[kChildSlots]; // process group ids
inline std::atomic<bool> installed{false};
// Every signal whose default action ends the process and that a handler may catch (SIGKILL and
// SIGSTOP cannot be; SIGSEGV and its kind mean the program itself is broken).
inline constexpr int kFatalSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1,
                                        SIGUSR2, SIGALRM, SIGPIPE, SIGXFSZ};

// A folder's entries (our temporary folders hold files only), then the folder. Entries removed
// while reading may be skipped by the listing, so it is read again until it comes back empty.
inline void removeFlatFolder(const char *path) {
    const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        alignas(8) char buf[4096];
        for (int pass = 0; pass < 8; ++pass) {
            bool removed = false;
            ::lseek(fd, 0, SEEK_SET);
            for (long n; (n = ::syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0;)
                for (long at = 0; at < n;) {
                    const auto *entry = reinterpret_cast<const struct dirent64 *>(buf + at);
                    at += entry->d_reclen;
                    const char *name = entry->d_name;
                    if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0)
                        removed = ::unlinkat(fd, name, 0) == 0 || removed;
                }
            if (!removed)
                break;
        }
        ::close(fd);
    }
    ::rmdir(path);
}

// Kills a child's process group and waits until none of it is left: its members that cc or
// collect2 started are reaped here as their subreaper; should that have failed (or the group's
// leader not be ours), the group is polled for at most a second instead.
inline void killGroup(pid_t group) {
    ::kill(-group, SIGKILL);
    while (::waitpid(-group, nullptr, 0) > 0 || errno == EINTR) {
    }
    const struct timespec millisecond = {0, 1000000};
    for (int i = 0; i < 1000 && ::kill(-group, 0) == 0; ++i)
        ::nanosleep(&millisecond, nullptr);
}

inline void onFatalSignal(int signal) {
    for (auto &child : childSlots)
        if (const pid_t group = child.load(); group > 0)
            killGroup(group);
    for (PathSlot &slot : pathSlots) {
        const int kind = slot.kind.load();
        if (kind == kFile)
            ::unlink(slot.path);
        else if (kind == kFolder)
            removeFlatFolder(slot.path);
    }
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

} // namespace cleanup_detail

// Holds one path in the registry from construction until release() or destruction. With every
// slot taken (64 paths at once) the path is simply not covered.
class CleanupOnSignal {
  public:
    enum class Kind { File, Folder };
    CleanupOnSignal() = default;
    CleanupOnSignal(const std::string &path, Kind kind) {
        using namespace cleanup_detail;
        if (path.size() >= kPathBytes)
            return;
        for (PathSlot &slot : pathSlots) {
            int expected = kFree;
            if (!slot.kind.compare_exchange_strong(expected, kFilling))
                continue;
            std::memcpy(slot.path, path.c_str(), path.size() + 1);
            slot.kind.store(kind == Kind::File ? kFile : kFolder);
            slot_ = &slot;
            return;
        }
    }
    CleanupOnSignal(const CleanupOnSignal &) = delete;
    CleanupOnSignal &operator=(const CleanupOnSignal &) = delete;
    CleanupOnSignal(CleanupOnSignal &&other) noexcept : slot_(other.slot_) { other.slot_ = nullptr; }
    CleanupOnSignal &operator=(CleanupOnSignal &&other) noexcept {
        if (this != &other) {
            release();
            slot_ = other.slot_;
            other.slot_ = nullptr;
        }
        return *this;
    }
    ~CleanupOnSignal() { release(); }
    // The path is in place or gone: a signal from now on leaves it alone.
    void release() {
        if (slot_)
            slot_->kind.store(cleanup_detail::kFree);
        slot_ = nullptr;
    }

  private:
    cleanup_detail::PathSlot *slot_ = nullptr;
};

// Holds kFatalSignals back in this thread while a path or child is created and
// registered, so that no signal falls between the two; they are delivered when it ends.
class SignalsHeld {
  public:
    SignalsHeld() {
        sigset_t fatal;
        sigemptyset(&fatal);
        for (int signal : cleanup_detail::kFatalSignals)
            sigaddset(&fatal, signal);
        pthread_sigmask(SIG_BLOCK, &fatal, &before_);
    }
    SignalsHeld(const SignalsHeld &) = delete;
    SignalsHeld &operator=(const SignalsHeld &) = delete;
    ~SignalsHeld() { pthread_sigmask(SIG_SETMASK, &before_, nullptr); }
    // The mask from before, for a child spawned meanwhile (it must not inherit the hold).
    const sigset_t &before() const { return before_; }

  private:
    sigset_t before_;
};

// Whether a child about to be spawned should lead a process group of its own, for the handler to
// kill: only with the handler installed. Without it the child stays in its host's group, where a
// terminal's ^C reaches it as it reaches the host.
inline bool childNeedsOwnGroup() { return cleanup_detail::installed.load(); }

// A child process (the C compiler writing a temporary file) spawned as the leader of its own
// process group (where childNeedsOwnGroup says so), that the handler kills with its group and
// waits for before it removes paths, so that none of them can write the paths again afterwards.
// Spawn and watch() under SignalsHeld.
class ChildOnSignal {
  public:
    ChildOnSignal() = default;
    ChildOnSignal(const ChildOnSignal &) = delete;
    ChildOnSignal &operator=(const ChildOnSignal &) = delete;
    void watch(pid_t group) {
        for (auto &child : cleanup_detail::childSlots) {
            pid_t expected = 0;
            if (child.compare_exchange_strong(expected, group)) {
                slot_ = &child;
                return;
            }
        }
    }
    ~ChildOnSignal() {
        if (slot_)
            slot_->store(0);
    }

  private:
    std::atomic<pid_t> *slot_ = nullptr;
};

// kFatalSignals remove what is registered, then end the process as the signal would.
// A signal ignored when the program starts stays ignored (nohup zbddc ... keeps running after a
// hangup). The program becomes the subreaper of its children's children, for killGroup.
inline void installCleanupOnSignal() {
    struct sigaction action {};
    action.sa_handler = cleanup_detail::onFatalSignal;
    sigemptyset(&action.sa_mask);
    for (int signal : cleanup_detail::kFatalSignals)
        sigaddset(&action.sa_mask, signal); // one handler run at a time
    for (int signal : cleanup_detail::kFatalSignals) {
        struct sigaction before {};
        if (::sigaction(signal, nullptr, &before) == 0 && before.sa_handler == SIG_IGN)
            continue;
        ::sigaction(signal, &action, nullptr);
    }
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    cleanup_detail::installed.store(true);
}

} // namespace zbddc
