// A progress line on stderr for long work (multiplying CPTs into an MLF, compiling GPU kernels,
// answering batches): "zbddc: compiling GPU kernels: 12 of 40 (14 s)". By default it appears
// only on a terminal and only once the work has run 2 s; `zbddc --progress` shows it anywhere
// (one line per update, at most one a second), `--quiet` never. The libraries report; the
// program decides (progressMode), and the default keeps library users' stderr quiet when it is
// not a terminal.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <unistd.h>

namespace zbddc {

enum class ProgressMode : int { Auto, On, Off };
inline std::atomic<ProgressMode> progressMode{ProgressMode::Auto};

class ProgressLine {
  public:
    explicit ProgressLine(std::string what)
        : what_(std::move(what)), start_(std::chrono::steady_clock::now()),
          terminal_(::isatty(2) == 1) {}
    ProgressLine(const ProgressLine &) = delete;
    ProgressLine &operator=(const ProgressLine &) = delete;
    ~ProgressLine() {
        if (overwriting_)
            std::fputc('\n', stderr); // the next message starts on a line of its own
    }

    // `done` of `total` steps; thread-safe.
    void update(size_t done, size_t total) {
        const ProgressMode mode = progressMode.load();
        if (mode == ProgressMode::Off || (mode == ProgressMode::Auto && !terminal_))
            return;
        const auto now = std::chrono::steady_clock::now();
        const double elapsed = std::chrono::duration<double>(now - start_).count();
        std::lock_guard<std::mutex> lock(mutex_);
        if ((mode == ProgressMode::Auto && elapsed < 2.0) ||
            (printed_ && std::chrono::duration<double>(now - last_).count() < 1.0 && done < total))
            return;
        last_ = now;
        printed_ = true;
        overwriting_ = terminal_;
        std::fprintf(stderr, "%szbddc: %s: %zu of %zu (%.0f s)%s", terminal_ ? "\r" : "",
                     what_.c_str(), done, total, elapsed, terminal_ ? "" : "\n");
        std::fflush(stderr);
    }

  private:
    std::string what_;
    std::chrono::steady_clock::time_point start_, last_;
    bool terminal_, printed_ = false, overwriting_ = false;
    std::mutex mutex_;
};

} // namespace zbddc
