// GAMER (Lin et al., "GAMER: GPU-Accelerated Maze Routing", IEEE TCAD 2023): shortest
// paths over integer cell costs by Bellman-Ford, each round a min-plus sweep of every row
// (left to right and right to left: d[x] = min(d[x], d[x - 1] + cost[x])) then of every
// column, until a sweep changes nothing; applied, as kernels/route_batch.cu does for BFS,
// to many nets per launch: one thread block per net, each in its own box. A block grows
// its net's tree (multi-source searches from the tree so far) and draws each branch with
// the backtrace of mazeroute/engines/weighted.py, so that the wires equal the CPU
// engine's. Host side, and why the results are exact: mazeroute/engines/gpu_weighted.py.
//
// weighted_route: per block, request rec[blockIdx.x] (fields R_* below):
//   * its box's distances and costs (0 for a cell the net may not enter) in shared
//     memory (boxes too big for it are searched in tiles, below);
//   * sources at 0, every other cell INF; sweeps until nothing changes, which is the exact
//     fixpoint: every value is the cost of a real path, and no edge can lower any;
//   * the cheapest pin not yet in the tree (the first of equals) is joined by the
//     backtrace, its cells become sources at 0 and the sweeps resume from the distances
//     they left (still costs of real paths from the grown tree: the fixpoint is exact
//     again); when every pin not in the tree is at INF, the net is unreachable;
//   * the tree's cells (vertex ids) go to the block's scratch segment seg[R_SEG ..]
//     (room for the box's area: a tree never repeats a cell), then to the compact output
//     `out` at an offset taken by one atomicAdd on *used; hdr[R_ROW] = status, cells,
//     offset.
// set_costs: cost[idx[i]] = val[i], the cells a route call names as changed.
//
// Boxes too big for one block's shared memory are searched in tiles (GAMER's sweeps
// again, over the tiles of many nets at once, each box's distances in a region of its own
// at gdist[R_SEG ..], rows bw apart): tiled_init sets a box's distances (INF, the root 0);
// tiled_rounds runs rounds in one cooperative launch: in each, every tile that changed in
// the round before, or beside one that did, loads its distances with a one-cell halo of
// its neighbours' (sources it may not enter), relaxes them to the tile's fixpoint in
// shared memory and writes back what fell; the rounds end when one changes nothing, which
// is the box's exact fixpoint (a tile's last run saw its neighbours' final values: a later
// change beside it would have woken it). tiled_connect then joins a pin as weighted_route
// does (the same connect()); nets with pins left wake all their tiles and the rounds
// resume. tiled_finish writes the results as weighted_route does.

// The host passes these from mazeroute/engines/weighted.py and gpu_weighted.py; the
// fallbacks serve a plain compile check, and tests/test_gpu_weighted_host.py ties them.
#ifndef COST_MAX
#define COST_MAX 65535
#endif
#ifndef DIST_MAX
#define DIST_MAX 4294967294u
#endif
#ifndef BLOCKED_CODE
#define BLOCKED_CODE (-2147483647 - 1)   // cell code of a blocked cell (else: its owner)
#endif
static_assert(COST_MAX >= 1 && COST_MAX <= 0xFFFF, "costs are stored as uint16");
static_assert((unsigned long long)DIST_MAX <= 0xFFFFFFFEull,
              "distances are uint32 with one value left for unreached");
#define INF ((unsigned)(DIST_MAX) + 1u)  // unreached (above DIST_MAX: unreachable)

// request record: int64 fields (gpu_weighted.py REC, R_*)
#define REC 9
#define R_ROW 0      // the request's row in hdr
#define R_NET 1
#define R_X0 2       // box, inclusive
#define R_Y0 3
#define R_X1 4
#define R_Y1 5
#define R_PIN0 6     // pins[R_PIN0 .. R_PIN1): its pins as vertex ids, the root first
#define R_PIN1 7
#define R_SEG 8      // start of its scratch segment in seg
// result header per request (gpu_weighted.py HDR, ST_*): status, cells, offset in out
#define HDR 3
#define ST_OK 1
#define ST_UNREACHABLE 2
#define ST_ERROR 3   // the backtrace found no predecessor (distances not exact: a bug)

// -DPROBE: counters in g_probe (searches, sweeps, backtrace steps, clock cycles of the
// blocks), read by benchmarks/weighted_probe.py
#ifdef PROBE
__device__ unsigned long long g_probe[4];
#define PROBE_ADD(k, x) atomicAdd(g_probe + (k), (unsigned long long)(x))
#else
#define PROBE_ADD(k, x)
#endif

