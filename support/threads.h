// Fork-join over a few threads, for the CPU work that splits into independent parts.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#ifdef __linux__
#include <sched.h>
#endif
#include <thread>
#include <vector>

namespace zbddc {

// The cores this process may run on: its CPU affinity where the system says (a process that
// mpirun, taskset or a container binds to fewer cores than the machine has gets that many), else
// the hardware threads. At least one.
inline unsigned availableCores() {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return std::max(1, CPU_COUNT(&set));
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

// `requested` threads, or one per available core where it is 0.
inline unsigned threadsOrCores(unsigned requested) {
    return requested ? requested : availableCores();
}

// Threads for `items` items of work where a thread is worth starting for `perThread` of them:
// between one and one per core.
inline unsigned threadsFor(size_t items, size_t perThread) {
    return static_cast<unsigned>(std::clamp<size_t>(items / perThread, 1, threadsOrCores(0)));
}

// Parked threads that fork-joins hand their parts to: a junction tree's levels fork and join
// hundreds of times a case, and starting and joining a thread each time cost more than the work
// of most levels. The caller runs part 0 and then every part no worker has taken, and waits only
// for parts a worker is running: a join never waits on a thread the system has not scheduled, and
// nested fork-joins finish (each caller can finish its own parts alone). The parts of one call
// must not wait on each other; none here does.
class WorkerPool {
  public:
    static WorkerPool &instance() {
        static auto *pool = new WorkerPool; // never destroyed: workers may outlive main's return
        return *pool;
    }

    void run(size_t n, const std::function<void(size_t)> &part) {
        if (n <= 1) {
            if (n == 1)
                part(0);
            return;
        }
        Batch b{&part, n};
        {
            std::lock_guard lock(mutex_);
            // A free worker for every part not yet taken: a fork-join inside a part (a case's
            // program inside a batch of few cases) runs its parts at the same time too, as threads
            // of its own did.
            unclaimed_ += n - 1;
            while (workers_ - busy_ < unclaimed_ && workers_ < kMaxWorkers) {
                std::thread(&WorkerPool::work, this).detach();
                ++workers_;
            }
            queue_.push_back(&b);
        }
        for (size_t i = 1; i < n; ++i)
            wake_.notify_one();
        std::exception_ptr failed; // rethrown once no worker reads `b` any more
        try {
            part(0);
            for (size_t i; (i = claim(b)) < n;)
                part(i);
        } catch (...) {
            failed = std::current_exception();
        }
        std::unique_lock lock(mutex_);
        unclaimed_ -= n - std::min(b.next, n); // parts a failure left untaken
        b.next = n;
        std::erase(queue_, &b); // no worker takes a part of it from here on
        b.finished.wait(lock, [&] { return b.running == 0; });
        if (failed)
            std::rethrow_exception(failed);
    }

  private:
    static constexpr size_t kMaxWorkers = 1024;
    struct Batch {
        Batch(const std::function<void(size_t)> *p, size_t count) : part(p), n(count) {}
        const std::function<void(size_t)> *part;
        size_t n;
        size_t next = 1;    // the next part to take, under mutex_
        size_t running = 0; // parts workers are running, under mutex_
        std::condition_variable finished;
    };

    size_t claimLocked(Batch &b) {
        const size_t i = b.next < b.n ? b.next++ : b.n;
        unclaimed_ -= i < b.n;
        return i;
    }
    size_t claim(Batch &b) {
        std::lock_guard lock(mutex_);
        return claimLocked(b);
    }

    void work() {
        std::unique_lock lock(mutex_);
        for (;;) {
            wake_.wait(lock, [&] { return !queue_.empty(); });
            Batch *b = queue_.front();
            const size_t i = claimLocked(*b);
            if (i >= b->n) { // every part taken: no more for anyone
                std::erase(queue_, b);
                continue;
            }
            ++b->running;
            ++busy_;
            lock.unlock();
            (*b->part)(i);
            lock.lock();
            --busy_;
            if (--b->running == 0)
                b->finished.notify_all();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<Batch *> queue_;
    size_t workers_ = 0, busy_ = 0; // threads started; of them, running a part
    size_t unclaimed_ = 0;          // parts queued and not yet taken, every batch's
};

// Runs work(t) for t = 0..n-1, work(0) on the calling thread and the others on the pool's
// workers where they are free (else on the calling thread too), and returns when all have
// finished.
template <class Work> void onThreads(size_t n, const Work &work) {
    WorkerPool::instance().run(n, [&](size_t t) { work(t); });
}

// work(begin, end) over [0, n), split in contiguous ranges over `threads` threads (one range
// where n is below two per thread).
template <class Work> void inRanges(unsigned threads, size_t n, const Work &work) {
    if (threads <= 1 || n < 2 * size_t{threads}) {
        work(size_t{0}, n);
        return;
    }
    onThreads(threads, [&](size_t t) { work(n * t / threads, n * (t + 1) / threads); });
}

} // namespace zbddc
