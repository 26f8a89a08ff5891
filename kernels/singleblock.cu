// PMPP Fig. 15.16 (B): consecutive small levels in one grid. While the frontier fits
// one block's shared-memory queue, a single block runs level after level with
// __syncthreads() between them instead of one kernel launch per level; when a level's
// frontier overflows the queue it hands back to the multi-block kernel of Fig. 15.12
// (frontier.cu) by leaving that frontier in the global queue.
//
// Protocol with the host (launch with exactly one block):
//   in:  prevFrontier[0 .. numPrevFrontier), numPrevFrontier <= SINGLE_BLOCK_CAPACITY,
//        currLevel = the first level to label; *numCurrFrontier == 0.
//   out: the last level run is currLevel + *extraLevels. *numCurrFrontier holds the
//        size of that level's frontier, which is in currFrontier[0 .. *numCurrFrontier):
//        0 means the wavefront is complete, more than SINGLE_BLOCK_CAPACITY means it
//        overflowed and the host continues with the multi-block kernel.
//        *targetVisited is set when that level labelled a target (the block stops then).
#include "bfs_common.cuh"

#ifndef SINGLE_BLOCK_CAPACITY
#define SINGLE_BLOCK_CAPACITY 4096
#endif

extern "C" __global__ void singleblock_kernel(const unsigned int* srcPtrs,
                                              const unsigned int* dst, unsigned int* level,
                                              const unsigned int* prevFrontier,
                                              unsigned int* currFrontier,
                                              unsigned int numPrevFrontier,
                                              unsigned int* numCurrFrontier,
                                              unsigned int currLevel,
                                              const unsigned char* isTarget,
                                              unsigned int* targetVisited,
                                              unsigned int* extraLevels) {
    __shared__ unsigned int frontier_s[2][SINGLE_BLOCK_CAPACITY];
    __shared__ unsigned int numCurrFrontier_s;
    __shared__ unsigned int targetVisited_s;
    unsigned int* prevFrontier_s = frontier_s[0];
    unsigned int* currFrontier_s = frontier_s[1];
    const unsigned int firstLevel = currLevel;

    for (unsigned int i = threadIdx.x; i < numPrevFrontier; i += blockDim.x) {
        prevFrontier_s[i] = prevFrontier[i];
    }
    if (threadIdx.x == 0) {
        numCurrFrontier_s = 0;
        targetVisited_s = 0;
    }
    __syncthreads();

    while (true) {
        for (unsigned int i = threadIdx.x; i < numPrevFrontier; i += blockDim.x) {
            unsigned int vertex = prevFrontier_s[i];
            for (unsigned int edge = srcPtrs[vertex]; edge < srcPtrs[vertex + 1]; ++edge) {
                unsigned int neighbor = dst[edge];
                if (atomicCAS(&level[neighbor], UINT_MAX, currLevel) == UINT_MAX) {
                    unsigned int currFrontierIdx_s = atomicAdd(&numCurrFrontier_s, 1);
                    if (currFrontierIdx_s < SINGLE_BLOCK_CAPACITY) {
                        currFrontier_s[currFrontierIdx_s] = neighbor;
                    } else {
                        // Overflow: the same slot of the global queue, so that shared
                        // slots [0, CAPACITY) and these together form one contiguous queue.
                        currFrontier[currFrontierIdx_s] = neighbor;
                    }
                    if (isTarget[neighbor]) {
                        targetVisited_s = 1;
                    }
                }
            }
        }
        // The level is complete: its labels (global) and queue (shared) are visible
        // to the whole block.
        __syncthreads();
        unsigned int numCurr = numCurrFrontier_s;
        if (numCurr == 0 || numCurr > SINGLE_BLOCK_CAPACITY || targetVisited_s) {
            unsigned int numShared = numCurr < SINGLE_BLOCK_CAPACITY
                                         ? numCurr : SINGLE_BLOCK_CAPACITY;
            for (unsigned int i = threadIdx.x; i < numShared; i += blockDim.x) {
                currFrontier[i] = currFrontier_s[i];
            }
            if (threadIdx.x == 0) {
                *numCurrFrontier = numCurr;
                *targetVisited = targetVisited_s;
                *extraLevels = currLevel - firstLevel;
            }
            return;  // uniform: every thread read the same shared values
        }
        unsigned int* swap = prevFrontier_s;
        prevFrontier_s = currFrontier_s;
        currFrontier_s = swap;
        numPrevFrontier = numCurr;
        ++currLevel;
        __syncthreads();  // everyone has read numCurrFrontier_s before it is reset
        if (threadIdx.x == 0) {
            numCurrFrontier_s = 0;
        }
        __syncthreads();
    }
}