__device__ __forceinline__ unsigned satAdd(unsigned d, unsigned c) {
    return d > INF - c ? INF : d + c;
}

__device__ __forceinline__ bool passable(int code, int net) {
    return code == -1 || code == net;
}

// A box in shared memory: distances, then costs (0: the net may not enter the cell).
// Rows are `pitch` (odd) apart, so that a thread per row touches distinct banks.
struct SharedBox {
    unsigned* d;
    unsigned short* c;
    int pitch;

    __device__ __forceinline__ unsigned* at(int x, int y) const { return d + y * pitch + x; }
    __device__ __forceinline__ unsigned cost(int x, int y) const { return c[y * pitch + x]; }

    __device__ void init(const int* code, const unsigned short* cost, long long base,
                         int width, int net, int bw, int bh) const {
        for (int i = threadIdx.x; i < bw * bh; i += blockDim.x) {
            const int y = i / bw, x = i - y * bw;
            const long long g = base + (long long)y * width + x;
            c[y * pitch + x] = passable(__ldg(code + g), net) ? __ldg(cost + g) : 0;
            d[y * pitch + x] = INF;
        }
    }
};

// A box's distances in a region of global memory of its own (rows bw apart); costs and
// codes read from the grid's arrays (the tiled search's connect()).
struct GlobalBox {
    unsigned* d;
    const unsigned short* c;
    const int* code;
    long long base;
    int width, pitch, net;

    __device__ __forceinline__ unsigned* at(int x, int y) const {
        return d + (long long)y * pitch + x;
    }
    __device__ __forceinline__ unsigned cost(int x, int y) const {
        const long long g = base + (long long)y * width + x;
        return passable(__ldg(code + g), net) ? __ldg(c + g) : 0u;
    }

    // The box of request r: its distances at gdist[R_SEG ..], rows as wide as the box.
    __device__ static GlobalBox of(const long long* r, const int* code,
                                   const unsigned short* cost, unsigned* gdist, int width) {
        GlobalBox b;
        b.d = gdist + r[R_SEG];
        b.c = cost;
        b.code = code;
        b.base = r[R_Y0] * width + r[R_X0];
        b.width = width;
        b.pitch = (int)(r[R_X1] - r[R_X0]) + 1;
        b.net = (int)r[R_NET];
        return b;
    }
};

// One way of a min-plus sweep over the n cells (x + i dx, y + i dy), i = first, first +
// step, ...: a cell the net may enter takes min(its value, carry + its cost), and every
// cell hands its value on as the carry (a source the net may not enter still starts
// paths, at 0); the carry starts at INF. Cells are read SWEEP_CHUNK at a time, so that
// their loads overlap and only the carry chain runs one cell after another.
#define SWEEP_CHUNK 8
template <class Box>
__device__ bool sweepWay(const Box& b, int x, int y, int dx, int dy, int n, int first,
                         int step) {
    bool changed = false;
    unsigned carry = INF;
    for (int k0 = 0; k0 < n; k0 += SWEEP_CHUNK) {
        unsigned c[SWEEP_CHUNK], v[SWEEP_CHUNK];
#pragma unroll
        for (int k = 0; k < SWEEP_CHUNK; ++k) {
            const int i = first + (k0 + k) * step;
            if (k0 + k < n) {
                c[k] = b.cost(x + i * dx, y + i * dy);
                v[k] = *b.at(x + i * dx, y + i * dy);
            }
        }
#pragma unroll
        for (int k = 0; k < SWEEP_CHUNK; ++k) {
            if (k0 + k < n) {
                const unsigned nv = c[k] ? min(v[k], satAdd(carry, c[k])) : v[k];
                if (nv != v[k]) {
                    const int i = first + (k0 + k) * step;
                    *b.at(x + i * dx, y + i * dy) = nv;
                    changed = true;
                }
                carry = nv;
            }
        }
    }
    return changed;
}

// A two-way sweep of a line: left to right (top to bottom), then back.
template <class Box>
__device__ bool sweepLine(const Box& b, int x, int y, int dx, int dy, int n) {
    const bool fwd = sweepWay(b, x, y, dx, dy, n, 0, 1);
    return sweepWay(b, x, y, dx, dy, n, n - 1, -1) || fwd;
}

