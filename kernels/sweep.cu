// PMPP Fig. 15.5's wavefront levels on the routing grid, computed the way GAMER (TCAD 2023)
// computes routing costs, inside tiles: two warps settle a whole 64 x 32 tile at once by
// alternating row and column min-plus scans in shared memory (level[c] = min(level[c],
// level[c'] + |c - c'|) along runs of free cells) until nothing changes, instead of
// stepping it level by level (kernels/grid.cu). A tile whose edge changed activates the
// tile on that side through the work queue that grid.cu uses (tile_queue.cuh). Relaxation
// is monotone (every value is the length of some path), so the fixpoint is the BFS.
// Host side: mazeroute/engines/gpu_sweep.py.
typedef unsigned long long u64;

#define UNREACHED 0xFFFFFFFFu
#define BLOCKED 0xFFFFFFFEu
#define INF 0x1FFFFFFF          // "no path yet" inside a tile (levels stay below: < 2^29 cells)
#define TILE_ROWS 32
#define TILE_COLS 64
#define PITCH 65                // padded row: lane-per-row and lane-per-column both conflict-free
#ifndef WARPS
#define WARPS 4                 // per block (one block per SM); gpu_sweep.py passes others
#endif
#define TEAMS (WARPS / 2)        // two warps settle a tile together
#define FULL 0xFFFFFFFFu

#ifndef SLEEP_MAX
#define SLEEP_MAX 64            // a waiting team polls more often than grid.cu's warps
#endif
#include "tile_queue.cuh"

// Per team: the tile's levels (padded rows), 64 carries, 4 words (the team's item, again,
// each warp's changed edges). Bytes: gpu_sweep.py TEAM_BYTES.
#define TEAM_INTS (TILE_ROWS * PITCH + 64 + 4)

// -DPROBE: counters in g_probe (visits, settle cycles, hand-over cycles, column passes,
// cycles waiting for work, visits again at once, then a visit's cycles loading, seeding,
// scanning, writing back), read by benchmarks/sweep_probe.py
#ifdef PROBE
__device__ u64 g_probe[12];
#define PROBE_T(t) const long long t = clock64()
#define PROBE_ADD(k, x) do { if (x) atomicAdd(g_probe + (k), (u64)(x)); } while (0)
#else
#define PROBE_T(t)
#define PROBE_ADD(k, x)
#endif

// Inside a tile a free cell holds its level, or INF while it has no path; a blocked cell
// (and a cell past the grid's edge) holds BLK == INF + 1, which a scan treats as a wall.
#define BLK 0x20000000
__device__ __forceinline__ int toVal(unsigned raw) { return raw >= BLOCKED ? INF : (int)raw; }

// One min-plus pass over the N cells v[0..N-1] in registers, both ways at once:
// level[i] = min over j in i's run of free cells of (v[j] + |i - j|). Each way is a
// chain of one DPX add-min a cell (Hopper's VIADDMNMX): fwd[i] = min(fwd[i-1] + step,
// v[i]), where step is 1, or 1 + BLK at a wall (v & BLK), which makes the wall's result
// BLK and so restarts the chain behind it; the two ways are independent chains,
// interleaved. Every value stays at most BLK, so nothing overflows. Returns whether a
// cell improved; lastFwd (the forward chain at cell N-1) and firstBwd (the backward one
// at cell 0) are what a neighbouring segment of the line would carry on with (+1 a cell).
template <int N>
__device__ __forceinline__ bool scanBothWays(int (&v)[N], int& lastFwd, int& firstBwd) {
    int f = BLK, b = BLK, step[N], fwd[N], bwd[N];
#pragma unroll
    for (int i = 0; i < N; ++i) step[i] = (v[i] & BLK) | 1;
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int i = k, j = N - 1 - k;
        fwd[i] = f = __viaddmin_s32(f, step[i], v[i]);
        bwd[j] = b = __viaddmin_s32(b, step[j], v[j]);
    }
    lastFwd = f;
    firstBwd = b;
    int diff = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        const int nv = min(fwd[i], bwd[i]);
        diff |= nv ^ v[i];
        v[i] = nv;
    }
    return diff != 0;
}

