// Lee's wavefront (PMPP Fig. 15.5) on a stack of routing layers joined by vias, computed
// as GAMER (Lin et al., "GAMER: GPU-Accelerated Maze Routing", TCAD 2023) computes
// routing costs: min-plus sweeps along every row of the layers whose wires run along x,
// along every column of the layers whose wires run along y, and up and down every via
// column, repeated until a whole round changes nothing. Relaxation is monotone (every
// value is the cost of some path), so that fixpoint is the shortest-path field.
//
// Many searches run in one launch: each is a box (x0, y0, w, h) spanning every layer,
// with its own distances packed at its offset in `dist`. Either one thread sweeps one
// line of one box, a launch a sweep, and a box whose last round changed nothing has
// converged and is skipped; or one block runs one box's every round (grid3d_boxes).
// Host side: mazeroute/engines/gpu_grid3d.py.
//
// -DOWNED=1: the mask is the router's board in routing ranks: -2 blocked, -1 free,
// r >= 0 a wire of the net of rank r, -3 - r a pin of the net of rank r. A cell is free
// for a box of owner rank o when it is free, o's own, or a wire of a later rank: a net
// routed one at a time never sees the wires of nets after it, so searches of several
// ranks can share one board (the router checks that what a search saw still holds).
// -DOWNED=0: when the byte mask free[cell] is non-zero.
typedef unsigned int u32;
typedef unsigned long long u64;

#define UNREACHED 0xFFFFFFFFu

#ifndef OWNED
#define OWNED 0
#endif

#if OWNED
typedef int mask_t;
#define IS_FREE(m, g, owner) ((m)[g] == -1 || (m)[g] == (owner) || (m)[g] == -3 - (owner) \
                              || (m)[g] > (owner))
#else
typedef unsigned char mask_t;
#define IS_FREE(m, g, owner) ((m)[g] != 0)
#endif

// A box as the host packs it: BOX_INTS ints each (x0, y0, w, h, owner, unused).
#define BOX_INTS 6

struct Line {
    int b, x0, y0, w, h, owner;
    long long off;
};

__device__ __forceinline__ bool line_of(const int* box, const long long* off,
                                        const int* line_box, const int* line_first,
                                        const int* active, int t, Line& ln, int& j) {
    ln.b = line_box[t];
    if (!active[ln.b]) return false;
    const int* bx = box + BOX_INTS * ln.b;
    ln.x0 = bx[0]; ln.y0 = bx[1]; ln.w = bx[2]; ln.h = bx[3]; ln.owner = bx[4];
    ln.off = off[ln.b];
    j = t - line_first[ln.b];
    return true;
}

// Relax one step into cell g: entering it costs `step`. Returns the cell's new value.
__device__ __forceinline__ u32 relax(u32* d, u32 prev, u64 step, bool& any) {
    u32 cur = *d;
    if (prev != UNREACHED) {
        u64 cand = (u64)prev + step;
        if (cand < (u64)cur) { cur = (u32)cand; *d = cur; any = true; }
    }
    return cur;
}

// One row, both ways along x: d its distances, g its first cell's global index.
__device__ __forceinline__ bool sweep_row(u32* d, const mask_t* mask, long long g, int w,
                                          int owner, const unsigned short* cost, int unit) {
    bool any = false;
    u32 prev = UNREACHED;
    for (int x = 0; x < w; ++x) {
        if (!IS_FREE(mask, g + x, owner)) { prev = UNREACHED; continue; }
        prev = relax(d + x, prev, unit ? 1u : (u64)cost[g + x], any);
    }
    prev = UNREACHED;
    for (int x = w - 1; x >= 0; --x) {
        if (!IS_FREE(mask, g + x, owner)) { prev = UNREACHED; continue; }
        prev = relax(d + x, prev, unit ? 1u : (u64)cost[g + x], any);
    }
    return any;
}

