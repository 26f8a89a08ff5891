// PMPP Fig. 15.5 / section 15.2 (maze routing's wavefront), extended with tiled relaxation:
// the BFS levels of the implicit 4-neighbour grid, computed without one launch (or one host
// round trip) per level.
//
// * The grid is cut into tiles of 64 columns x TILE_ROWS rows. One warp works on one tile
//   at a time: each lane owns TILE_ROWS/32 consecutive rows, each row a 64-bit mask (bit b
//   = column x0 + b), so one level of the tile's wavefront is a few shifts, ORs and two
//   warp shuffles ("bit-parallel BFS"); the blockage mask is bit-packed the same way. The
//   wavefront steps BLOCK_LEVELS levels in registers (a cell's step within the block kept
//   as bit planes), then one labelling pass over the block's new cells writes their
//   levels into the tile's copy in shared memory where they improve it.
// * A visit of a tile is a local multi-source BFS (Dial's order): its seeds are the tile's
//   own sources and the cells whose neighbour across the tile edge (the halo) offers a
//   better level than the cell holds; seeds enter at their own level. The visit keeps the
//   tile's levels in shared memory and walks on only through cells it improves, so levels
//   only ever decrease: the relaxation level[c] = min(level[c], min(neighbour levels) + 1)
//   is monotone and its fixpoint is exactly the BFS levels, so visiting a tile again is
//   harmless, and a visit after a small improvement costs little. No global memory is
//   touched per level: improved cells go back to device memory a row at a time when the
//   visit ends, edge cells also whenever a neighbour is told.
// * No per-level host check and no per-level launch: one persistent kernel. Tiles whose
//   edge cell improved a neighbour's halo are pushed on a device work queue (each tile is
//   IDLE, QUEUED, RUNNING or DIRTY, so it is queued at most once and never run by two
//   warps at once); idle warps take tiles from it; the last warp to finish (a pending-work
//   counter reaching zero) gathers the target levels and ends the kernel. Untouched tiles
//   cost nothing; a finished tile is visited again only when a neighbour improves its halo.
// * A warp that finishes a tile while a neighbour tile still works lingers on it
//   (LINGERING, at most LINGER cycles) with the tile's levels kept in shared memory: a
//   wide wavefront's upstream neighbour hands over every FLUSH_EVERY levels, and the
//   lingering warp then re-runs the tile at once, with no queue round trip and no reload.
// * A window (a box of tiles) confines the search, which keeps small nets on big chips
//   cheap; the host grows it when the target's level does not prove it exact.
// * GAMER's alternating row/column min-plus scans (cost ~ bends, not path length) are in
//   sweep.cu, for whole wavefronts on open layouts; here a corridor costs one bit-parallel
//   step per level inside a tile, which the windowed searches with targets keep.
// * The work queue and the tile states are in tile_queue.cuh, shared with sweep.cu.
//
// Kernel parameter names follow the book where a book name exists (level, currLevel).

#define UNREACHED 0xFFFFFFFFu
#define BLOCKED 0xFFFFFFFEu
#define NONE 0xFFFFFFFFu

#ifndef TILE_ROWS
#define TILE_ROWS 64
#endif
#define TILE_COLS 64
#define RPL (TILE_ROWS / 32)           // rows per lane
#ifndef FLUSH_EVERY
#define FLUSH_EVERY 32                 // levels between edge activations in a wide wavefront
#endif
#ifndef BLOCK_LEVELS
#define BLOCK_LEVELS 8                 // levels stepped between labelling passes
#endif
#ifndef LINGER
#define LINGER 80000                   // cycles a finished warp may wait for its tile's halo
#endif
#if BLOCK_LEVELS > 16
#error "BLOCK_LEVELS must be at most 16"
#endif
#define PLANES (BLOCK_LEVELS > 8 ? 4 : BLOCK_LEVELS > 4 ? 3 : BLOCK_LEVELS > 2 ? 2 : 1)
#define WARPS 8                        // warps per block of the persistent kernel
#define HALO_WORDS (2 * TILE_COLS + 2 * TILE_ROWS)
#define CUR_STRIDE (TILE_COLS + 1)      // padded row of the tile's levels in smem
#define WARP_WORDS (HALO_WORDS + TILE_ROWS * CUR_STRIDE)
#define FULL 0xFFFFFFFFu

typedef unsigned long long u64;

