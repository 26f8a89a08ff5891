// The CUDA that mazeroute's kernels use, emulated on the CPU for the kernels' tests
// (tests/weighted_emu.cpp, tests/congestion_emu.cpp): a launch's blocks run one after
// another, each by `threads` OS threads that meet at std::barrier where a kernel calls
// __syncthreads() (runBlocks), or every (block, thread) in turn on one thread for
// kernels without barriers (runSerial). Atomics are std::atomic_ref.
#pragma once
#include <atomic>
#include <barrier>
#include <thread>
#include <utility>
#include <vector>

struct Dim {
    unsigned x, y, z;
};
static thread_local Dim threadIdx{0, 0, 0};
static Dim blockIdx{0, 0, 0}, blockDim{1, 1, 1}, gridDim{1, 1, 1};
static std::barrier<>* g_bar = nullptr;
static std::atomic<int> g_or[3];
static thread_local unsigned t_calls = 0;

#define __global__
#define __device__
#define __forceinline__ inline
#ifndef __shared__
#define __shared__
#endif
#define __launch_bounds__(n)
template <class T>
static inline T __ldg(const T* p) { return *p; }
template <class T>
static inline T __ldcg(const T* p) { return *p; }
static inline void __syncthreads() { g_bar->arrive_and_wait(); }
// Slot k of call k % 3: thread 0 clears the next call's slot before this call's barrier,
// after every thread has read it two calls ago.
static inline int __syncthreads_or(int p) {
    const unsigned k = t_calls++ % 3;
    if (threadIdx.x == 0) g_or[(k + 1) % 3].store(0);
    if (p) g_or[k].fetch_or(1);
    g_bar->arrive_and_wait();
    return g_or[k].load();
}
template <class T>
static inline T atomicAdd(T* p, T v) {
    return std::atomic_ref<T>(*p).fetch_add(v);
}
template <class T>
static inline T atomicCAS(T* p, T expected, T desired) {
    std::atomic_ref<T>(*p).compare_exchange_strong(expected, desired);
    return expected;                 // the value found (desired's slot when it matched)
}
template <class T>
static inline T atomicSub(T* p, T v) {
    return std::atomic_ref<T>(*p).fetch_sub(v);
}
template <class T>
static inline T atomicOr(T* p, T v) {
    return std::atomic_ref<T>(*p).fetch_or(v);
}
template <class T>
static inline T atomicExch(T* p, T v) {
    return std::atomic_ref<T>(*p).exchange(v);
}
static inline void __nanosleep(unsigned) { std::this_thread::yield(); }
template <class T>
static inline T atomicMax(T* p, T v) {
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v > old && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}
template <class T>
static inline T atomicMin(T* p, T v) {
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}
static inline long long clock64() { return 0; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }


// Every block of a launch in turn, each by `threads` OS threads meeting at barriers.
template <class F>
static int runBlocks(int threads, int blocks, F kernel) {
    if (threads < 1) return -1;
    blockDim.x = (unsigned)threads;
    gridDim.x = (unsigned)blocks;
    for (int b = 0; b < blocks; ++b) {
        blockIdx.x = (unsigned)b;
        std::barrier<> bar(threads);
        g_bar = &bar;
        for (auto& s : g_or) s.store(0);
        std::vector<std::thread> team;
        for (int t = 0; t < threads; ++t)
            team.emplace_back([=] {
                threadIdx.x = (unsigned)t;
                t_calls = 0;
                kernel();
            });
        for (auto& th : team) th.join();
    }
    return 0;
}

// Kernels without barriers: every (block, thread) in turn on this thread.
template <class F>
static int runSerial(int threads, int blocks, F kernel) {
    blockDim.x = (unsigned)threads;
    gridDim.x = (unsigned)blocks;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t) {
            blockIdx.x = (unsigned)b;
            threadIdx.x = (unsigned)t;
            kernel();
        }
    return 0;
}

