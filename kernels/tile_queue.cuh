// The device work queue of tiles shared by the persistent tile kernels (grid.cu, sweep.cu):
// each tile is IDLE, QUEUED, RUNNING or DIRTY (LINGERING: grid.cu only), so it is queued at
// most once and never worked on by two warps at once; a warp that improves a neighbour's
// halo activates it; idle warps dequeue; a pending-work counter reaching zero ends the run.
// The includer may define STAT(i, v) (a probe counter) first.
#pragma once

#ifndef STAT
#define STAT(i, v) ((void)0)
#endif

// tile states
#define IDLE 0
#define QUEUED 1
#define RUNNING 2
#define DIRTY 3
#define LINGERING 4                    // idle, but its last warp still holds the tile's levels
#define EMPTY (-1)
#define SRC_FLAG 0x40000000

// counters[] slots, one 128-byte line each
#define HEAD 0
#define TAIL 32
#define PENDING 64
#define DONE 96
#define NUM_COUNTERS 128

#ifndef SLEEP_MAX
#define SLEEP_MAX 256                  // longest back-off (ns) of a warp waiting for work
#endif

#ifndef FENCE_SC
#define FENCE_SC 0                     // 1: __threadfence() (sequentially consistent)
#endif

// Every hand-over here is message passing (data, then a flag: a state CAS or a queue
// slot; the reader takes the flag, then fences, then reads), so an acquire-release fence
// suffices; no store-buffering pattern needs the costlier sequentially consistent one.
static __device__ __forceinline__ void fence() {
#if defined(MAZEROUTE_EMU)
    std::atomic_thread_fence(std::memory_order_seq_cst);    // tests/cuda_emu.h's CPU
#elif FENCE_SC
    __threadfence();
#else
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#endif
}

static __device__ __forceinline__ int ld_volatile(const int* p) {
#if defined(MAZEROUTE_EMU)
    return std::atomic_ref<int>(*const_cast<int*>(p)).load();
#else
    return *((const volatile int*)p);
#endif
}

// A CAS with release semantics at GPU scope: every memory operation of this thread before
// it (program order) is visible to a thread that reads its value and then fences (acquire).
static __device__ __forceinline__ int cas_release(int* p, int expected, int desired) {
#if defined(MAZEROUTE_EMU)
    return atomicCAS(p, expected, desired);                  // sequentially consistent
#else
    int old;
    asm volatile("atom.release.gpu.global.cas.b32 %0, [%1], %2, %3;"
                 : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
    return old;
#endif
}

// Append a tile to the work queue (any lane). The pending count must rise before any
// consumer can take the item, or a consumer on another SM could finish it and bring
// PENDING to zero first, ending the run with work queued. Relaxed atomics on two
// addresses are not ordered, so the slot is published by a release CAS: the increment
// precedes it, and a consumer takes the item by an atomic exchange and fences before it
// works and decrements (dequeue's callers), so its decrement follows our increment in
// PENDING's coherence order.
static __device__ void push(int* queue, int* counters, unsigned qmask, int item) {
    atomicAdd(&counters[PENDING], 1);
    unsigned pos = atomicAdd((unsigned*)&counters[TAIL], 1u);
    int* slot = &queue[pos & qmask];
    while (cas_release(slot, EMPTY, item) != EMPTY) __nanosleep(64);
}

// Tell tile t that a halo cell of it improved (lane 0 only; the caller has fenced its
// writes). With claim, an idle tile is taken by the caller instead of queued (returns 1):
// the caller's pending count then passes to it, so the caller does not give its own back
// when it finishes the tile in hand (no counter round trip on the way to the next tile).
static __device__ int activate(int* state, int* queue, int* counters, unsigned qmask, int t,
                               bool claim) {
    // The CAS comes first: a wide wavefront mostly finds its neighbours IDLE, and a CAS
    // reports the state it found anyway (one round trip to L2 where a load and a CAS took
    // two). s == IDLE below means that a CAS from IDLE succeeded: the tile is ours.
    const int target = claim ? RUNNING : QUEUED;
    int s = atomicCAS(&state[t], IDLE, target);
    while (true) {
        if (s == IDLE) {
            if (claim) {
                STAT(11, 1);
                return 1;
            }
            push(queue, counters, qmask, t);
            STAT(4, 1);
            return 0;
        }
        if (s == QUEUED || s == DIRTY) return 0;   // it reads its halo after our writes
        const int seen = atomicCAS(&state[t], s, DIRTY);      // RUNNING or LINGERING
        if (seen == s) {
            STAT(5, 1);
            return 0;
        }
        s = seen == IDLE ? atomicCAS(&state[t], IDLE, target) : seen;
    }
}

// Take the next tile (lane 0 only); -1 when all work is done.
static __device__ int dequeue(int* queue, int* counters, unsigned qmask) {
    unsigned pos = atomicAdd((unsigned*)&counters[HEAD], 1u);
    int* slot = &queue[pos & qmask];
    unsigned ns = 32;
    for (int spin = 1;; ++spin) {
        if (ld_volatile(slot) != EMPTY) {
            int v = atomicExch(slot, EMPTY);
            if (v != EMPTY) return v;
        }
        if ((spin & 7) == 0 && ld_volatile(&counters[DONE])) return -1;
        __nanosleep(ns);
        if (ns < SLEEP_MAX) ns <<= 1;
    }
}

