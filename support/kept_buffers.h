// Scratch buffers kept from one call to the next, up to a byte limit. A buffer of megabytes that
// is freed at the end of a call goes back to the system (glibc maps such blocks on their own),
// so the next call faults its pages in again: one case of insurance's MLF on the CPU took
// 6.0-6.8 ms a call, 1.9-2.0 ms with the same blocks kept (the VM, 2026-12-07). Safe to share
// between threads; a buffer is one thread's until it is given back.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace zbddc {

class KeptBuffers {
  public:
    explicit KeptBuffers(size_t limitBytes) : limitBytes_(limitBytes) {}

    // A buffer of `count` doubles, not zeroed: a kept one of that size where there is one.
    std::unique_ptr<double[]> take(size_t count) {
        {
            std::lock_guard lock(mutex_);
            for (size_t i = 0; i < kept_.size(); ++i)
                if (kept_[i].count == count) {
                    std::unique_ptr<double[]> buffer = std::move(kept_[i].data);
                    keptBytes_ -= count * sizeof(double);
                    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(i));
                    return buffer;
                }
        }
        return std::make_unique_for_overwrite<double[]>(count);
    }
    // Kept for a later take while the limit allows, else freed.
    void give(std::unique_ptr<double[]> buffer, size_t count) {
        std::lock_guard lock(mutex_);
        if (keptBytes_ + count * sizeof(double) > limitBytes_)
            return;
        keptBytes_ += count * sizeof(double);
        kept_.push_back({std::move(buffer), count});
    }

  private:
    struct Kept {
        std::unique_ptr<double[]> data;
        size_t count;
    };
    std::mutex mutex_;
    std::vector<Kept> kept_;
    size_t keptBytes_ = 0;
    size_t limitBytes_;
};

} // namespace zbddc