// scanBothWays on the N cells p[0], p[STEP], ... (a column of the tile in shared memory).
template <int N, int STEP>
__device__ __forceinline__ bool scanLine(int* p) {
    int v[N], lastFwd, firstBwd;
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = p[i * STEP];
    const bool changed = scanBothWays(v, lastFwd, firstBwd);
    if (changed) {
#pragma unroll
        for (int i = 0; i < N; ++i) p[i * STEP] = v[i];
    }
    return changed;
}

// A team of two warps settles a tile: warp h owns columns 32h .. 32h + 31 (lane = column
// in the column pass, lane = row in the row pass), so a visit's dependent chains are half
// as long as one warp's. The halves meet only in the row pass (a carry over the middle)
// and in the team's votes. Named barrier 1 + team, 64 threads (the unaligned form: warp 0
// may arrive diverged, lane 0 coming from the queue).
__device__ __forceinline__ void teamSync(int bar) {
    asm volatile("barrier.sync %0, 64;" :: "r"(bar) : "memory");
}

__device__ __forceinline__ bool teamAny(int bar, bool p) {
    int r;
    asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.s32 p, %1, 0;\n\t"
                 "barrier.red.or.pred q, %2, 64, p;\n\tselp.s32 %0, 1, 0, q;\n\t}"
                 : "=r"(r) : "r"((int)p), "r"(bar) : "memory");
    return r != 0;
}

// Row pass of warp h over its half of row `lane` (p: the half's first cell; walls: its
// wall cells as bits). Each half scans both ways on its own, then the left half's forward
// chain at column 31 carries rightwards into the right half's first run (up to its first
// wall), and the right half's backward chain at column 32 leftwards into the left half's
// last run: one exchange makes the pass exact, since a carried value only grows along
// that run.
__device__ __forceinline__ bool rowPass(int* p, int h, unsigned walls, int* carry, int bar) {
    const int lane = threadIdx.x & 31;
    int v[32], lastFwd, firstBwd;
#pragma unroll
    for (int i = 0; i < 32; ++i) v[i] = p[i];
    bool changed = scanBothWays(v, lastFwd, firstBwd);
    if (h == 0) carry[lane] = lastFwd;          // at column 31
    else carry[32 + lane] = firstBwd;           // at column 32
    teamSync(bar);
    int diff = 0;
    if (h == 1) {
        const int m = carry[lane] + 1;          // at column 32 + i: m + i
        const int firstWall = walls ? __ffs(walls) - 1 : 32;
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            const int nv = i < firstWall ? min(v[i], m + i) : v[i];
            diff |= nv ^ v[i];
            v[i] = nv;
        }
    } else {
        const int m = carry[32 + lane] + 32;    // at column i: m - i
        const int lastWall = walls ? 31 - __clz(walls) : -1;
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            const int nv = i > lastWall ? min(v[i], m - i) : v[i];
            diff |= nv ^ v[i];
            v[i] = nv;
        }
    }
    changed |= diff != 0;
    if (changed) {
#pragma unroll
        for (int i = 0; i < 32; ++i) p[i] = v[i];
    }
    return changed;
}

// *p = v if v < INF, as one predicated store: written as a branch, the compiler recomputes
// the row's address inside each of the 32 branches rather than keep one pointer.
__device__ __forceinline__ void storeIfPath(unsigned* p, int v) {
    asm volatile("{\n\t.reg .pred q;\n\tsetp.lt.s32 q, %1, %2;\n\t@q st.global.u32 [%0], %1;\n\t}"
                 :: "l"(p), "r"(v), "n"(INF) : "memory");
}

