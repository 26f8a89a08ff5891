// The Rodinia BFS of the ROCm "Multi-kernel programming: breadth-first search"
// tutorial (no PMPP figure; compare Fig. 15.6): Kernel1 expands the masked frontier
// into g_updating_graph_mask, Kernel2 commits it, marks it visited and sets *g_over,
// which the host loop reads after each pair of launches.
//
// As in the tutorial, Node{starting, no_of_edges} adjacency lists; g_graph_cost is
// mazeroute's level array (unsigned). g_graph_visited starts as level != UINT_MAX,
// so blocked vertices count as visited and are never labelled.
#include "bfs_common.cuh"

struct Node {
    int starting;     // starting index in the edge list
    int no_of_edges;  // number of outgoing edges
};

extern "C" __global__ void Kernel1(const Node* g_graph_nodes, const int* g_graph_edges,
                                   bool* g_graph_mask, bool* g_updating_graph_mask,
                                   const bool* g_graph_visited, unsigned int* g_graph_cost,
                                   int no_of_nodes) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && g_graph_mask[tid]) {
        g_graph_mask[tid] = false;
        for (int i = g_graph_nodes[tid].starting;
             i < g_graph_nodes[tid].starting + g_graph_nodes[tid].no_of_edges; i++) {
            int id = g_graph_edges[i];
            if (!g_graph_visited[id]) {
                // Every writer of id is on the same level, so they all write one value.
                g_graph_cost[id] = g_graph_cost[tid] + 1;
                g_updating_graph_mask[id] = true;
            }
        }
    }
}

extern "C" __global__ void Kernel2(bool* g_graph_mask, bool* g_updating_graph_mask,
                                   bool* g_graph_visited, bool* g_over, int no_of_nodes,
                                   const unsigned char* isTarget,
                                   unsigned int* targetVisited) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes && g_updating_graph_mask[tid]) {
        g_graph_mask[tid] = true;
        g_graph_visited[tid] = true;
        *g_over = true;
        g_updating_graph_mask[tid] = false;
        noteTarget(isTarget, targetVisited, tid);
    }
}

// Per-wavefront setup (not in the tutorial, whose host code fills these arrays):
// the sources (level 0) form the first mask; everything already labelled or
// blocked counts as visited.
extern "C" __global__ void rodinia_init(const unsigned int* level, bool* g_graph_mask,
                                        bool* g_updating_graph_mask, bool* g_graph_visited,
                                        int no_of_nodes) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < no_of_nodes) {
        unsigned int l = level[tid];
        g_graph_mask[tid] = l == 0;
        g_updating_graph_mask[tid] = false;
        g_graph_visited[tid] = l != UINT_MAX;
    }
}