#ifndef STATS
#define STATS 0                        // 1: count visits, levels, flushes, cycles (probe)
#endif
#if STATS
__device__ u64 g_stats[16];
#define STAT(i, v) atomicAdd(&g_stats[i], (u64)(v))
#else
#define STAT(i, v) ((void)0)
#endif

#include "tile_queue.cuh"

struct Grid {
    unsigned* level;
    const u64* freeBits;
    u64* srcBits;
    int* state;
    int* queue;
    int* counters;
    unsigned qmask;
    int width, height, wordsPerRow, tilesX;
    int wx0, wx1, wy0, wy1;            // window, in tiles, half-open
};

// One halo cell and the tile cell next to it: the halo's level for the edge test (0 when
// there is no free neighbour there) and the seed it offers (NONE unless an improvement).
// The loads are unconditional (coordinates clamped into the grid) so that every visit's
// loads can be in flight together.
static __device__ __forceinline__ void halo_pair(const Grid& g, bool has, int hy, int hx,
                                                 int oy, int ox, unsigned& halo,
                                                 unsigned& cand) {
    hy = min(max(hy, 0), g.height - 1);
    oy = min(max(oy, 0), g.height - 1);
    hx = min(max(hx, 0), g.width - 1);
    ox = min(max(ox, 0), g.width - 1);
    unsigned hv = __ldcg(&g.level[(size_t)hy * g.width + hx]);
    unsigned own = __ldcg(&g.level[(size_t)oy * g.width + ox]);
    halo = (has && hv != BLOCKED) ? hv : 0u;
    cand = (has && hv < BLOCKED && hv + 1 < own) ? hv + 1 : NONE;
}

// Publish the tile's edge cells on the flagged sides (their levels live in shared memory
// during a visit), then tell those neighbours (bit 0 top, 1 bottom, 2 left, 3 right).
static __device__ void flush(const Grid& g, int lane, int t, int x0, int y0, const unsigned* cur,
                             unsigned& pend, bool claim, int* next) {
    unsigned ps = __reduce_or_sync(FULL, pend);
    pend = 0;
    if (!ps) return;
#if STATS
    long long c0 = clock64();
#endif
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        int c = lane + 32 * k, x = x0 + c;
        if (x >= g.width) continue;
        if (ps & 1u) g.level[(size_t)y0 * g.width + x] = cur[c];
        if (ps & 2u)
            g.level[(size_t)(y0 + TILE_ROWS - 1) * g.width + x] =
                cur[(TILE_ROWS - 1) * CUR_STRIDE + c];
    }
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        int row = lane * RPL + r, y = y0 + row;
        if (y >= g.height) continue;
        if (ps & 4u) g.level[(size_t)y * g.width + x0] = cur[row * CUR_STRIDE];
        if (ps & 8u)
            g.level[(size_t)y * g.width + x0 + TILE_COLS - 1] =
                cur[row * CUR_STRIDE + TILE_COLS - 1];
    }
    fence();
    __syncwarp();
    if (lane == 0) {
        const int nb[4] = {t - g.tilesX, t + g.tilesX, t - 1, t + 1};
#pragma unroll
        for (int side = 0; side < 4; ++side) {
            if (!(ps & (1u << side))) continue;
            bool take = claim && *next < 0;
            if (activate(g.state, g.queue, g.counters, g.qmask, nb[side], take)) *next = nb[side];
        }
#if STATS
        STAT(3, 1);
        STAT(9, clock64() - c0);
#endif
    }
    __syncwarp();
}

// The tile's levels into shared memory (rows CUR_STRIDE apart, so that lanes touching one
// column hit different banks); 16-byte loads where rows are 16-byte aligned.
static __device__ void load_tile(const Grid& g, int x0, int y0, int lane, unsigned* cur) {
    if ((g.width & 3) == 0) {
        for (int i = lane; i < TILE_ROWS * TILE_COLS / 4; i += 32) {
            int row = i / (TILE_COLS / 4), col = 4 * (i % (TILE_COLS / 4));
            int y = y0 + row, x = x0 + col;
            uint4 v = make_uint4(BLOCKED, BLOCKED, BLOCKED, BLOCKED);
            if (y < g.height && x < g.width)
                v = __ldcg((const uint4*)&g.level[(size_t)y * g.width + x]);
            unsigned* d = cur + row * CUR_STRIDE + col;
            d[0] = v.x;
            d[1] = v.y;
            d[2] = v.z;
            d[3] = v.w;
        }
    } else {
        for (int i = lane; i < TILE_ROWS * TILE_COLS; i += 32) {
            int row = i / TILE_COLS, col = i % TILE_COLS;
            int y = y0 + row, x = x0 + col;
            cur[row * CUR_STRIDE + col] =
                (y < g.height && x < g.width) ? __ldcg(&g.level[(size_t)y * g.width + x])
                                              : BLOCKED;
        }
    }
}