// Bellman-Ford to the fixpoint: row sweeps, column sweeps, alternately, a thread a line,
// until a sweep other than the first changes nothing (after a full two-way sweep of every
// row, every row edge holds; if the column sweep after it changes nothing, every edge
// holds). Every thread must call it; it ends with a barrier.
template <class Box>
__device__ void relax(const Box& b, int bw, int bh) {
    for (int pass = 0;; ++pass) {
        bool changed = false;
        if (pass & 1) {
            for (int x = threadIdx.x; x < bw; x += blockDim.x)
                changed |= sweepLine(b, x, 0, 0, 1, bh);
        } else {
            for (int y = threadIdx.x; y < bh; y += blockDim.x)
                changed |= sweepLine(b, 0, y, 1, 0, bw);
        }
        if (!__syncthreads_or(changed) && pass > 0) {
            if (threadIdx.x == 0) PROBE_ADD(1, pass + 1);
            break;
        }
    }
}

__shared__ int s_status;   // 0 while the tree grows, then ST_*
__shared__ int s_cells;    // cells in the tree
__shared__ int s_start;    // offset of the tree in out

// Thread 0, after a search: join the cheapest pin not yet in the tree (the first of
// equals) by the backtrace: from it, step to a neighbour n in the box with
// d[n] + cost[cur] == d[cur], the current heading first, else up, left, right, down;
// stop at a cell of distance 0 (the tree). Returns 0 (search again: a pin is still not
// in the tree) or the final status.
template <class Box>
__device__ int connect(const Box& b, const int* pins, long long p0, long long p1, int width,
                       int x0, int y0, int bw, int bh, int* tree) {
    unsigned best = INF;
    int t = -1;
    bool unreached = false;
    for (long long j = p0 + 1; j < p1; ++j) {
        const int p = pins[j];
        const unsigned dv = *b.at(p % width - x0, p / width - y0);
        unreached |= dv == INF;
        if (dv > 0 && dv < best) {              // pins already in the tree add nothing
            best = dv;
            t = p;
        }
    }
    // A pin beyond DIST_MAX of the tree may come within it once the tree has grown
    // towards it: the net fails only when no pin left is reached.
    if (t < 0) return unreached ? ST_UNREACHABLE : ST_OK;
    const long long room = (long long)bw * bh;
    const int n = s_cells;
    int m = 0;
    int cx = t % width - x0, cy = t / width - y0, heading = -1;
    while (true) {
        const unsigned dc = *b.at(cx, cy);
        if (dc == 0) break;
        PROBE_ADD(2, 1);
        if (n + m >= room) return ST_ERROR;
        tree[n + m++] = (y0 + cy) * width + x0 + cx;
        const unsigned want = dc - b.cost(cx, cy);
        int next = -1;
        for (int k = 0; k < 5 && next < 0; ++k) {
            const int dir = k == 0 ? heading : k - 1;
            if (dir < 0 || (k > 0 && dir == heading)) continue;
            const int nx = cx + (dir == 1 ? -1 : dir == 2 ? 1 : 0);
            const int ny = cy + (dir == 0 ? -1 : dir == 3 ? 1 : 0);
            if (nx < 0 || nx >= bw || ny < 0 || ny >= bh) continue;
            if (*b.at(nx, ny) == want) next = dir;
        }
        if (next < 0) return ST_ERROR;
        heading = next;
        cx += next == 1 ? -1 : next == 2 ? 1 : 0;
        cy += next == 0 ? -1 : next == 3 ? 1 : 0;
    }
    // tree[n ..] holds the branch target first: the result lists it from the tree out
    for (int i = n, j = n + m - 1; i < j; ++i, --j) {
        const int v = tree[i];
        tree[i] = tree[j];
        tree[j] = v;
    }
    for (int i = n; i < n + m; ++i) *b.at(tree[i] % width - x0, tree[i] / width - y0) = 0;
    s_cells = n + m;
    for (long long j = p0 + 1; j < p1; ++j) {   // another search only if a pin is left
        const int p = pins[j];
        if (*b.at(p % width - x0, p / width - y0) != 0) return 0;
    }
    return ST_OK;
}