// One column of h cells, both ways along y: d its first distance (rows w apart), g its
// first cell's global index (rows W apart).
__device__ __forceinline__ bool sweep_col(u32* d, const mask_t* mask, long long g, int w,
                                          int h, int W, int owner,
                                          const unsigned short* cost, int unit) {
    bool any = false;
    u32 prev = UNREACHED;
    for (int y = 0; y < h; ++y) {
        const long long gy = g + (long long)y * W;
        if (!IS_FREE(mask, gy, owner)) { prev = UNREACHED; continue; }
        prev = relax(d + (long long)y * w, prev, unit ? 1u : (u64)cost[gy], any);
    }
    prev = UNREACHED;
    for (int y = h - 1; y >= 0; --y) {
        const long long gy = g + (long long)y * W;
        if (!IS_FREE(mask, gy, owner)) { prev = UNREACHED; continue; }
        prev = relax(d + (long long)y * w, prev, unit ? 1u : (u64)cost[gy], any);
    }
    return any;
}

// One via column, up then down through the layers: d its distance on layer 0 (layers
// `plane` apart), g its cell's global index on layer 0 (layers `gplane` apart). A via
// from layer z to z + 1 needs both cells free and, with sites,
// sites[g + z * gplane]; entering a cell by a via costs via_cost times the cell's cost.
__device__ __forceinline__ bool sweep_via(u32* d, long long plane, const mask_t* mask,
                                          long long g, long long gplane, int layers,
                                          int owner, const unsigned short* cost, int unit,
                                          const unsigned char* sites, int has_sites,
                                          u32 via_cost) {
    bool any = false;
    u32 prev = UNREACHED;
    for (int z = 0; z < layers; ++z) {
        const long long gz = g + z * gplane;
        if (!IS_FREE(mask, gz, owner)) { prev = UNREACHED; continue; }
        if (z > 0 && has_sites && !sites[g + (z - 1) * gplane]) prev = UNREACHED;
        prev = relax(d + z * plane, prev, (u64)via_cost * (unit ? 1u : cost[gz]), any);
    }
    prev = UNREACHED;
    for (int z = layers - 1; z >= 0; --z) {
        const long long gz = g + z * gplane;
        if (!IS_FREE(mask, gz, owner)) { prev = UNREACHED; continue; }
        if (z < layers - 1 && has_sites && !sites[g + z * gplane]) prev = UNREACHED;
        prev = relax(d + z * plane, prev, (u64)via_cost * (unit ? 1u : cost[gz]), any);
    }
    return any;
}

// One thread a row (z, y) of a box, both ways along x; rows of layers without x moves
// return at once.
extern "C" __global__ void grid3d_rows(u32* dist, const mask_t* mask,
                                       const unsigned short* cost, int unit,
                                       const signed char* axes, const int* box,
                                       const long long* off, const int* line_box,
                                       const int* line_first, int lines, int H, int W,
                                       const int* active, int* changed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= lines) return;
    Line ln; int j;
    if (!line_of(box, off, line_box, line_first, active, t, ln, j)) return;
    const int z = j / ln.h, y = j - z * ln.h;
    if (!(axes[z] & 1)) return;
    u32* d = dist + ln.off + ((long long)z * ln.h + y) * ln.w;
    const long long g = ((long long)z * H + ln.y0 + y) * W + ln.x0;
    if (sweep_row(d, mask, g, ln.w, ln.owner, cost, unit)) changed[ln.b] = 1;
}

// One thread a column (z, x) of a box, both ways along y; consecutive threads take
// consecutive x, so each step's loads are coalesced.
extern "C" __global__ void grid3d_cols(u32* dist, const mask_t* mask,
                                       const unsigned short* cost, int unit,
                                       const signed char* axes, const int* box,
                                       const long long* off, const int* line_box,
                                       const int* line_first, int lines, int H, int W,
                                       const int* active, int* changed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= lines) return;
    Line ln; int j;
    if (!line_of(box, off, line_box, line_first, active, t, ln, j)) return;
    const int z = j / ln.w, x = j - z * ln.w;
    if (!(axes[z] & 2)) return;
    u32* d = dist + ln.off + (long long)z * ln.h * ln.w + x;
    const long long g = ((long long)z * H + ln.y0) * W + ln.x0 + x;
    if (sweep_col(d, mask, g, ln.w, ln.h, W, ln.owner, cost, unit)) changed[ln.b] = 1;
}

