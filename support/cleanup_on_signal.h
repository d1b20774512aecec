// Files and folders that a fatal signal must not leave behind (out.zdd.tmp.PID,
// .out.so.partial-PID, /tmp/zbddc-XXXXXX): code registers them while they exist, and the handler
// a program installs (installCleanupOnSignal, in main only: a library must not take its host's
// signals) kills the child processes that could write them again, removes them, and dies of the
// same signal, so the shell still reports 128 + signal (130 for SIGINT, 143 for SIGTERM).
//
// The handler only calls async-signal-safe functions (kill, waitpid, unlink, rmdir, open, the
// getdents64 system call): paths live in fixed slots filled before they are published.
#pragma once

#include <atomic>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
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
inline std::atomic<pid_t> childSlots[kChildSlots];

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

inline void onFatalSignal(int signal) {
    for (auto &child : childSlots)
        if (const pid_t pid = child.load(); pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
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

// A child process (the C compiler writing a .partial file) that the handler kills and waits for
// before it removes paths, so that the child cannot write them again afterwards.
class ChildOnSignal {
  public:
    explicit ChildOnSignal(pid_t pid) {
        for (auto &child : cleanup_detail::childSlots) {
            pid_t expected = 0;
            if (child.compare_exchange_strong(expected, pid)) {
                slot_ = &child;
                return;
            }
        }
    }
    ChildOnSignal(const ChildOnSignal &) = delete;
    ChildOnSignal &operator=(const ChildOnSignal &) = delete;
    ~ChildOnSignal() {
        if (slot_)
            slot_->store(0);
    }

  private:
    std::atomic<pid_t> *slot_ = nullptr;
};

// SIGINT, SIGTERM and SIGHUP remove what is registered, then end the process as the signal would.
inline void installCleanupOnSignal() {
    struct sigaction action {};
    action.sa_handler = cleanup_detail::onFatalSignal;
    sigemptyset(&action.sa_mask);
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        sigaddset(&action.sa_mask, signal); // one handler run at a time
    for (int signal : {SIGINT, SIGTERM, SIGHUP})
        ::sigaction(signal, &action, nullptr);
}

} // namespace zbddc