// The result of request r: its header (status, cells, offset taken by one atomicAdd on
// *used) and its tree copied to out. Every thread of the block calls it; the barrier first
// lets status and cells be read from shared memory that thread 0 then rewrites.
__device__ void writeResult(const long long* r, int status, int cells, const int* tree,
                            int* out, int* hdr, int* used) {
    __syncthreads();
    if (threadIdx.x == 0) {
        const int n = status == ST_OK ? cells : 0;
        const int start = n ? atomicAdd(used, n) : 0;
        int* h = hdr + r[R_ROW] * HDR;
        h[0] = status;
        h[1] = n;
        h[2] = start;
        s_cells = n;
        s_start = start;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < s_cells; i += blockDim.x) out[s_start + i] = tree[i];
}

template <class Box>
__device__ void routeNet(const Box& b, const long long* r, const int* code,
                         const unsigned short* cost, const int* pins, int width, int* seg,
                         int* out, int* hdr, int* used) {
    const int net = (int)r[R_NET];
    const int x0 = (int)r[R_X0], y0 = (int)r[R_Y0];
    const int bw = (int)r[R_X1] - x0 + 1, bh = (int)r[R_Y1] - y0 + 1;
    const long long p0 = r[R_PIN0], p1 = r[R_PIN1];
    int* tree = seg + r[R_SEG];
#ifdef PROBE
    const long long t0 = clock64();
#endif
    b.init(code, cost, (long long)y0 * width + x0, width, net, bw, bh);
    __syncthreads();
    if (threadIdx.x == 0) {
        const int root = pins[p0];
        *b.at(root % width - x0, root / width - y0) = 0;
        tree[0] = root;
        s_cells = 1;
        s_status = p1 - p0 > 1 ? 0 : ST_OK;
    }
    __syncthreads();
    while (s_status == 0) {
        relax(b, bw, bh);
        if (threadIdx.x == 0) {
            PROBE_ADD(0, 1);
            s_status = connect(b, pins, p0, p1, width, x0, y0, bw, bh, tree);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) PROBE_ADD(3, clock64() - t0);
    writeResult(r, s_status, s_cells, tree, out, hdr, used);
}

// rec: count records; code: per cell BLOCKED_CODE or its owner (-1: nobody); cost: per
// cell; pins: vertex ids; dynamic shared memory: the largest box's distances and costs.
extern "C" __global__ void __launch_bounds__(1024)
weighted_route(const long long* rec, int count, const int* __restrict__ code,
               const unsigned short* __restrict__ cost, const int* __restrict__ pins,
               int width, int* seg, int* out, int* hdr, int* used) {
    if ((int)blockIdx.x >= count) return;
    const long long* r = rec + (long long)blockIdx.x * REC;
    extern __shared__ unsigned smem[];
    const int bw = (int)(r[R_X1] - r[R_X0]) + 1, bh = (int)(r[R_Y1] - r[R_Y0]) + 1;
    SharedBox b;
    b.pitch = bw | 1;
    b.d = smem;
    b.c = (unsigned short*)(smem + bh * b.pitch);
    routeNet(b, r, code, cost, pins, width, seg, out, hdr, used);
}

extern "C" __global__ void set_costs(const int* __restrict__ idx, const int* __restrict__ val,
                                     int n, unsigned short* cost) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        cost[idx[i]] = (unsigned short)val[i];
}

// -- tiles ---------------------------------------------------------------------------
// tiles: (k, i, j) int32 triples, tile column i and row j of request k (its record at
// rec + k * REC); a request's tiles are consecutive, row by row, from tfirst[k].
// state: per request (status: 0 while its tree grows, then ST_*; cells in its tree).
#ifndef TILE
#define TILE 62                 // cells of a tile's side; with the halo, a thread a line
#endif
#define TILE_LINES (TILE + 2)
#ifndef MAX_ROUNDS
#define MAX_ROUNDS 16384        // round counters of tiled_rounds (gpu_weighted.py MAX_ROUNDS)
#endif
static_assert(MAX_ROUNDS >= 4, "tiled_rounds clears a counter two rounds ahead of its use, "
              "while the one of the round before may still be read");
#define TILE_PITCH (TILE_LINES | 1)

// a tile's distances with their halo, and its costs (0: not to be entered), in the shared
// memory of its block
__shared__ unsigned s_tileD[TILE_LINES * TILE_PITCH];
__shared__ unsigned short s_tileC[TILE_LINES * TILE_PITCH];

struct TileAt {
    int k, bw, bh, x, y, w, h, ntx, nty;    // its box's size; its origin and size in it
};

