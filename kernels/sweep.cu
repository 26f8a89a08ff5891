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
#define INF 0x3FFFFFFF          // "no path yet" inside a tile; INF + 1 cannot wrap
#define TILE_ROWS 32
#define TILE_COLS 64
#define PITCH 65                // padded row: lane-per-row and lane-per-column both conflict-free
#define WARPS 8
#define TEAMS (WARPS / 2)        // two warps settle a tile together
#define FULL 0xFFFFFFFFu

#include "tile_queue.cuh"

// Per team: the tile's levels (padded rows), 64 carries, 2 words (+2 to keep 8-byte
// alignment); per warp the free rows. Bytes: gpu_sweep.py SMEM_BYTES.
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
// (and a cell past the grid's edge) holds BLK, which a scan treats as a wall.
#define BLK 0x40000000
__device__ __forceinline__ int toVal(unsigned raw) { return raw >= BLOCKED ? INF : (int)raw; }

// One min-plus pass over the N cells v[0..N-1] in registers, forward then backward:
// level[i] = min over j in i's run of free cells of (v[j] + |i - j|). Written with the
// offset v[j] -/+ j, the loop-carried chain is one min and one max per cell (the max
// resets the running minimum at a wall) and the rest runs off the chain. Walls keep BLK
// (BLK + i and BLK + N - i are never below it). Returns whether a cell improved; the
// running minima left at the ends (exitFwd: level - i past cell N-1, exitBwd: level + i
// past cell 0) are what a neighbouring segment of the line would carry on with.
template <int N>
__device__ __forceinline__ bool scanBothWays(int (&v)[N], int& exitFwd, int& exitBwd) {
    bool changed = false;
    int m = BLK;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        m = max(min(m, v[i] - i), v[i] > INF ? BLK : -BLK);
        const int nv = min(v[i], m + i);
        changed |= nv != v[i];
        v[i] = nv;
    }
    exitFwd = m;
    m = BLK + N;
#pragma unroll
    for (int i = N - 1; i >= 0; --i) {
        m = max(min(m, v[i] + i), v[i] > INF ? BLK + N : -BLK);
        const int nv = min(v[i], m - i);
        changed |= nv != v[i];
        v[i] = nv;
    }
    exitBwd = m;
    return changed;
}

