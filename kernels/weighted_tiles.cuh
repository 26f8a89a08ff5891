// GAMER's sweeps (Lin et al., "GAMER: GPU-Accelerated Maze Routing", IEEE TCAD 2023) on
// boxes too big for a block's shared memory, tile by tile: each round relaxes every awake
// tile (it or a neighbour fell in the round before) to its own fixpoint in shared memory,
// its halo read from its neighbours, and the blocks meet at a grid barrier (a cooperative
// launch) until a round changes nothing; then each request joins its next pin as
// weighted_route does. Part of kernels/weighted.cu (included at its end: its Bound, relax,
// connect and CellCosts); host side: mazeroute/engines/gpu_tiled.py.
//
// tiles: (k, i, j) int32 triples, tile column i and row j of request k (its record at
// rec + k * REC); a request's tiles are consecutive, row by row, from tfirst[k].
// state: per request (status: 0 while its tree grows, then ST_*; cells in its tree).
// bnd: per request its Bound (BND int32 words, box coordinates; u lowered by the tiles).
#define BND 10
static_assert(sizeof(Bound) == BND * sizeof(int), "gpu_tiled.py sizes bnd by BND");
#ifndef TILE
#define TILE 30                 // cells of a tile's side; with the halo, a thread a line
#endif
#define TILE_LINES (TILE + 2)
#ifndef MAX_ROUNDS
#define MAX_ROUNDS 16384        // round counters of tiled_rounds (gpu_tiled.py MAX_ROUNDS)
#endif
static_assert(MAX_ROUNDS >= 4, "tiled_rounds clears a counter two rounds ahead of its use, "
              "while the one of the round before may still be read");
#define TILE_PITCH (TILE_LINES | 1)
#ifndef TILE_CHUNK
#define TILE_CHUNK 4            // cells a thread loads at once into a tile (relaxTile)
#endif

// a tile's distances with their halo, and its costs (0: not to be entered), in the shared
// memory of its block; s_tileO: the distances as loaded (only the tile's block writes its
// cells in a launch, so they are still the global ones when the tile writes back)
__shared__ unsigned s_tileD[TILE_LINES * TILE_PITCH];
__shared__ unsigned short s_tileC[TILE_LINES * TILE_PITCH];
__shared__ unsigned s_tileO[TILE_LINES * TILE_PITCH];
// whether the block's one tile is in the arrays above: a block that has the same tile in
// every round of a launch (no more tiles than blocks) loads its cells and costs once and
// then only the halo, as only it writes the cells and nothing changes the costs meanwhile
__shared__ int s_have;

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
           int width, int least, unsigned* gdist, int* seg, int* state, int* bnd,
           int* prev) {
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
            Bound g;
            g.begin((unsigned)least, rx, ry,
                    [&](int x, int y) { return x == rx && y == ry ? 0u : INF; }, pins,
                    r[R_PIN0], r[R_PIN1], width, (int)r[R_X0], (int)r[R_Y0]);
            ((Bound*)bnd)[a.k] = g;
        }
    }
}

// The tile of `a` with its halo into shared memory (s_tileD, s_tileO, s_tileC), from its
// request's distances d: TILE_CHUNK cells a thread at a time, their loads issued together,
// so that a block of one warp waits on memory once a chunk rather than once a cell.
__device__ void loadTile(const TileAt& a, const unsigned* d, const CellCosts& cc,
                         long long base, int width, int net) {
    const int lw = a.w + 2, lh = a.h + 2;
    for (int c0 = threadIdx.x; c0 < lw * lh; c0 += TILE_CHUNK * blockDim.x) {
        unsigned v[TILE_CHUNK], cv[TILE_CHUNK];
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            const int c = c0 + q * blockDim.x;
            const int lx = c % lw, ly = c / lw;
            const int x = a.x + lx - 1, y = a.y + ly - 1;
            const bool inside = lx > 0 && lx <= a.w && ly > 0 && ly <= a.h;
            const bool halo = !inside && (lx > 0 && lx <= a.w) != (ly > 0 && ly <= a.h)
                              && x >= 0 && x < a.bw && y >= 0 && y < a.bh;
            v[q] = INF;
            cv[q] = 0;
            if (c < lw * lh && (inside || halo)) v[q] = __ldcg(d + (long long)y * a.bw + x);
            if (c < lw * lh && inside) cv[q] = cc.at(base + (long long)y * width + x, net);
        }
#pragma unroll
        for (int q = 0; q < TILE_CHUNK; ++q) {
            const int c = c0 + q * blockDim.x;
            if (c < lw * lh) {
                const int at = (c / lw) * TILE_PITCH + c % lw;
                s_tileD[at] = s_tileO[at] = v[q];
                s_tileC[at] = (unsigned short)cv[q];
            }
        }
    }
}

