// PMPP Fig. 15.10: edge-centric BFS kernel over COO, one thread per edge; the host
// loops while *newVertexVisited is set.
//
// The book's COOGraph struct is passed as its arrays (src, dst, numEdges).
#include "bfs_common.cuh"

extern "C" __global__ void edge_kernel(const unsigned int* src, const unsigned int* dst,
                                       unsigned int numEdges, unsigned int* level,
                                       unsigned int* newVertexVisited, unsigned int currLevel,
                                       const unsigned char* isTarget,
                                       unsigned int* targetVisited) {
    unsigned int edge = blockIdx.x * blockDim.x + threadIdx.x;
    if (edge < numEdges) {
        unsigned int vertex = src[edge];
        if (level[vertex] == currLevel - 1) {
            unsigned int neighbor = dst[edge];
            if (level[neighbor] == UINT_MAX) {  // Neighbor not visited
                level[neighbor] = currLevel;
                *newVertexVisited = 1;
                noteTarget(isTarget, targetVisited, neighbor);
            }
        }
    }
}
