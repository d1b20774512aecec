// Just enough of CUDA's execution model to run generated kernels on the host in a test: thread
// and block indices as thread-locals, a block's threads as std::threads meeting at a barrier for
// __syncthreads(), the dynamic shared array per block, warp shuffles (through the block's barrier,
// so every thread of the block must reach them, as in the kernels that use them), the atomics and
// bit casts the loopy BP kernels use, and the multiply-high of the generic tensor kernels. A check
// of the kernels' logic where there is no GPU, not of their speed.
#pragma once

#include <atomic>
#include <barrier>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

namespace zbddc::testing::cuda_host {

using std::exp;
using std::fabs;
using std::fmax;
using std::fmin;
using std::isinf;
using std::log;
struct Dim3 {
    unsigned x = 0, y = 0;
};
inline thread_local Dim3 threadIdx, blockIdx;
inline thread_local Dim3 blockDim, gridDim;
inline thread_local std::barrier<> *emuBarrier = nullptr;
inline thread_local double *emuShared = nullptr;
inline thread_local double *emuExchange = nullptr; // one slot per thread of the block

inline double __longlong_as_double(unsigned long long x) {
    double d;
    std::memcpy(&d, &x, 8);
    return d;
}
inline long long __double_as_longlong(double d) {
    long long x;
    std::memcpy(&x, &d, 8);
    return x;
}
inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long expected,
                                    unsigned long long v) {
    std::atomic_ref<unsigned long long>(*p).compare_exchange_strong(expected, v);
    return expected; // the value seen, as CUDA returns it
}
inline unsigned long long atomicMax(unsigned long long *p, unsigned long long v) {
    std::atomic_ref<unsigned long long> a(*p);
    unsigned long long old = a.load();
    while (old < v && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}

inline double __shfl_down_sync(unsigned, double v, unsigned delta) {
    const unsigned t = threadIdx.x, lane = t % 32;
    emuExchange[t] = v;
    emuBarrier->arrive_and_wait();
    const double r = lane + delta < 32 && t + delta < blockDim.x ? emuExchange[t + delta] : v;
    emuBarrier->arrive_and_wait();
    return r;
}

inline double __shfl_xor_sync(unsigned, double v, int mask) {
    const unsigned t = threadIdx.x;
    emuExchange[t] = v;
    emuBarrier->arrive_and_wait();
    const unsigned from = t ^ static_cast<unsigned>(mask);
    const double r = from < blockDim.x ? emuExchange[from] : v;
    emuBarrier->arrive_and_wait();
    return r;
}

inline unsigned __umulhi(unsigned a, unsigned b) {
    return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}

// A streaming store is a store (its cache hint means nothing here).
template <class T> inline void __stcs(T *at, T value) {
    *at = value;
}

// A kernel without barriers: every thread of every block in turn.
template <class Kernel> void launch(unsigned grid, unsigned block, Kernel kernel) {
    for (unsigned b = 0; b < grid; ++b)
        for (unsigned t = 0; t < block; ++t) {
            blockIdx.x = b, threadIdx.x = t, blockDim.x = block, gridDim.x = grid;
            kernel();
        }
}

// A kernel with __syncthreads() or shuffles: each block's threads run together.
template <class Kernel>
void launchBlocks(unsigned grid, unsigned block, size_t sharedBytes, Kernel kernel) {
    for (unsigned b = 0; b < grid; ++b) {
        std::vector<double> shared(sharedBytes / 8 + 1), exchange(block);
        std::barrier<> barrier(block);
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([&, t] {
                blockIdx.x = b, threadIdx.x = t, blockDim.x = block, gridDim.x = grid;
                emuBarrier = &barrier;
                emuShared = shared.data();
                emuExchange = exchange.data();
                kernel();
            });
        for (std::thread &t : threads)
            t.join();
    }
}

} // namespace zbddc::testing::cuda_host

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(threads)
#define __syncthreads() emuBarrier->arrive_and_wait()
