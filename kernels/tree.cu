// PMPP section 15.2's wavefront levels (Fig. 15.5 A) for a layout whose free cells form a
// forest (a perfect maze: one path between any two cells), computed without walking the
// levels at all: the level of a cell is its depth in the tree rooted at the source, and
// depths come from an Euler tour ranked by pointer jumping (Tarjan & Vishkin's Euler-tour
// technique, Wyllie's list ranking). Work O(n log n), ~log2(n) parallel rounds instead of
// ~100,000 dependent levels.
//
// Arcs: arc 4c + d leaves cell c in direction d (0 up, 1 right, 2 down, 3 left: clockwise)
// and exists when c and its neighbour are free; `inv` maps an arc to its compact index
// (-1: no arc), `ids` back. In a tree, "leave the next cell by the first arc clockwise
// after the one you came in on" walks every arc once: the Euler tour. The host cuts the
// tour before the root's first arc, ranks it (tree_rank, ~log2 arcs times), and then an
// arc u->v goes down the tree iff it comes before its reverse v->u in the tour; the depth
// of v is the number of down arcs minus up arcs up to its down arc (a prefix sum over
// tour positions). The engine uses this only when the layout's free cells form a forest
// (checked on the host: edges == cells - components), which stays true as wires are
// committed, since those only take cells away.

#define END (-1)

__device__ __forceinline__ bool is_free(const unsigned long long* freeBits, int wordsPerRow,
                                        int width, int height, int x, int y) {
    if (x < 0 || y < 0 || x >= width || y >= height) return false;
    return (freeBits[(size_t)y * wordsPerRow + (x >> 6)] >> (x & 63)) & 1ull;
}

__device__ __forceinline__ int step_x(int x, int d) { return x + (d == 1) - (d == 3); }
__device__ __forceinline__ int step_y(int y, int d) { return y + (d == 2) - (d == 0); }

// exists[4c + d] = 1 when arc 4c + d exists.
extern "C" __global__ void tree_arcs(const unsigned long long* freeBits, int wordsPerRow,
                                     int width, int height, unsigned char* exists) {
    long long n = (long long)width * height;
    for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < n;
         c += (long long)gridDim.x * blockDim.x) {
        int y = (int)(c / width), x = (int)(c - (long long)y * width);
        bool here = is_free(freeBits, wordsPerRow, width, height, x, y);
        for (int d = 0; d < 4; ++d)
            exists[4 * c + d] = here && is_free(freeBits, wordsPerRow, width, height,
                                                step_x(x, d), step_y(y, d));
    }
}

// The tour's successor of every arc (compact indices), cut at the arc before `firstArc`.
extern "C" __global__ void tree_succ(const int* ids, const int* inv, int numArcs, int width,
                                     int firstArc, int* next, int* val) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numArcs) return;
    int a = ids[i];
    int c = a >> 2, d = a & 3;
    int y = c / width, x = c - y * width;
    int v = step_y(y, d) * width + step_x(x, d);
    int back = (d + 2) & 3;
    int succ = inv[4 * v + back];            // a leaf sends the walk straight back
    for (int k = 1; k < 4; ++k) {
        int e = inv[4 * v + ((back + k) & 3)];
        if (e >= 0) {
            succ = e;
            break;
        }
    }
    next[i] = (ids[succ] == firstArc) ? END : succ;
    val[i] = 1;
}

// One round of Wyllie's list ranking: val[i] becomes the number of arcs from i to the end.
extern "C" __global__ void tree_rank(const int* next, const int* val, int* nextOut,
                                     int* valOut, int numArcs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numArcs) return;
    int j = next[i];
    if (j == END) {
        nextOut[i] = END;
        valOut[i] = val[i];
    } else {
        nextOut[i] = next[j];
        valOut[i] = val[i] + val[j];
    }
}

// Tour position of each arc of the root's tree (-1 elsewhere) and its +-1 depth step,
// scattered to its position.
extern "C" __global__ void tree_steps(const int* ids, const int* inv, const int* next,
                                      const int* val, int numArcs, int width, int firstArc,
                                      int* pos, int* step) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numArcs) return;
    if (next[i] != END) {                     // another component: never reaches the cut
        pos[i] = -1;
        return;
    }
    int length = val[inv[firstArc]];
    int a = ids[i];
    int c = a >> 2, d = a & 3;
    int y = c / width, x = c - y * width;
    int v = step_y(y, d) * width + step_x(x, d);
    int r = inv[4 * v + ((d + 2) & 3)];
    int p = length - val[i];
    pos[i] = p;
    step[p] = (p < length - val[r]) ? 1 : -1;
}

// level[v] = depth of v: the prefix sum of the steps at v's down arc.
extern "C" __global__ void tree_levels(const int* ids, const int* pos, const int* step,
                                       const int* depth, int numArcs, int width,
                                       unsigned int* level) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= numArcs) return;
    int p = pos[i];
    if (p < 0 || step[p] < 0) return;
    int a = ids[i];
    int c = a >> 2, d = a & 3;
    int y = c / width, x = c - y * width;
    level[step_y(y, d) * width + step_x(x, d)] = (unsigned int)depth[p];
}