__device__ __forceinline__ TileAt tileAt(const long long* rec, const int* tiles, int t) {
    TileAt a;
    a.k = tiles[3 * t];
    const long long* r = rec + (long long)a.k * REC;
    a.bw = (int)(r[R_X1] - r[R_X0]) + 1;
    a.bh = (int)(r[R_Y1] - r[R_Y0]) + 1;
    a.x = tiles[3 * t + 1] * TILE;
    a.y = tiles[3 * t + 2] * TILE;
    a.w = min(TILE, a.bw - a.x);
    a.h = min(TILE, a.bh - a.y);
    a.ntx = (a.bw + TILE - 1) / TILE;
    a.nty = (a.bh + TILE - 1) / TILE;
    return a;
}

extern "C" __global__ void __launch_bounds__(TILE_LINES)
tiled_init(const long long* rec, const int* tiles, int ntiles, const int* __restrict__ pins,
           int width, unsigned* gdist, int* seg, int* state, int* prev) {
    const int t = blockIdx.x;
    if (t >= ntiles) return;
    const TileAt a = tileAt(rec, tiles, t);
    const long long* r = rec + (long long)a.k * REC;
    unsigned* d = gdist + r[R_SEG];
    const int root = pins[r[R_PIN0]];
    const int rx = root % width - (int)r[R_X0], ry = root / width - (int)r[R_Y0];
    for (int c = threadIdx.x; c < a.w * a.h; c += blockDim.x) {
        const int x = a.x + c % a.w, y = a.y + c / a.w;
        d[(long long)y * a.bw + x] = x == rx && y == ry ? 0u : INF;
    }
    if (threadIdx.x == 0) {
        prev[t] = 1;
        if (rx >= a.x && rx < a.x + a.w && ry >= a.y && ry < a.y + a.h) {
            seg[r[R_SEG]] = root;
            state[2 * a.k] = r[R_PIN1] - r[R_PIN0] > 1 ? 0 : ST_OK;
            state[2 * a.k + 1] = 1;
        }
    }
}

// One round's work on tile t: if it or a neighbour changed in the round before (prev), its
// distances with a one-cell halo of its neighbours' are relaxed to the tile's fixpoint in
// shared memory and what fell is written back; cur[t] tells whether anything fell, and
// *moved counts the tiles where something did. Every thread of the block calls it.
__device__ void relaxTile(int t, const long long* rec, const int* tiles,
                          const int* __restrict__ code, const unsigned short* __restrict__ cost,
                          unsigned* gdist, int width, const int* prev, int* cur, int* moved) {
    unsigned* sd = s_tileD;
    unsigned short* sc = s_tileC;
    const TileAt a = tileAt(rec, tiles, t);
    const int i = a.x / TILE, j = a.y / TILE;
    const bool awake = prev[t] || (i > 0 && prev[t - 1]) || (i + 1 < a.ntx && prev[t + 1])
                       || (j > 0 && prev[t - a.ntx]) || (j + 1 < a.nty && prev[t + a.ntx]);
    if (!awake) {
        if (threadIdx.x == 0) cur[t] = 0;
        return;
    }
    const long long* r = rec + (long long)a.k * REC;
    const int net = (int)r[R_NET];
    unsigned* d = gdist + r[R_SEG];
    const long long base = r[R_Y0] * width + r[R_X0];
    const int lw = a.w + 2, lh = a.h + 2;
    for (int c = threadIdx.x; c < lw * lh; c += blockDim.x) {
        const int lx = c % lw, ly = c / lw;
        const int x = a.x + lx - 1, y = a.y + ly - 1;
        const bool inside = lx > 0 && lx <= a.w && ly > 0 && ly <= a.h;
        const bool halo = !inside && (lx > 0 && lx <= a.w) != (ly > 0 && ly <= a.h)
                          && x >= 0 && x < a.bw && y >= 0 && y < a.bh;
        unsigned v = INF, cv = 0;
        if (inside || halo) v = __ldcg(d + (long long)y * a.bw + x);
        if (inside) {
            const long long g = base + (long long)y * width + x;
            cv = passable(__ldg(code + g), net) ? __ldg(cost + g) : 0u;
        }
        sd[ly * TILE_PITCH + lx] = v;
        sc[ly * TILE_PITCH + lx] = (unsigned short)cv;
    }
    __syncthreads();
    SharedBox b;
    b.d = sd;
    b.c = sc;
    b.pitch = TILE_PITCH;
    relax(b, lw, lh);
    bool fell = false;
    for (int c = threadIdx.x; c < a.w * a.h; c += blockDim.x) {
        const int lx = 1 + c % a.w, ly = 1 + c / a.w;
        unsigned* g = d + (long long)(a.y + ly - 1) * a.bw + a.x + lx - 1;
        const unsigned v = sd[ly * TILE_PITCH + lx];
        if (v < *g) {
            *g = v;
            fell = true;
        }
    }
    fell = __syncthreads_or(fell);
    if (threadIdx.x == 0) {
        cur[t] = fell;
        if (fell) atomicAdd(moved, 1);
    }
}

