// PMPP Fig. 15.12 (vertex-centric push BFS with frontiers) and Fig. 15.14 (the same
// with a privatized, shared-memory frontier per block).
//
// Threads are launched only for the previous frontier. atomicCAS claims an unvisited
// neighbour (so each vertex enters the next frontier exactly once) and atomicAdd
// appends it; the host stops when *numCurrFrontier stays 0.
#include "bfs_common.cuh"

#ifndef LOCAL_FRONTIER_CAPACITY
// 4 x the block size: on a 4-neighbour grid a block's new vertices always fit.
#define LOCAL_FRONTIER_CAPACITY 1024
#endif

extern "C" __global__ void frontier_kernel(const unsigned int* srcPtrs,
                                           const unsigned int* dst, unsigned int* level,
                                           const unsigned int* prevFrontier,
                                           unsigned int* currFrontier,
                                           unsigned int numPrevFrontier,
                                           unsigned int* numCurrFrontier,
                                           unsigned int currLevel,
                                           const unsigned char* isTarget,
                                           unsigned int* targetVisited) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numPrevFrontier) {
        unsigned int vertex = prevFrontier[i];
        for (unsigned int edge = srcPtrs[vertex]; edge < srcPtrs[vertex + 1]; ++edge) {
            unsigned int neighbor = dst[edge];
            if (atomicCAS(&level[neighbor], UINT_MAX, currLevel) == UINT_MAX) {
                unsigned int currFrontierIdx = atomicAdd(numCurrFrontier, 1);
                currFrontier[currFrontierIdx] = neighbor;
                noteTarget(isTarget, targetVisited, neighbor);
            }
        }
    }
}

extern "C" __global__ void privatized_kernel(const unsigned int* srcPtrs,
                                             const unsigned int* dst, unsigned int* level,
                                             const unsigned int* prevFrontier,
                                             unsigned int* currFrontier,
                                             unsigned int numPrevFrontier,
                                             unsigned int* numCurrFrontier,
                                             unsigned int currLevel,
                                             const unsigned char* isTarget,
                                             unsigned int* targetVisited) {
    // Initialize privatized frontier
    __shared__ unsigned int currFrontier_s[LOCAL_FRONTIER_CAPACITY];
    __shared__ unsigned int numCurrFrontier_s;
    if (threadIdx.x == 0) {
        numCurrFrontier_s = 0;
    }
    __syncthreads();

    // Perform BFS
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numPrevFrontier) {
        unsigned int vertex = prevFrontier[i];
        for (unsigned int edge = srcPtrs[vertex]; edge < srcPtrs[vertex + 1]; ++edge) {
            unsigned int neighbor = dst[edge];
            if (atomicCAS(&level[neighbor], UINT_MAX, currLevel) == UINT_MAX) {
                unsigned int currFrontierIdx_s = atomicAdd(&numCurrFrontier_s, 1);
                if (currFrontierIdx_s < LOCAL_FRONTIER_CAPACITY) {
                    currFrontier_s[currFrontierIdx_s] = neighbor;
                } else {
                    // Overflow: this vertex goes straight to the global frontier.
                    // (The book also stores LOCAL_FRONTIER_CAPACITY back into
                    // numCurrFrontier_s here; that plain store races with the other
                    // threads' atomicAdds, so the count is clamped below instead.)
                    unsigned int currFrontierIdx = atomicAdd(numCurrFrontier, 1);
                    currFrontier[currFrontierIdx] = neighbor;
                }
                noteTarget(isTarget, targetVisited, neighbor);
            }
        }
    }
    __syncthreads();
    unsigned int numLocal = numCurrFrontier_s < LOCAL_FRONTIER_CAPACITY
                                ? numCurrFrontier_s : LOCAL_FRONTIER_CAPACITY;

    // Allocate in global frontier
    __shared__ unsigned int currFrontierStartIdx;
    if (threadIdx.x == 0) {
        currFrontierStartIdx = atomicAdd(numCurrFrontier, numLocal);
    }
    __syncthreads();

    // Commit to global frontier (consecutive threads store consecutive words)
    for (unsigned int currFrontierIdx_s = threadIdx.x; currFrontierIdx_s < numLocal;
         currFrontierIdx_s += blockDim.x) {
        unsigned int currFrontierIdx = currFrontierStartIdx + currFrontierIdx_s;
        currFrontier[currFrontierIdx] = currFrontier_s[currFrontierIdx_s];
    }
}
