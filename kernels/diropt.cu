// Direction-optimized BFS (PMPP section 15.3, end; Beamer, Asanovic and Patterson,
// SC 2012): the push kernel with frontiers of Fig. 15.12 while the frontier is small,
// the pull kernel of Fig. 15.8 while it is large. The host picks the direction per
// level (rule in mazeroute/engines/gpu.py, DirOptProblem).
//
// Both kernels keep the same state so the host can switch at any level: every vertex
// labelled at currLevel is appended to currFrontier (so push can resume after pull),
// and *frontierEdges accumulates the out-degrees of those vertices (Beamer's m_f).
#include "bfs_common.cuh"

extern "C" __global__ void push_frontier_kernel(const unsigned int* srcPtrs,
                                                const unsigned int* dst, unsigned int* level,
                                                const unsigned int* prevFrontier,
                                                unsigned int* currFrontier,
                                                unsigned int numPrevFrontier,
                                                unsigned int* numCurrFrontier,
                                                unsigned int currLevel,
                                                const unsigned char* isTarget,
                                                unsigned int* targetVisited,
                                                unsigned int* frontierEdges) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numPrevFrontier) {
        unsigned int vertex = prevFrontier[i];
        for (unsigned int edge = srcPtrs[vertex]; edge < srcPtrs[vertex + 1]; ++edge) {
            unsigned int neighbor = dst[edge];
            if (atomicCAS(&level[neighbor], UINT_MAX, currLevel) == UINT_MAX) {
                unsigned int currFrontierIdx = atomicAdd(numCurrFrontier, 1);
                currFrontier[currFrontierIdx] = neighbor;
                atomicAdd(frontierEdges, srcPtrs[neighbor + 1] - srcPtrs[neighbor]);
                noteTarget(isTarget, targetVisited, neighbor);
            }
        }
    }
}

extern "C" __global__ void pull_frontier_kernel(const unsigned int* dstPtrs,
                                                const unsigned int* src,
                                                const unsigned int* srcPtrs,
                                                unsigned int numVertices, unsigned int* level,
                                                unsigned int* currFrontier,
                                                unsigned int* numCurrFrontier,
                                                unsigned int currLevel,
                                                const unsigned char* isTarget,
                                                unsigned int* targetVisited,
                                                unsigned int* frontierEdges) {
    unsigned int vertex = blockIdx.x * blockDim.x + threadIdx.x;
    if (vertex < numVertices) {
        if (level[vertex] == UINT_MAX) {  // Vertex not yet visited
            for (unsigned int edge = dstPtrs[vertex]; edge < dstPtrs[vertex + 1]; ++edge) {
                unsigned int neighbor = src[edge];
                if (level[neighbor] == currLevel - 1) {
                    // Only this thread writes level[vertex]: no atomic needed.
                    level[vertex] = currLevel;
                    unsigned int currFrontierIdx = atomicAdd(numCurrFrontier, 1);
                    currFrontier[currFrontierIdx] = vertex;
                    atomicAdd(frontierEdges, srcPtrs[vertex + 1] - srcPtrs[vertex]);
                    noteTarget(isTarget, targetVisited, vertex);
                    break;
                }
            }
        }
    }
}