// One visit of tile t by one warp: a local BFS from the improved seeds that walks on only
// through cells it improves, until nothing in the tile improves any more.
static __device__ bool visit(const Grid& g, int t, bool sources, int lane, unsigned* sT,
                             int* next, bool warm) {
#if STATS
    long long v0 = clock64();
    if (lane == 0) STAT(0, 1);
#endif
    unsigned* sB = sT + TILE_COLS;
    unsigned* sL = sB + TILE_COLS;
    unsigned* sR = sL + TILE_ROWS;
    unsigned* cur = sR + TILE_ROWS;
    const int tx = t % g.tilesX, ty = t / g.tilesX;
    const int x0 = tx * TILE_COLS, y0 = ty * TILE_ROWS;
    const bool hasT = ty > g.wy0, hasB = ty + 1 < g.wy1;
    const bool hasL = tx > g.wx0, hasR = tx + 1 < g.wx1;

    unsigned candT[2], candB[2], candL[RPL], candR[RPL];
    unsigned lo = NONE, hi = 0;
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        int c = lane + 32 * k, x = x0 + c;
        unsigned h;
        halo_pair(g, hasT && x < g.width, y0 - 1, x, y0, x, h, candT[k]);
        sT[c] = h;
        halo_pair(g, hasB && x < g.width, y0 + TILE_ROWS, x, y0 + TILE_ROWS - 1, x, h, candB[k]);
        sB[c] = h;
    }
    u64 fr[RPL], src[RPL];
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        int row = lane * RPL + r, y = y0 + row;
        bool in = y < g.height;
        unsigned h;
        halo_pair(g, hasL && in, y, x0 - 1, y, x0, h, candL[r]);
        sL[row] = h;
        halo_pair(g, hasR && in, y, x0 + TILE_COLS, y, x0 + TILE_COLS - 1, h, candR[r]);
        sR[row] = h;
        size_t w = (size_t)min(y, g.height - 1) * g.wordsPerRow + tx;
        fr[r] = __ldg(&g.freeBits[w]);
        if (!in) fr[r] = 0ull;
        src[r] = 0;
        if (sources && in) {
            src[r] = g.srcBits[w];
            if (src[r]) g.srcBits[w] = 0ull;     // the bits live for one visit only
        }
    }
#pragma unroll
    for (int k = 0; k < 2; ++k) {
        lo = min(lo, min(candT[k], candB[k]));
        hi = max(hi, max(candT[k] == NONE ? 0u : candT[k], candB[k] == NONE ? 0u : candB[k]));
    }
    bool anySrc = false;
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        lo = min(lo, min(candL[r], candR[r]));
        hi = max(hi, max(candL[r] == NONE ? 0u : candL[r], candR[r] == NONE ? 0u : candR[r]));
        anySrc |= src[r] != 0;
    }
    if (anySrc) lo = 0;
    const unsigned maxSeed = __reduce_max_sync(FULL, hi);
    unsigned currLevel = __reduce_min_sync(FULL, lo);
    if (currLevel == NONE) {                       // nothing improves: an echo
        if (lane == 0) STAT(1, 1);
        return warm;
    }
    if (warm) {                                    // cur still holds the tile (see release)
        if (lane == 0) STAT(12, 1);
    } else {
        load_tile(g, x0, y0, lane, cur);
    }
    __syncwarp();                                  // halo and tile levels are in smem

    u64 f[RPL], vis[RPL], chg[RPL];
#pragma unroll
    for (int r = 0; r < RPL; ++r) f[r] = vis[r] = chg[r] = 0ull;
    unsigned pend = 0, sinceFlush = 0;
#if STATS
    long long v1 = clock64();
    unsigned iters = 0;