// One thread a via column (y, x) of a box, up then down through the layers.
extern "C" __global__ void grid3d_vias(u32* dist, const mask_t* mask,
                                       const unsigned short* cost, int unit,
                                       const unsigned char* sites, int has_sites,
                                       u32 via_cost, int layers, const int* box,
                                       const long long* off, const int* line_box,
                                       const int* line_first, int lines, int H, int W,
                                       const int* active, int* changed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= lines) return;
    Line ln; int j;
    if (!line_of(box, off, line_box, line_first, active, t, ln, j)) return;
    const int y = j / ln.w, x = j - y * ln.w;
    u32* d = dist + ln.off + (long long)y * ln.w + x;
    const long long g = (long long)(ln.y0 + y) * W + ln.x0 + x;
    if (sweep_via(d, (long long)ln.h * ln.w, mask, g, (long long)H * W, layers, ln.owner,
                  cost, unit, sites, has_sites, via_cost))
        changed[ln.b] = 1;
}

// One block a box, every round of its search in one launch: the box's distances live in
// shared memory, the block's threads take its rows, then its columns, then its via
// columns, a barrier between, until a round changes nothing. For boxes whose distances
// fit in a block's shared memory: a launch of the three kernels above a round costs
// more than such a box's whole search. rounds[b]: the rounds box b ran.
extern "C" __global__ void grid3d_boxes(u32* dist, const mask_t* mask,
                                        const unsigned short* cost, int unit,
                                        const signed char* axes,
                                        const unsigned char* sites, int has_sites,
                                        u32 via_cost, int layers, const int* box,
                                        const long long* off, int H, int W, int* rounds) {
    extern __shared__ u32 sd[];
    __shared__ int changed[2];      // a round's flag; the other is cleared for the next
    const int* bx = box + BOX_INTS * blockIdx.x;
    const int x0 = bx[0], y0 = bx[1], w = bx[2], h = bx[3], owner = bx[4];
    const long long plane = (long long)h * w, size = plane * layers;
    const long long gplane = (long long)H * W;
    u32* gd = dist + off[blockIdx.x];
    for (long long i = threadIdx.x; i < size; i += blockDim.x) sd[i] = gd[i];
    if (threadIdx.x == 0) changed[0] = changed[1] = 0;
    __syncthreads();
    int round = 0;
    for (;; ++round) {
        bool any = false;
        for (int j = threadIdx.x; j < layers * h; j += blockDim.x) {
            const int z = j / h, y = j - z * h;
            if (axes[z] & 1)
                any |= sweep_row(sd + (long long)j * w, mask,
                                 (z * gplane + (long long)(y0 + y) * W) + x0, w, owner,
                                 cost, unit);
        }
        __syncthreads();
        for (int j = threadIdx.x; j < layers * w; j += blockDim.x) {
            const int z = j / w, x = j - z * w;
            if (axes[z] & 2)
                any |= sweep_col(sd + z * plane + x, mask,
                                 z * gplane + (long long)y0 * W + x0 + x, w, h, W, owner,
                                 cost, unit);
        }
        __syncthreads();
        if (layers > 1) {
            for (int j = threadIdx.x; j < h * w; j += blockDim.x) {
                const int y = j / w, x = j - y * w;
                any |= sweep_via(sd + j, plane, mask, (long long)(y0 + y) * W + x0 + x,
                                 gplane, layers, owner, cost, unit, sites, has_sites,
                                 via_cost);
            }
        }
        if (any) changed[round & 1] = 1;
        __syncthreads();
        const int more = changed[round & 1];
        if (threadIdx.x == 0) changed[(round + 1) & 1] = 0;   // read by none until the
        if (!more) break;                                     // next round's barriers
    }
    for (long long i = threadIdx.x; i < size; i += blockDim.x) gd[i] = sd[i];
    if (threadIdx.x == 0) rounds[blockIdx.x] = round + 1;
}