#ifndef MAZEROUTE_EMU
#include <cooperative_groups.h>

// Rounds of relaxTile in one cooperative launch (blocks stride over the tiles and meet at
// a grid barrier after each round) until a round changes nothing: the boxes' exact
// fixpoint, without a look from the host between rounds. flagsA holds the tiles to wake
// in the first round (tiled_init, tiled_connect) and is left all 0 for the next; the
// round counters moved[k % MAX_ROUNDS] are 0 at the start and left so: the lead thread
// clears each two rounds before its use (two barriers before anyone adds to it, long after
// its last reader) and the first two after the last barrier.
extern "C" __global__ void __launch_bounds__(TILE_LINES)
tiled_rounds(const long long* rec, const int* tiles, int ntiles, const int* __restrict__ code,
             const unsigned short* __restrict__ cost, unsigned* gdist, int width,
             int* flagsA, int* flagsB, int* moved) {
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    int* prev = flagsA;
    int* cur = flagsB;
    for (int k = 0;; ++k) {
        int* count = moved + k % MAX_ROUNDS;
        if (lead) moved[(k + 2) % MAX_ROUNDS] = 0;
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            relaxTile(t, rec, tiles, code, cost, gdist, width, prev, cur, count);
        grid.sync();
        const bool still = __ldcg(count) != 0;
        int* swap = prev;
        prev = cur;
        cur = swap;
        if (!still) break;
    }
    grid.sync();                 // every block has read the last counter and flags
    if (prev != flagsA)          // prev: the last round's flags, all 0
        for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < ntiles;
             t += gridDim.x * blockDim.x)
            flagsA[t] = 0;
    if (lead) moved[0] = moved[1] = 0;
}
#endif

// A block a request: join the next pin (connect()); a tree with pins left wakes its tiles
// and counts itself in *growing.
extern "C" __global__ void __launch_bounds__(TILE_LINES)
tiled_connect(const long long* rec, int count, const int* __restrict__ pins, int width,
              const int* __restrict__ code, const unsigned short* __restrict__ cost,
              unsigned* gdist, int* seg, int* state, const int* tfirst, int* prev,
              int* growing) {
    const int k = blockIdx.x;
    if (k >= count) return;
    const bool growing_here = state[2 * k] == 0;
    __syncthreads();                // every thread has read it before thread 0 writes it
    if (!growing_here) return;
    const long long* r = rec + (long long)k * REC;
    const int x0 = (int)r[R_X0], y0 = (int)r[R_Y0];
    const int bw = (int)r[R_X1] - x0 + 1, bh = (int)r[R_Y1] - y0 + 1;
    const GlobalBox b = GlobalBox::of(r, code, cost, gdist, width);
    if (threadIdx.x == 0) {
        s_cells = state[2 * k + 1];
        s_status = connect(b, pins, r[R_PIN0], r[R_PIN1], width, x0, y0, bw, bh,
                           seg + r[R_SEG]);
        state[2 * k] = s_status;
        state[2 * k + 1] = s_cells;
        if (s_status == 0) atomicAdd(growing, 1);
    }
    __syncthreads();
    if (s_status == 0) {
        const int n = ((bw + TILE - 1) / TILE) * ((bh + TILE - 1) / TILE);
        for (int i = threadIdx.x; i < n; i += blockDim.x) prev[tfirst[k] + i] = 1;
    }
}

extern "C" __global__ void __launch_bounds__(TILE_LINES)
tiled_finish(const long long* rec, int count, const int* seg, const int* state, int* out,
             int* hdr, int* used) {
    const int k = blockIdx.x;
    if (k >= count) return;
    const long long* r = rec + (long long)k * REC;
    writeResult(r, state[2 * k], state[2 * k + 1], seg + r[R_SEG], out, hdr, used);
}