#endif
    unsigned base = currLevel;                     // level of the block's first step
    while (true) {
#if STATS
        iters += BLOCK_LEVELS;
#endif
        // BLOCK_LEVELS levels of the bit-parallel wavefront, registers only. The block's
        // new cells are any[r]; a cell's level is base + j, j's bits kept as bit planes.
        u64 any[RPL], plane[PLANES][RPL];
#pragma unroll
        for (int r = 0; r < RPL; ++r) {
            any[r] = 0ull;
#pragma unroll
            for (int k = 0; k < PLANES; ++k) plane[k][r] = 0ull;
        }
#pragma unroll
        for (int j = 0; j < BLOCK_LEVELS; ++j) {
            const unsigned level_j = base + j;
            u64 s[RPL];
#pragma unroll
            for (int r = 0; r < RPL; ++r) s[r] = 0ull;
            if (level_j <= maxSeed) {              // warp-uniform
                unsigned t0 = __ballot_sync(FULL, candT[0] == level_j);
                unsigned t1 = __ballot_sync(FULL, candT[1] == level_j);
                unsigned b0 = __ballot_sync(FULL, candB[0] == level_j);
                unsigned b1 = __ballot_sync(FULL, candB[1] == level_j);
#pragma unroll
                for (int r = 0; r < RPL; ++r)
                    s[r] = (candL[r] == level_j ? 1ull : 0ull) |
                           (candR[r] == level_j ? (1ull << 63) : 0ull);
                if (lane == 0) s[0] |= (u64)t0 | ((u64)t1 << 32);
                if (lane == 31) s[RPL - 1] |= (u64)b0 | ((u64)b1 << 32);
                if (level_j == 0) {
#pragma unroll
                    for (int r = 0; r < RPL; ++r) s[r] |= src[r];
                }
            }
            u64 up = __shfl_up_sync(FULL, f[RPL - 1], 1);
            u64 dn = __shfl_down_sync(FULL, f[0], 1);
            if (lane == 0) up = 0ull;
            if (lane == 31) dn = 0ull;
            u64 n[RPL];
#pragma unroll
            for (int r = 0; r < RPL; ++r) {
                u64 above = r ? f[r - 1] : up;
                u64 below = r < RPL - 1 ? f[r + 1] : dn;
                n[r] = ((f[r] << 1) | (f[r] >> 1) | above | below | s[r]) & fr[r] & ~vis[r];
            }
#pragma unroll
            for (int r = 0; r < RPL; ++r) {
                vis[r] |= n[r];
                f[r] = n[r];
                any[r] |= n[r];
#pragma unroll
                for (int k = 0; k < PLANES; ++k)
                    if ((j >> k) & 1) plane[k][r] |= n[r];
            }
        }
        // Label the block's cells: keep a level only where it improves the tile's. One
        // pass over all the block's cells (32-bit halves), not one per level.
#pragma unroll
        for (int r = 0; r < RPL; ++r) {
            const int row = lane * RPL + r;
            unsigned* crow = cur + row * CUR_STRIDE;
            const bool edgeRow = row == 0 || row == TILE_ROWS - 1;
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                unsigned m = (unsigned)(any[r] >> (32 * h)), keep = 0u;
                unsigned pl[PLANES];
#pragma unroll
                for (int k = 0; k < PLANES; ++k) pl[k] = (unsigned)(plane[k][r] >> (32 * h));
                while (m) {
                    const int sh = __ffs(m) - 1;
                    m &= m - 1;
                    unsigned lv = base;
#pragma unroll
                    for (int k = 0; k < PLANES; ++k) lv += ((pl[k] >> sh) & 1u) << k;
                    const int b = 32 * h + sh;
                    if (crow[b] > lv) {
                        crow[b] = lv;
                        keep |= 1u << sh;
                        const unsigned next1 = lv + 1;   // does a neighbour tile gain?
                        if (edgeRow || b == 0 || b == TILE_COLS - 1) {
                            if (row == 0 && next1 < sT[b]) pend |= 1u;
                            if (row == TILE_ROWS - 1 && next1 < sB[b]) pend |= 2u;
                            if (b == 0 && next1 < sL[row]) pend |= 4u;
                            if (b == TILE_COLS - 1 && next1 < sR[row]) pend |= 8u;
                        }
                    }
                }
                chg[r] |= (u64)keep << (32 * h);
            }
        }
        bool anyF = false;
