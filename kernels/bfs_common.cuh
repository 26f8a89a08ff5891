// Shared definitions of the PMPP chapter 15 BFS kernels (Figs. 15.6-15.16).
//
// Vertex ids, pointers and levels are 32-bit unsigned, as in the book. A level of
// UINT_MAX means "not visited yet"; blocked vertices hold BLOCKED_LEVEL, so every
// "unvisited" test (level == UINT_MAX) skips them without a test of its own.
#pragma once

#ifndef UINT_MAX
#define UINT_MAX 0xffffffffu
#endif

#define BLOCKED_LEVEL 0xfffffffeu

// Early exit: when a kernel labels a vertex that the host marked as a target, it
// raises *targetVisited, and the host stops once that level is complete.
__device__ __forceinline__ void noteTarget(const unsigned char* isTarget,
                                           unsigned int* targetVisited,
                                           unsigned int vertex) {
    if (isTarget[vertex]) {
        *targetVisited = 1;
    }
}