// Settle tile `tile` by the team (warp h of it, both warps call this). Returns the edges
// (bit 0 top, 1 bottom, 2 left, 3 right) that changed in this warp's cells, relative to
// the values found; stores the warp's highest level in the tile at tileMax[2 * tile + h]
// (the last visit of a tile sees its final levels). walls: the wall cells of this lane's
// half row, found by a cold visit and kept by the caller for warm ones.
__device__ __forceinline__ unsigned settleTile(int tile, unsigned* level,
                                               const u64* freeBits, int width, int height,
                                               int wordsPerRow, int tilesX, int h, int bar,
                                               int* s, int* carry, bool warm,
                                               unsigned& walls, int* tileMax) {
    const int lane = threadIdx.x & 31;
    const int ty = tile / tilesX, tx = tile - ty * tilesX;
    const int y0 = ty * TILE_ROWS, x0 = tx * TILE_COLS;
    const int rows = min(TILE_ROWS, height - y0), cols = min(TILE_COLS, width - x0);
    const u64 colMask = cols == 64 ? ~0ull : (1ull << cols) - 1;
    const int c = 32 * h + lane;                  // this lane's column
    const bool ownsRight = (cols - 1) / 32 == h;  // the right edge's column is ours
    PROBE_T(tl);
    // Every load of the visit is issued before the first is used, so that the visit pays
    // one memory latency rather than one per row: addresses are clamped into the grid and
    // the values masked afterwards, which keeps every load out from behind a branch.
    const int rowL = min(lane, rows - 1), cc = min(c, cols - 1);
    const unsigned* tile0 = level + (size_t)y0 * width + x0;
    const unsigned* mid = tile0 + (size_t)rowL * width;            // row `lane`
    const unsigned* up = level + (size_t)max(y0 - 1, 0) * width + x0;
    const unsigned* down = level + (size_t)min(y0 + rows, height - 1) * width + x0;
    // free word of row `lane` (tiles are aligned to the packed words); a warm visit (the
    // same team again at once) has the tile in shared memory still: the halo only
    u64 frRaw = 0;
    unsigned raw[TILE_ROWS];
    if (!warm) {
        frRaw = __ldcg(freeBits + (size_t)(y0 + rowL) * wordsPerRow + tx);
        const unsigned* row = tile0;
#pragma unroll
        for (int r = 0; r < TILE_ROWS; ++r) {
            raw[r] = __ldcg(row + cc);
            if (r + 1 < rows) row += width;
        }
    }
    // the halo: the neighbouring tiles' cells next to this tile's edges
    const unsigned rawTop = __ldcg(up + cc), rawBot = __ldcg(down + cc);
    const unsigned rawLeft = __ldcg(mid + (x0 > 0 ? -1 : 0));
    const unsigned rawRight = __ldcg(mid + (x0 + cols < width ? cols : cols - 1));
    if (!warm) {
        // this warp's half of row `lane` (nothing past the last row and column), and by
        // a transpose through ballots the free rows of this lane's column
        const unsigned half = lane < rows ? (unsigned)((frRaw & colMask) >> (32 * h)) : 0u;
        walls = ~half;
        unsigned colFree = 0;
#pragma unroll
        for (int j = 0; j < 32; ++j) {
            const unsigned b = __ballot_sync(FULL, (half >> j) & 1u);
            if (lane == j) colFree = b;
        }
#pragma unroll
        for (int r = 0; r < TILE_ROWS; ++r)
            s[r * PITCH + c] = (colFree >> r) & 1u ? toVal(raw[r]) : BLK;
    }
    PROBE_T(ta);
    const int top = y0 > 0 ? toVal(rawTop) : INF;
    const int bot = y0 + rows < height ? toVal(rawBot) : INF;
    const int left = x0 > 0 ? toVal(rawLeft) : INF;
    const int right = x0 + cols < width ? toVal(rawRight) : INF;
    __syncwarp();
    // the edges as found (each edge cell belongs to the warp owning its column)
    const int lastRow = (rows - 1) * PITCH;
    const int oTop = s[c], oBot = s[lastRow + c];
    const int oLeft = s[lane * PITCH], oRight = s[lane * PITCH + cols - 1];
    __syncwarp();
    // seed the free edge cells from the halo (INF + 1 == BLK: no path, no change), one
    // side at a time (corners are on two sides)
    if (oTop != BLK) s[c] = min(oTop, top + 1);
    __syncwarp();
    if (s[lastRow + c] != BLK) s[lastRow + c] = min(s[lastRow + c], bot + 1);
    __syncwarp();
    if (h == 0 && s[lane * PITCH] != BLK) s[lane * PITCH] = min(s[lane * PITCH], left + 1);
    __syncwarp();
    if (ownsRight && s[lane * PITCH + cols - 1] != BLK)
        s[lane * PITCH + cols - 1] = min(s[lane * PITCH + cols - 1], right + 1);
    __syncwarp();
    PROBE_T(tb);
    // rounds of row passes and column passes (cells past the tile's last row or column
    // hold BLK, so every lane scans): the tile is settled once a column pass changes
    // nothing (the row pass before it left every row settled) or a row pass after the
    // first changes nothing
    for (int pass = 0;; ++pass) {
        const bool rowChanged =
            teamAny(bar, rowPass(s + lane * PITCH + 32 * h, h, walls, carry, bar));
        if (pass > 0 && !rowChanged) break;
        const bool colChanged = teamAny(bar, scanLine<TILE_ROWS, PITCH>(s + c));
        PROBE_ADD(3, h == 0 && lane == 0 ? 1 : 0);
        if (!colChanged) break;
    }
    PROBE_T(tc);
    // write back the cells of our half that have a path (values only ever decrease; walls
    // and rows past the tile hold BLK, cells without a path INF): every shared-memory read
    // first, so that the stores do not wait on them one by one
    int v[TILE_ROWS];
#pragma unroll
    for (int r = 0; r < TILE_ROWS; ++r) v[r] = s[r * PITCH + c];
    unsigned* out = level + (size_t)y0 * width + x0 + c;     // (past the grid: not stored)
    int highest = 0;
#pragma unroll
    for (int r = 0; r < TILE_ROWS; ++r) {
        storeIfPath(out, v[r]);
        highest = max(highest, v[r] < INF ? v[r] : 0);
        out += width;
    }
    highest = __reduce_max_sync(FULL, highest);
    if (lane == 0) tileMax[2 * tile + h] = highest;
    unsigned edges = 0;
    if (__any_sync(FULL, s[c] != oTop)) edges |= 1u;
    if (__any_sync(FULL, s[lastRow + c] != oBot)) edges |= 2u;
    if (__any_sync(FULL, h == 0 && lane < rows && s[lane * PITCH] != oLeft)) edges |= 4u;
    if (__any_sync(FULL, ownsRight && lane < rows && s[lane * PITCH + cols - 1] != oRight))
        edges |= 8u;
    PROBE_T(td);
    PROBE_ADD(6, h == 0 && lane == 0 ? ta - tl : 0);
    PROBE_ADD(7, h == 0 && lane == 0 ? tb - ta : 0);
    PROBE_ADD(8, h == 0 && lane == 0 ? tc - tb : 0);
    PROBE_ADD(9, h == 0 && lane == 0 ? td - tc : 0);
    return edges;
}