#pragma unroll
        for (int r = 0; r < RPL; ++r) anyF |= f[r] != 0ull;
        unsigned active = __ballot_sync(FULL, anyF);
        unsigned waiting = __ballot_sync(FULL, pend != 0);
        sinceFlush += BLOCK_LEVELS;
        // A thin wavefront (a corridor) hands over at once; a wide one every few levels.
        if (waiting && (__popc(active) <= 2 || sinceFlush >= FLUSH_EVERY)) {
            flush(g, lane, t, x0, y0, cur, pend, false, next);
            sinceFlush = 0;
        }
        const unsigned last = base + BLOCK_LEVELS - 1;
        if (!active) {
            if (last >= maxSeed) break;
            unsigned nx = NONE;                    // jump to the next seed's level
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                if (candT[k] > last) nx = min(nx, candT[k]);
                if (candB[k] > last) nx = min(nx, candB[k]);
            }
#pragma unroll
            for (int r = 0; r < RPL; ++r) {
                if (candL[r] > last) nx = min(nx, candL[r]);
                if (candR[r] > last) nx = min(nx, candR[r]);
            }
            base = __reduce_min_sync(FULL, nx);
            continue;
        }
        base += BLOCK_LEVELS;
    }
#if STATS
    if (lane == 0) {
        STAT(2, iters);
        STAT(7, v1 - v0);
        STAT(8, clock64() - v1);
    }
#endif
    // Write the improved cells back, one changed row at a time, two columns per lane.
#pragma unroll
    for (int r = 0; r < RPL; ++r) {
        unsigned rows = __ballot_sync(FULL, chg[r] != 0ull);
        while (rows) {
            int l = __ffs(rows) - 1;
            rows &= rows - 1;
            u64 m = __shfl_sync(FULL, chg[r], l);
            int row = l * RPL + r;
            unsigned* line = g.level + (size_t)(y0 + row) * g.width + x0;
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                int c = lane + 32 * k;
                if ((m >> c) & 1ull) line[c] = cur[row * CUR_STRIDE + c];
            }
        }
    }
    flush(g, lane, t, x0, y0, cur, pend, true, next);
    return true;
}

#if LINGER
static __device__ __forceinline__ bool busy(int s) {
    return s == QUEUED || s == RUNNING || s == DIRTY;
}
#endif

// After a visit (lane 0, writes fenced): give tile t up, or return 1 to visit it again
// because a neighbour improved its halo meanwhile. In a wide wavefront the upstream
// neighbour hands over every few levels; rather than going IDLE and coming back through
// the queue (and reloading the tile), the warp lingers while a neighbour is still working
// (at most LINGER cycles), so that the next hand-over finds it with the tile in smem.
static __device__ int release(const Grid& g, int t, int next) {
#if LINGER
    if (next < 0) {
        if (atomicCAS(&g.state[t], RUNNING, LINGERING) == RUNNING) {
#if STATS
            long long c0 = clock64();
#endif
            const long long t0 = clock64();
            const int tx = t % g.tilesX, ty = t / g.tilesX;
            while (true) {
                int s = ld_volatile(&g.state[t]);
                if (s == DIRTY) break;
                bool near = (ty > g.wy0 && busy(ld_volatile(&g.state[t - g.tilesX]))) ||
                            (ty + 1 < g.wy1 && busy(ld_volatile(&g.state[t + g.tilesX]))) ||
                            (tx > g.wx0 && busy(ld_volatile(&g.state[t - 1]))) ||
                            (tx + 1 < g.wx1 && busy(ld_volatile(&g.state[t + 1])));
                if (!near || clock64() - t0 > LINGER) {
                    if (atomicCAS(&g.state[t], LINGERING, IDLE) == LINGERING) {
                        STAT(13, clock64() - c0);
                        return 0;
                    }
                    break;                         // it became DIRTY
                }
                __nanosleep(100);
            }
            STAT(13, clock64() - c0);
        }
        atomicExch(&g.state[t], RUNNING);           // DIRTY: a neighbour improved our halo
        fence();
        STAT(6, 1);
        return 1;
    }
#endif
    if (atomicCAS(&g.state[t], RUNNING, IDLE) == DIRTY) {
        atomicExch(&g.state[t], RUNNING);
        fence();
        STAT(6, 1);
        return 1;
    }
    return 0;
}

