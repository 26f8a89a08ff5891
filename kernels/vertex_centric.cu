// PMPP Fig. 15.6 (vertex-centric push, top-down) and Fig. 15.8 (vertex-centric pull,
// bottom-up) BFS kernels: one thread per vertex, the host loops while
// *newVertexVisited is set.
//
// The book passes CSRGraph / CSCGraph structs; here their arrays are separate
// parameters (srcPtrs, dst for CSR; dstPtrs, src for CSC) so that the host can hand
// over CuPy arrays directly. isTarget / targetVisited add the early exit of maze
// routing (stop at the level where a target pin is reached).
#include "bfs_common.cuh"

extern "C" __global__ void push_kernel(const unsigned int* srcPtrs, const unsigned int* dst,
                                       unsigned int numVertices, unsigned int* level,
                                       unsigned int* newVertexVisited, unsigned int currLevel,
                                       const unsigned char* isTarget,
                                       unsigned int* targetVisited) {
    unsigned int vertex = blockIdx.x * blockDim.x + threadIdx.x;
    if (vertex < numVertices) {
        if (level[vertex] == currLevel - 1) {
            for (unsigned int edge = srcPtrs[vertex]; edge < srcPtrs[vertex + 1]; ++edge) {
                unsigned int neighbor = dst[edge];
                if (level[neighbor] == UINT_MAX) {  // Neighbor not visited
                    // Several threads may write the same neighbor: all write currLevel.
                    level[neighbor] = currLevel;
                    *newVertexVisited = 1;
                    noteTarget(isTarget, targetVisited, neighbor);
                }
            }
        }
    }
}

extern "C" __global__ void pull_kernel(const unsigned int* dstPtrs, const unsigned int* src,
                                       unsigned int numVertices, unsigned int* level,
                                       unsigned int* newVertexVisited, unsigned int currLevel,
                                       const unsigned char* isTarget,
                                       unsigned int* targetVisited) {
    unsigned int vertex = blockIdx.x * blockDim.x + threadIdx.x;
    if (vertex < numVertices) {
        if (level[vertex] == UINT_MAX) {  // Vertex not yet visited
            for (unsigned int edge = dstPtrs[vertex]; edge < dstPtrs[vertex + 1]; ++edge) {
                unsigned int neighbor = src[edge];
                if (level[neighbor] == currLevel - 1) {
                    level[vertex] = currLevel;
                    *newVertexVisited = 1;
                    noteTarget(isTarget, targetVisited, vertex);
                    break;
                }
            }
        }
    }
}