// scanBothWays on the N cells p[0], p[STEP], ... (a column of the tile in shared memory).
template <int N, int STEP>
__device__ __forceinline__ bool scanLine(int* p) {
    int v[N], exitFwd, exitBwd;
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = p[i * STEP];
    const bool changed = scanBothWays(v, exitFwd, exitBwd);
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

// Row pass of warp h over its half of row `lane` (p: the half's first cell). Each half
// scans both ways on its own (offsets by the cell's column within the half), then the
// left half's running minimum at column 31 carries rightwards into the right half's first
// run, and the right half's at column 32 leftwards into the left half's last run: one
// exchange makes the pass exact, since a carried value only grows along that run.
__device__ __forceinline__ bool rowPass(int* p, int h, int* carry, int bar) {
    const int lane = threadIdx.x & 31;
    int v[32], exitRight, exitLeft;
#pragma unroll
    for (int i = 0; i < 32; ++i) v[i] = p[i];
    bool changed = scanBothWays(v, exitRight, exitLeft);
    // in columns of the whole tile: level - column leaving the left half, level + column
    // leaving the right half
    if (h == 0) carry[lane] = exitRight;
    else carry[32 + lane] = exitLeft + 32;
    teamSync(bar);
    int m;
    if (h == 1) {
        m = carry[lane];                        // level - column, column = 32 + i
#pragma unroll
        for (int i = 0; i < 32; ++i) {
            m = max(m, v[i] > INF ? BLK : -BLK);
            const int nv = min(v[i], m + 32 + i);
            changed |= nv != v[i];
            v[i] = nv;
        }
    } else {
        m = carry[32 + lane];                   // level + column, column = i
#pragma unroll
        for (int i = 31; i >= 0; --i) {
            m = max(m, v[i] > INF ? BLK + 64 : -BLK);
            const int nv = min(v[i], m - i);
            changed |= nv != v[i];
            v[i] = nv;
        }
    }
    if (changed) {
#pragma unroll
        for (int i = 0; i < 32; ++i) p[i] = v[i];
    }
    return changed;
}

// Settle tile `tile` by the team (warp h of it, both warps call this); returns the changed
// edges (bit 0 top, 1 bottom, 2 left, 3 right) relative to the values found, in both warps.
__device__ unsigned settleTile(int tile, unsigned* level, const u64* freeBits, int width,
                               int height, int wordsPerRow, int tilesX, int h, int bar,
                               int* s, int* carry, u64* sFree, bool warm) {
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
        sFree[lane] = lane < rows ? frRaw & colMask : 0ull;
        __syncwarp();
#pragma unroll
        for (int r = 0; r < TILE_ROWS; ++r)    // sFree: zero past the last row and column
            s[r * PITCH + c] = (sFree[r] >> c) & 1ull ? toVal(raw[r]) : BLK;
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
        const bool rowChanged = teamAny(bar, rowPass(s + lane * PITCH + 32 * h, h, carry, bar));
        if (pass > 0 && !rowChanged) break;
        const bool colChanged = teamAny(bar, scanLine<TILE_ROWS, PITCH>(s + c));
        PROBE_ADD(3, h == 0 && lane == 0 ? 1 : 0);
        if (!colChanged) break;
    }
    PROBE_T(tc);
    // write back the free cells of our half that have a path (values only ever decrease;
    // walls hold BLK and cells without a path INF)
    unsigned* out = level + (size_t)y0 * width + x0 + c;
#pragma unroll
    for (int r = 0; r < TILE_ROWS; ++r) {
        if (r < rows) {
            const int v = s[r * PITCH + c];
            if (v < INF) *out = (unsigned)v;
            out += width;
        }
    }
    unsigned edges = 0;
    if (teamAny(bar, s[c] != oTop)) edges |= 1u;
    if (teamAny(bar, s[lastRow + c] != oBot)) edges |= 2u;
    if (teamAny(bar, h == 0 && lane < rows && s[lane * PITCH] != oLeft)) edges |= 4u;
    if (teamAny(bar, ownsRight && lane < rows && s[lane * PITCH + cols - 1] != oRight))
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
                unsigned qmask) {
    extern __shared__ int smem[];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int team = warp >> 1, h = warp & 1, bar = 1 + team;
    int* s = smem + team * TEAM_INTS;
    int* carry = s + TILE_ROWS * PITCH;           // 64 ints: the row passes' carries
    int* word = carry + 64;                       // [0] the team's item, [1] again
    u64* sFree = (u64*)(smem + TEAMS * TEAM_INTS) + warp * TILE_ROWS;
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
            unsigned edges = settleTile(t, level, freeBits, width, height, wordsPerRow,
                                        tilesX, h, bar, s, carry, sFree, warm);
            warm = true;
            if (sources) edges = 0xFu;
            sources = false;
            if (ty == 0) edges &= ~1u;
            if (ty + 1 == tilesY) edges &= ~2u;
            if (tx == 0) edges &= ~4u;
            if (tx + 1 == tilesX) edges &= ~8u;
            PROBE_T(t3);
            fence();                               // both halves' writes, then the hand-over
            teamSync(bar);
            if (h == 0) {
                fence();
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
            teamSync(bar);
            PROBE_T(t4);
            PROBE_ADD(0, leader ? 1 : 0);
            PROBE_ADD(1, leader ? t3 - t2 : 0);
            PROBE_ADD(2, leader ? t4 - t3 : 0);
            if (!word[1]) break;
            PROBE_ADD(5, leader ? 1 : 0);
        }
        if (leader && atomicSub(&counters[PENDING], 1) == 1) atomicExch(&counters[DONE], 1);
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