// Persistent wavefront: every warp takes tiles from the queue until the pending count
// reaches zero; the warp that brings it there gathers the targets' levels.
extern "C" __global__ void __launch_bounds__(WARPS * 32, 1)
grid_wavefront(unsigned* level, const u64* freeBits, u64* srcBits, int* state, int* queue,
               int* counters, unsigned qmask, int width, int height, int wordsPerRow,
               int tilesX, int wx0, int wx1, int wy0, int wy1, const int* targets,
               int numTargets, unsigned* targetLevels) {
    extern __shared__ unsigned smem[];            // WARP_WORDS per warp
    const Grid g = {level, freeBits, srcBits, state, queue, counters, qmask, width, height,
                    wordsPerRow, tilesX, wx0, wx1, wy0, wy1};
    const int lane = threadIdx.x & 31;
    unsigned* sT = smem + (threadIdx.x >> 5) * WARP_WORDS;
    int next = -1;                                 // a tile this warp claimed (lane 0)
    while (true) {
        int item = -1;
        if (lane == 0) {
            if (next >= 0) {
                item = next;
                next = -1;
            } else {
#if STATS
                long long d0 = clock64();
#endif
                item = dequeue(queue, counters, qmask);
#if STATS
                STAT(10, clock64() - d0);
#endif
            }
            if (item >= 0) {
                atomicExch(&state[item & ~SRC_FLAG], RUNNING);
                fence();
            }
        }
        item = __shfl_sync(FULL, item, 0);
        if (item < 0) return;
        const int t = item & ~SRC_FLAG;
        bool sources = (item & SRC_FLAG) != 0;
        bool warm = false;                         // this warp's smem holds t's levels
        while (true) {
            warm = visit(g, t, sources, lane, sT, &next, warm);
            sources = false;
            fence();
            __syncwarp();
            int again = 0;
            if (lane == 0) again = release(g, t, next);
            if (!__shfl_sync(FULL, again, 0)) break;
        }
        int last = 0;
        if (lane == 0 && next < 0) {               // (a claimed tile takes over our count)
            last = atomicSub(&counters[PENDING], 1) == 1;
            // Acquire: every other warp fenced its level writes before its own decrement.
            if (last) fence();
        }
        if (__shfl_sync(FULL, last, 0)) {
            __syncwarp();                          // orders lane 0's fence before the reads
            for (int i = lane; i < numTargets; i += 32)
                targetLevels[i] = __ldcg(&level[targets[i]]);
            fence();
            __syncwarp();
            if (lane == 0) atomicExch(&counters[DONE], 1);
            return;
        }
    }
}

// Before a wavefront (one block): apply the queued blockage changes (cells[0:numWrites],
// the sign bit set for "blocked"), reset the queue counters, mark the sources (the next
// numSources cells; their tile's first visit puts them on level 0) and queue their tiles.
extern "C" __global__ void grid_seed(unsigned* level, unsigned* rest, u64* freeBits,
                                     u64* srcBits, int* state, int* queue, int* counters,
                                     unsigned qmask, int width, int wordsPerRow, int tilesX,
                                     const int* cells, int numWrites, int numSources,
                                     unsigned* maxLevel) {
    if (threadIdx.x == 0) {
        counters[HEAD] = counters[TAIL] = counters[PENDING] = counters[DONE] = 0;
        *maxLevel = 0;
    }
    for (int i = threadIdx.x; i < numWrites; i += blockDim.x) {
        int e = cells[i];
        int v = e & 0x7FFFFFFF;
        bool blocked = e < 0;
        unsigned value = blocked ? BLOCKED : UNREACHED;
        rest[v] = value;
        level[v] = value;
        int y = v / width, x = v % width;
        u64 bit = 1ull << (x & 63);
        u64* word = &freeBits[(size_t)y * wordsPerRow + (x >> 6)];
        if (blocked)
            atomicAnd(word, ~bit);
        else
            atomicOr(word, bit);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < numSources; i += blockDim.x) {
        int v = cells[numWrites + i];
        int y = v / width, x = v % width;
        atomicOr(&srcBits[(size_t)y * wordsPerRow + (x >> 6)], 1ull << (x & 63));
        int t = (y / TILE_ROWS) * tilesX + (x >> 6);
        if (atomicCAS(&state[t], IDLE, QUEUED) == IDLE) {
            unsigned pos = atomicAdd((unsigned*)&counters[TAIL], 1u);
            queue[pos & qmask] = t | SRC_FLAG;
            atomicAdd(&counters[PENDING], 1);
        }
    }
}

// The deepest level labelled (num_levels - 1) of a full wavefront.
extern "C" __global__ void grid_max_level(const unsigned* level, long long n,
                                          unsigned* maxLevel) {
    unsigned m = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned v = level[i];
        if (v < BLOCKED && v > m) m = v;
    }
    m = __reduce_max_sync(FULL, m);
    if ((threadIdx.x & 31) == 0 && m) atomicMax(maxLevel, m);
}