// Only the halo of the tile of `a` into s_tileD (its cells are there from the round before:
// only this block writes them): one cell a thread, the edges in turn.
__device__ void loadHalo(const TileAt& a, const unsigned* d) {
    const int n = 2 * (a.w + a.h);
    for (int c = threadIdx.x; c < n; c += blockDim.x) {
        int lx, ly;
        if (c < 2 * a.w) {
            lx = 1 + c % a.w;
            ly = c < a.w ? 0 : a.h + 1;
        } else {
            lx = c < 2 * a.w + a.h ? 0 : a.w + 1;
            ly = 1 + (c - 2 * a.w) % a.h;
        }
        const int x = a.x + lx - 1, y = a.y + ly - 1;
        s_tileD[ly * TILE_PITCH + lx] = x >= 0 && x < a.bw && y >= 0 && y < a.bh
                                        ? __ldcg(d + (long long)y * a.bw + x) : INF;
    }
}

// What relaxOne reports: a cell the bound keeps fell (FELL), and on which of the tile's
// sides one did (SIDE_UP << k: up, down, left, right), the halo of the tile beyond it.
#define SIDE_UP 1u
#define FELL 16u
__shared__ unsigned s_sides;

// Tile t of `a` relaxed, if some cell of it lies within its request's bound: its distances
// with a one-cell halo of its neighbours' relaxed to the tile's fixpoint in shared memory
// under that bound, and what fell written back; the request's u takes what its pins in
// the tile hold. Returns FELL and the sides (0 when the bound skips the tile). Every
// thread of the block calls it; `keep`: the block has tile t in every round of the
// launch (s_have, 0 at its start, says whether the tile is loaded yet).
__device__ unsigned relaxOne(int t, const TileAt& a, const long long* rec,
                             const int* __restrict__ pins, const CellCosts& cc,
                             unsigned* gdist, int width, Bound* bnd, bool keep) {
    unsigned* sd = s_tileD;
    unsigned short* sc = s_tileC;
    bool skip = false;
    if (threadIdx.x == 0) {         // the bound in the tile's coordinates (halo at 0)
        s_bound = bnd[a.k];
        s_bound.u = __ldcg(&bnd[a.k].u);
        s_bound.shift(a.x - 1, a.y - 1);
        skip = s_bound.beyond(1, 1, a.w, a.h);
    }
    if (__syncthreads_or(skip)) return 0;
    if (threadIdx.x == 0) {
        PROBE_ADD(5, 1);
        s_sides = 0;
    }
    const long long* r = rec + (long long)a.k * REC;
    const int net = (int)r[R_NET];
    unsigned* d = gdist + r[R_SEG];
    const long long base = r[R_Y0] * width + r[R_X0];
    const int lw = a.w + 2, lh = a.h + 2;
    if (keep && s_have) {
        loadHalo(a, d);
    } else {
        loadTile(a, d, cc, base, width, net);
    }
    __syncthreads();
    SharedBox b;
    b.d = sd;
    b.c = sc;
    b.pitch = TILE_PITCH;
    const unsigned u0 = s_bound.u;
    relax(b, lw, lh, s_bound, pins, r[R_PIN0], r[R_PIN1], width, (int)r[R_X0] + a.x - 1,
          (int)r[R_Y0] + a.y - 1);
    unsigned fell = 0;
    for (int c = threadIdx.x; c < a.w * a.h; c += blockDim.x) {
        const int lx = 1 + c % a.w, ly = 1 + c / a.w;
        unsigned* g = d + (long long)(a.y + ly - 1) * a.bw + a.x + lx - 1;
        const unsigned v = sd[ly * TILE_PITCH + lx];
        if (v < s_tileO[ly * TILE_PITCH + lx]) {
            *g = s_tileO[ly * TILE_PITCH + lx] = v;
            if (s_bound.keeps(v, lx, ly))
                fell |= FELL | (ly == 1 ? SIDE_UP : 0u) | (ly == a.h ? SIDE_UP << 1 : 0u)
                        | (lx == 1 ? SIDE_UP << 2 : 0u) | (lx == a.w ? SIDE_UP << 3 : 0u);
        }
    }
    if (fell) atomicOr(&s_sides, fell);
    __syncthreads();
    fell = s_sides;
    if (threadIdx.x == 0) {
        if (s_bound.u < u0) atomicMin(&bnd[a.k].u, s_bound.u);
        s_have = keep;
    }
    return fell;
}