// Persistent wavefront: every team takes tiles from the work queue (tile_queue.cuh) and
// settles them; a visit whose edge changed activates the neighbour on that side (one idle
// neighbour the team takes on itself, with no queue round trip); a tile whose halo
// improved while it was being settled is settled again at once. A tile is visited as soon
// as a neighbour hands over, so the critical path is a chain of visits. Queue items carry
// SRC_FLAG for the sources' tiles, whose edges count as changed on their first visit (the
// sources were put on level 0 before). The team that brings the pending count to zero
// ends the run. Warp 0 of a team (its lane 0) does the queue work.
extern "C" __global__ void __launch_bounds__(WARPS * 32, 1)
sweep_wavefront(unsigned* level, const u64* freeBits, int width, int height, int wordsPerRow,
                int tilesX, int tilesY, int* state, int* queue, int* counters,
                unsigned qmask, int* tileMax) {
    extern __shared__ int smem[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int team = warp >> 1, h = warp & 1, bar = 1 + team;
    int* s = smem + team * TEAM_INTS;
    int* carry = s + TILE_ROWS * PITCH;           // 64 ints: the row passes' carries
    int* word = carry + 64;     // [0] the team's item, [1] again, [2 + h] warp h's edges
    unsigned walls = 0;                           // see settleTile
    int next = -1;                                // a neighbour this team claimed (leader)
    const bool leader = h == 0 && lane == 0;
    while (true) {
        PROBE_T(t0);
        if (leader) {
            int item = next;
            next = -1;
            if (item < 0) {
                item = dequeue(queue, counters, qmask);
                if (item >= 0) atomicExch(&state[item & ~SRC_FLAG], RUNNING);
            }                                      // (a claimed tile is RUNNING already)
            if (item >= 0) fence();
            word[0] = item;
        }
        teamSync(bar);
        const int item = word[0];
        if (item < 0) return;
        PROBE_T(t1);
        PROBE_ADD(4, leader ? t1 - t0 : 0);
        const int t = item & ~SRC_FLAG;
        const int ty = t / tilesX, tx = t - ty * tilesX;
        bool sources = (item & SRC_FLAG) != 0, warm = false;
        while (true) {
            PROBE_T(t2);
            const unsigned mine = settleTile(t, level, freeBits, width, height, wordsPerRow,
                                             tilesX, h, bar, s, carry, warm, walls, tileMax);
            warm = true;
            if (lane == 0) word[2 + h] = mine;
            PROBE_T(t3);
            // both halves' writes, then the hand-over: warp 1 fences its writes before the
            // barrier, warp 0 after it (its own writes, and cumulatively warp 1's)
            if (h == 1) fence();
            teamSync(bar);
            if (h == 0) {
                fence();
                unsigned edges = sources ? 0xFu : word[2] | word[3];
                if (ty == 0) edges &= ~1u;
                if (ty + 1 == tilesY) edges &= ~2u;
                if (tx == 0) edges &= ~4u;
                if (tx + 1 == tilesX) edges &= ~8u;
                // lanes 0..3 activate the neighbour on their side at once; the lower,
                // else upper, else right, else left one is the team's to take on if idle
                // (a tile is half as tall as wide: twice the hand-overs per level
                // vertically, so those are the ones to spare a queue round trip);
                // lane 4 gives the tile up meanwhile (or finds it DIRTY: our halo improved
                // while we settled it, so settle it again)
                const bool holding = __shfl_sync(FULL, next, 0) >= 0;
                int claimed = 0, again = 0;
                if (lane < 4 && ((edges >> lane) & 1u)) {
                    const int nb = lane == 0 ? t - tilesX : lane == 1 ? t + tilesX
                                 : lane == 2 ? t - 1 : t + 1;
                    const int pick = edges & 2u ? 1 : edges & 1u ? 0 : edges & 8u ? 3 : 2;
                    const bool take = !holding && lane == pick;
                    claimed = activate(state, queue, counters, qmask, nb, take) ? nb + 1 : 0;
                } else if (lane == 4 && atomicCAS(&state[t], RUNNING, IDLE) == DIRTY) {
                    atomicExch(&state[t], RUNNING);
                    fence();
                    again = 1;
                }
                claimed = __reduce_max_sync(FULL, claimed);
                again = __reduce_max_sync(FULL, again);
                if (lane == 0) {
                    if (claimed) next = claimed - 1;
                    word[1] = again;
                }
            }
            sources = false;
            teamSync(bar);
            PROBE_T(t4);
            PROBE_ADD(0, leader ? 1 : 0);
            PROBE_ADD(1, leader ? t3 - t2 : 0);
            PROBE_ADD(2, leader ? t4 - t3 : 0);
            if (!word[1]) break;
            PROBE_ADD(5, leader ? 1 : 0);
        }
        // a claimed tile takes over this one's pending count (tile_queue.cuh activate)
        if (leader && next < 0 && atomicSub(&counters[PENDING], 1) == 1)
            atomicExch(&counters[DONE], 1);
    }
}

// Before a wavefront (one block): put the sources (numSources cell ids) on level 0, reset
// the queue counters and queue the sources' tiles (every tile IDLE, the queue EMPTY: as a
// finished run leaves them).
extern "C" __global__ void sweep_seed(unsigned* level, const int* sources, int numSources,
                                      int width, int tilesX, int* state, int* queue,
                                      int* counters, unsigned qmask) {
    if (threadIdx.x == 0)
        counters[HEAD] = counters[TAIL] = counters[PENDING] = counters[DONE] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < numSources; i += blockDim.x) {
        const int v = sources[i], y = v / width, x = v - y * width;
        level[v] = 0;
        const int t = (y / TILE_ROWS) * tilesX + x / TILE_COLS;
        if (atomicCAS(&state[t], IDLE, QUEUED) == IDLE) {
            queue[atomicAdd((unsigned*)&counters[TAIL], 1u) & qmask] = t | SRC_FLAG;
            atomicAdd(&counters[PENDING], 1);
        }
    }
}

// After a run: the highest level (into maxLevel[0], raised by atomicMax from 0) from each
// warp's last word on each tile, which it then clears for the next run (tiles a run does
// not visit keep 0: they hold no level).
extern "C" __global__ void sweep_max_level(int* tileMax, int n, unsigned* maxLevel) {
    int m = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        m = max(m, tileMax[i]);
        tileMax[i] = 0;
    }
    m = __reduce_max_sync(FULL, m);
    if ((threadIdx.x & 31) == 0 && m) atomicMax(maxLevel, (unsigned)m);
}
