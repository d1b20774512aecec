// How a DPOP rank waits between empty polls (of its messages, of a collective). Where every rank
// of the host has a core of its own it only yields for its first kSpinMs idle, so a message is
// taken within the poll's latency however long the rank has waited: a sleep that grew with the
// time idle made each rank along a chain of hops later than the one before (16 ranks on 16
// cores: 16-agent instances in 2-6 ms against 0.2-0.4 ms centralised). Past kSpinMs, and
// always where ranks share cores, it sleeps an eighth of the time idle (10-250 µs), leaving the
// cores to the busy ranks and their executors' threads.
#pragma once

#include "support/timer.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <sys/prctl.h>

namespace zbddc {

// Whether `ranksOnHost` ranks each have a core of this host to themselves.
inline bool ranksHaveOwnCores(int ranksOnHost) {
    return static_cast<unsigned>(ranksOnHost) <= std::thread::hardware_concurrency();
}

class IdleWait {
  public:
    static constexpr double kSpinMs = 20;

    explicit IdleWait(bool ownCores) : ownCores_(ownCores) {
        // The short sleeps as asked: Linux lets a sleep overrun by the thread's timer slack,
        // 50 µs by default, five times the shortest sleep here.
        ::prctl(PR_SET_TIMERSLACK, 1000UL);
    }

    // After a poll that found nothing.
    void pause() {
        if (!idle_) {
            idle_ = true;
            idleSince_ = std::chrono::steady_clock::now();
        }
        const double idleMs = msSince(idleSince_);
        if (ownCores_ && idleMs < kSpinMs) {
            std::this_thread::yield();
            return;
        }
        const double us = std::clamp(1000 * idleMs / 8, 10.0, 250.0);
        std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int>(us)));
    }
    // After a poll that found work: the next wait starts afresh.
    void reset() { idle_ = false; }

  private:
    bool ownCores_;
    bool idle_ = false;
    std::chrono::steady_clock::time_point idleSince_;
};

} // namespace zbddc