// One round's work on tile t: relaxOne if it or a neighbour changed in the round before
// (prev); cur[t] tells whether a cell the bound keeps fell, and *moved counts the tiles
// where one did. Every thread of the block calls it.
__device__ void relaxTile(int t, const long long* rec, const int* tiles,
                          const int* __restrict__ pins, const CellCosts& cc, unsigned* gdist,
                          int width, Bound* bnd, const int* prev, int* cur, int* moved,
                          bool keep) {
    const TileAt a = tileAt(rec, tiles, t);
    const int i = a.x / TILE, j = a.y / TILE;
    const bool awake = prev[t] || (i > 0 && prev[t - 1]) || (i + 1 < a.ntx && prev[t + 1])
                       || (j > 0 && prev[t - a.ntx]) || (j + 1 < a.nty && prev[t + a.ntx]);
    const unsigned fell = awake ? relaxOne(t, a, rec, pins, cc, gdist, width, bnd, keep) : 0;
    if (threadIdx.x == 0) {
        cur[t] = (fell & FELL) != 0;
        if (fell & FELL) atomicAdd(moved, 1);
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
tiled_rounds(const long long* rec, const int* tiles, int ntiles, const int* __restrict__ pins,
             const int* __restrict__ code, const unsigned short* __restrict__ cost,
             const int* __restrict__ ownNet, const unsigned short* __restrict__ ownCost,
             int owns, unsigned* gdist, int width, int* bnd, int* flagsA, int* flagsB,
             int* moved) {
    const CellCosts cc = cellCosts(code, cost, ownNet, ownCost, owns);
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    int* prev = flagsA;
    int* cur = flagsB;
    const bool keep = ntiles <= (int)gridDim.x;     // each block's tile the same all along
    if (threadIdx.x == 0) s_have = 0;
    for (int k = 0;; ++k) {
        int* count = moved + k % MAX_ROUNDS;
        if (lead) {
            moved[(k + 2) % MAX_ROUNDS] = 0;
            PROBE_ADD(6, 1);
        }
        for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
            relaxTile(t, rec, tiles, pins, cc, gdist, width, (Bound*)bnd, prev, cur, count,
                      keep);
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

#include "tile_queue.cuh"

__shared__ int s_item;     // tiled_queue: the block's tile (-1: the run is over)
__shared__ int s_again;    // tiled_queue: relax it again (its halo fell meanwhile)

// The tiles flagged in flagsA (tiled_init, tiled_connect) queued for tiled_queue, their
// flags cleared. The queue's counters are 0 and every tile IDLE, the queue EMPTY, as a
// finished tiled_queue leaves them.
extern "C" __global__ void tiled_seed(int ntiles, int* flagsA, int* tstate, int* queue,
                                      int* counters, unsigned qmask) {
    for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < ntiles;
         t += gridDim.x * blockDim.x) {
        if (!flagsA[t]) continue;
        flagsA[t] = 0;
        tstate[t] = QUEUED;
        push(queue, counters, qmask, t);
    }
}

// The same fixpoint as tiled_rounds without its grid barriers: each block takes a tile
// from the work queue (tile_queue.cuh, as grid.cu and sweep.cu do), relaxes it
// (relaxOne) and hands over to the neighbour beyond each side where a cell the bound
// keeps fell: one idle neighbour the block takes on itself (no queue round trip), the
// others queued. A tile whose halo fell while it was relaxed is relaxed again at once,
// from the cells it holds and a fresh halo. A round lasts as long as its slowest tile,
// where most blocks wait; here a tile goes as soon as its neighbour hands over. The block
// that brings the pending count to zero ends the run.
extern "C" __global__ void __launch_bounds__(TILE_LINES)
tiled_queue(const long long* rec, const int* tiles, int ntiles, const int* __restrict__ pins,
            const int* __restrict__ code, const unsigned short* __restrict__ cost,
            const int* __restrict__ ownNet, const unsigned short* __restrict__ ownCost,
            int owns, unsigned* gdist, int width, int* bnd, int* tstate, int* queue,
            int* counters, unsigned qmask) {
    const CellCosts cc = cellCosts(code, cost, ownNet, ownCost, owns);
    const bool lead = threadIdx.x == 0;
    int next = -1;                  // the lead's: a neighbour it took on (RUNNING already)
    while (true) {
        if (lead) {
            int item = next;
            next = -1;
            if (item < 0) {
                item = dequeue(queue, counters, qmask);
                if (item >= 0) atomicExch(&tstate[item], RUNNING);
            }
            if (item >= 0) fence();
            s_item = item;
            s_have = 0;
        }
        __syncthreads();
        const int t = s_item;
        if (t < 0) return;
        const TileAt a = tileAt(rec, tiles, t);
        const int i = a.x / TILE, j = a.y / TILE;
        while (true) {
            const unsigned fell = relaxOne(t, a, rec, pins, cc, gdist, width, (Bound*)bnd,
                                           true);
            // every thread's writes of the tile before the hand-overs that publish them
            fence();
            __syncthreads();
            if (lead) {
                const int side[4] = {j > 0 ? t - a.ntx : -1, j + 1 < a.nty ? t + a.ntx : -1,
                                     i > 0 ? t - 1 : -1, i + 1 < a.ntx ? t + 1 : -1};
                for (int k = 0; k < 4; ++k)
                    if ((fell & SIDE_UP << k) && side[k] >= 0
                        && activate(tstate, queue, counters, qmask, side[k], next < 0))
                        next = side[k];
                // DIRTY: a neighbour's hand-over came while we relaxed: go again
                s_again = atomicCAS(&tstate[t], RUNNING, IDLE) == DIRTY;
                if (s_again) {
                    atomicExch(&tstate[t], RUNNING);
                    fence();
                }
            }
            __syncthreads();
            if (!s_again) break;
        }
        // a tile taken on takes over this one's pending count (tile_queue.cuh activate)
        if (lead && next < 0 && atomicSub(&counters[PENDING], 1) == 1)
            atomicExch(&counters[DONE], 1);
    }
}

// A block a request: join the next pin (connect()); a tree with pins left, its bound aimed
// at them, wakes its tiles and counts itself in *growing.
extern "C" __global__ void __launch_bounds__(TILE_LINES)
tiled_connect(const long long* rec, int count, const int* __restrict__ pins, int width,
              const int* __restrict__ code, const unsigned short* __restrict__ cost,
              const int* __restrict__ ownNet, const unsigned short* __restrict__ ownCost,
              int owns, unsigned* gdist, int* seg, int* state, int* bnd, const int* tfirst, int* prev,
              int* growing) {
    const int k = blockIdx.x;
    if (k >= count) return;
    const bool growing_here = state[2 * k] == 0;
    __syncthreads();                // every thread has read it before thread 0 writes it
    if (!growing_here) return;
    const long long* r = rec + (long long)k * REC;
    const int x0 = (int)r[R_X0], y0 = (int)r[R_Y0];
    const int bw = (int)r[R_X1] - x0 + 1, bh = (int)r[R_Y1] - y0 + 1;
    const GlobalBox b = GlobalBox::of(r, cellCosts(code, cost, ownNet, ownCost, owns), gdist,
                                      width);
    if (threadIdx.x == 0) {
        s_cells = state[2 * k + 1];
        Bound g = ((Bound*)bnd)[k];
        s_status = connect(b, g, pins, r[R_PIN0], r[R_PIN1], width, x0, y0, bw, bh,
                           seg + r[R_SEG]);
        ((Bound*)bnd)[k] = g;
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
