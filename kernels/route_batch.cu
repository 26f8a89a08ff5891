// PMPP Fig. 15.16 (B) (one block runs many consecutive BFS levels in shared memory with
// __syncthreads() between them) applied to the routing grid of Fig. 15.5, for many nets
// at once: one block per two-pin net, each confined to its own window of the grid, then
// the backtrace of Fig. 15.5 (B) on the device. Host side: mazeroute/engines/gpu_batch.py,
// which also states why the results equal sequential routing.
//
// route_batch: per block (net), with the blockages as of the net's own routing position
// `pos` (a cell blocked by the wire of a later net, time[cell] > pos, counts as free):
//   * level-synchronous bit-parallel BFS inside the window: each row of the window is
//     `wd` 64-bit words; one level is, per word, the frontier shifted left, right, up and
//     down, masked by the free-and-unvisited plane. The level of a labelled cell is kept
//     mod 4 in two bit planes: neighbours of a cell on level L are on L - 1 or L + 1, so
//     two bits tell them apart for the backtrace.
//   * exact early exit at the level `T` that labels the target. T <= limit: the
//     backtrace (keep heading, else up, left, right, down; mazeroute/backtrace.py) writes
//     the wire root first to paths[off ..], and the block commits it (free bit cleared,
//     wired bit set, time = pos, resting and current level BLOCKED). T > limit: GROW.
//   * the target unreached: if no labelled cell touches a free cell just outside the
//     window, the source's component is enclosed (UNROUTED_SOURCE, exact level count);
//     else a BFS from the target tells UNROUTED_TARGET (its component is enclosed) from
//     ESCAPED.
// A net of 3..MAX_PINS pins (routeTree) grows its tree as the router does (Fig. 15.5
// per branch): each stage is a BFS from every cell of the tree so far, stopped at the
// first level that labels a pin not yet in the tree (the first such pin in the net's
// order is the target), then the backtrace to the tree. Exactness: a path from the tree
// to a pin q that leaves the window first steps out from a labelled cell c (level L) to
// a free cell o outside, so it is at least B = min L + 1 + |o - q| long; a target level
// T < B means every path of T steps or fewer to a pin stays inside, so the pins on
// level T and every cell the backtrace can step on have the whole grid's levels. T >= B
// is ESCAPED. A stage that reaches no pin is UNROUTED_SOURCE when nothing labelled
// touches the outside (the tree's component is enclosed, its count exact); else a BFS
// from the pins not in the tree tells UNROUTED_TARGET (their components are enclosed;
// the tree so far goes back for the count) from ESCAPED. ALONE: the tree outgrew its
// room (the router searches the net by itself).
// commit_cells: block (or free again, where time still names the net) listed cells.
// count_levels: the number of levels of a full wavefront from a root, as of its `pos`
// (one block per root; visited bits and the frontier ring in shared memory when they
// fit). It runs on a second stream while later nets are committed or lifted, on a copy
// of the free and wired bits taken when it was started (the host's count_levels) and on
// the live time stamps: a cell blocked in the copy by a later net's wire reads free
// whatever net stamps it since, as only nets after the root's do. It reads a cell's free
// bit, then (after a fence) its wired bit and time, as when the bits are the live ones
// (writers store time and the wired bit before, after a fence, clearing the free bit).

typedef unsigned long long u64;

#define UNREACHED 0xFFFFFFFFu
#define NO_WIRE 0x7FFFFFFF      // time of a cell no wire holds (gpu_batch.py NO_WIRE)
#define BLOCKED 0xFFFFFFFEu

// record fields (gpu_batch.py REC, F_*)
#define REC 14
#define F_POS 0
#define F_X0 1
#define F_Y0 2
#define F_W 3
#define F_H 4
#define F_SX 5
#define F_SY 6
#define F_TX 7
#define F_TY 8
#define F_LIMIT 9
#define F_OFF 10
#define F_NPINS 11
#define F_PINS 12
#define F_ROOM 13       // the largest margin the window may grow to in this launch
// result header: status, levels, bends, cells of the wire, clock cycles, BFS levels run
#ifdef PHASES   // probing: + cycles of load, BFS levels, backtrace
#define HDR 10
#else
#define HDR 7
#endif
#define H_MARGIN 6      // the margin of the window the result is of (it may grow: F_ROOM)
#define OK 1
#define GROW 2
#define UNROUTED_SOURCE 3
#define UNROUTED_TARGET 4
#define ESCAPED 5
#define ALONE 6
// 64-bit planes per window row word (gpu_batch.py PLANES).
#define PLANES 6
// Most pins of a net searched as a tree (a bit each in a mask).
#define MAX_PINS 32

// Most window words one thread handles per level (the host launches enough threads).
#define WORDS_PER_THREAD 5

struct Grid {
    u64* freeBits;
    u64* wiredBits;
    int* time;
    int width, height, wordsPerRow;
};

// Bits gx .. gx + nbits - 1 (nbits <= 64) of row gy of a row-major bit array, bit 0 first.
__device__ __forceinline__ u64 rowBits(const u64* bits, int wordsPerRow, int gy, int gx,
                                       int nbits) {
    const u64* row = bits + (size_t)gy * wordsPerRow;
    int k = gx >> 6, b = gx & 63;
    u64 v = __ldcg(row + k) >> b;
    if (b && k + 1 < wordsPerRow) v |= __ldcg(row + k + 1) << (64 - b);
    return nbits >= 64 ? v : v & ((1ull << nbits) - 1);
}

// Free cells among columns gx .. gx + nbits - 1 of row gy as of routing position pos.
// CONCURRENT: other kernels may be writing (see count_levels above): bypass L1 and read
// the free bits before, and fenced from, the wired bits and times.
template <bool CONCURRENT>
__device__ u64 freeAt(const Grid& g, int gy, int gx, int nbits, int pos) {
    u64 f = rowBits(g.freeBits, g.wordsPerRow, gy, gx, nbits);
    if (CONCURRENT) __threadfence();
    u64 later = ~f & rowBits(g.wiredBits, g.wordsPerRow, gy, gx, nbits);
    while (later) {
        int b = __ffsll((long long)later) - 1;
        later &= later - 1;
        int* t = g.time + (size_t)gy * g.width + gx + b;
        if ((CONCURRENT ? __ldcg(t) : *t) > pos) f |= 1ull << b;
    }
    return f;
}

// One net's window in shared memory: six planes of h x wd words, then the halo.
struct Window {
    int x0, y0, w, h, wd, n;
    u64 *avail, *vis, *front0, *front1, *lv0, *lv1, *haloT, *haloB;
    unsigned char *haloL, *haloR;

    __device__ void carve(u64* smem) {
        wd = (w + 63) >> 6;
        n = h * wd;
        avail = smem;
        vis = avail + n;
        front0 = vis + n;
        front1 = front0 + n;
        lv0 = front1 + n;
        lv1 = lv0 + n;
        haloT = lv1 + n;
        haloB = haloT + wd;
        haloL = (unsigned char*)(haloB + wd);
        haloR = haloL + ((h + 7) / 8 * 8);
    }

    // Labelled cells of word (r, k) that have a free 4-neighbour just outside the window.
    __device__ __forceinline__ u64 exits(int r, int k) const {
        u64 e = 0;
        if (r == 0) e |= haloT[k];
        if (r == h - 1) e |= haloB[k];
        if (k == 0 && haloL[r]) e |= 1ull;
        if (k == wd - 1 && haloR[r]) e |= 1ull << ((w - 1) & 63);
        return e;
    }

    // Local cell (x, y) is inside, labelled, and on a level equal to `want` mod 4.
    __device__ __forceinline__ bool holds(int x, int y, int want) const {
        if (x < 0 || x >= w || y < 0 || y >= h) return false;
        int i = y * wd + (x >> 6);
        u64 m = vis[i] & ((want & 1) ? lv0[i] : ~lv0[i]) & ((want & 2) ? lv1[i] : ~lv1[i]);
        return (m >> (x & 63)) & 1ull;
    }

    // CONCURRENT: the window grew in the launch and may hold cells other blocks write.
    template <bool CONCURRENT = false>
    __device__ void load(const Grid& g, int pos) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            int r = i / wd, k = i - r * wd;
            avail[i] = freeAt<CONCURRENT>(g, y0 + r, x0 + 64 * k, min(64, w - 64 * k), pos);
            vis[i] = front0[i] = front1[i] = lv0[i] = lv1[i] = 0;
        }
        for (int k = threadIdx.x; k < wd; k += blockDim.x) {
            int nb = min(64, w - 64 * k);
            haloT[k] = y0 > 0 ? freeAt<CONCURRENT>(g, y0 - 1, x0 + 64 * k, nb, pos) : 0;
            haloB[k] = y0 + h < g.height ? freeAt<CONCURRENT>(g, y0 + h, x0 + 64 * k, nb, pos) : 0;
        }
        for (int r = threadIdx.x; r < h; r += blockDim.x) {
            haloL[r] = x0 > 0 ? (unsigned char)freeAt<CONCURRENT>(g, y0 + r, x0 - 1, 1, pos) : 0;
            haloR[r] = x0 + w < g.width ? (unsigned char)freeAt<CONCURRENT>(g, y0 + r, x0 + w, 1, pos) : 0;
        }
    }
};

__shared__ int s_found[2];    // per level parity: a slot is cleared a level before its use
__shared__ int s_escaped;
#ifdef PHASES
__shared__ long long s_loaded;   // clock when the first search's window was loaded
#endif

// One level of the bit-parallel BFS on word i (row r, column k of the window): the cells
// of curr's neighbours still available become next[i], visited, no longer available.
__device__ __forceinline__ u64 stepWord(Window& win, const u64* curr, u64* next, int i,
                                        int r, int k) {
    u64 f = curr[i];
    u64 nb = (f << 1) | (f >> 1);
    if (k > 0) nb |= curr[i - 1] >> 63;
    if (k < win.wd - 1) nb |= curr[i + 1] << 63;
    if (r > 0) nb |= curr[i - win.wd];
    if (r < win.h - 1) nb |= curr[i + win.wd];
    u64 fresh = nb ? nb & win.avail[i] : 0;   // most words: no frontier near
    next[i] = fresh;
    if (fresh) {
        win.avail[i] &= ~fresh;
        win.vis[i] |= fresh;
    }
    return fresh;
}

// The level loop shared by both kinds of net: from the frontier in front0 (level 0), one
// level after another over this thread's words (row[j], col[j]), labelling levels mod 4
// when `labels`; found(i, r, k, fresh, level) sees each word's fresh cells and sets
// s_found[level & 1] when a target is among them. Stops after the level that found one
// (returns it, *numLevels = level + 1) or after a level that labels nothing (returns -1,
// *numLevels = level). The caller clears s_found; every thread must call it.
template <class Found>
__device__ int levels(Window& win, const int* row, const int* col, bool labels,
                      int* numLevels, Found found) {
    int level = 0;
    u64* curr = win.front0;
    u64* next = win.front1;
    while (true) {
        int currLevel = ++level;
        if (threadIdx.x == 0) s_found[(currLevel + 1) & 1] = 0;
        int any = 0;
#pragma unroll
        for (int j = 0; j < WORDS_PER_THREAD; ++j) {
            int i = threadIdx.x + j * blockDim.x;
            if (i >= win.n) break;
            int r = row[j], k = col[j];
            u64 fresh = stepWord(win, curr, next, i, r, k);
            if (fresh) {
                any = 1;
                if (labels) {
                    if (currLevel & 1) win.lv0[i] |= fresh;
                    if (currLevel & 2) win.lv1[i] |= fresh;
                }
                found(i, r, k, fresh, currLevel);
            }
        }
        any = __syncthreads_or(any);
        if (s_found[currLevel & 1]) {
            *numLevels = currLevel + 1;
            return currLevel;
        }
        if (!any) {
            *numLevels = currLevel;
            return -1;
        }
        u64* t = curr;
        curr = next;
        next = t;
    }
}

// This thread's words of the window: the row and column of each, computed once.
__device__ __forceinline__ void ownWords(const Window& win, int* row, int* col) {
#pragma unroll
    for (int j = 0; j < WORDS_PER_THREAD; ++j) {
        int i = threadIdx.x + j * blockDim.x;
        row[j] = i / win.wd;
        col[j] = i - row[j] * win.wd;
    }
}

// Level-synchronous BFS from local cell (sx, sy) with both pins free; labels levels mod 4
// when `labels`. Stops after the level that labels (tx, ty) (tx < 0: no target). Returns
// that level or -1; *numLevels is the number of levels labelled; *escaped as above.
// `concurrent`: the window grew in the launch (Window::load). Every thread must call it
// (it synchronises the block).
__device__ int bfs(Window& win, const Grid& g, int pos, int sx, int sy, int ox, int oy,
                   int tx, int ty, bool labels, int* numLevels, bool* escaped,
                   bool concurrent) {
    if (concurrent)
        win.load<true>(g, pos);
    else
        win.load(g, pos);
    __syncthreads();
#ifdef PHASES
    if (threadIdx.x == 0 && labels) s_loaded = clock64();
#endif
    int sWord = sy * win.wd + (sx >> 6);
    u64 sBit = 1ull << (sx & 63);
    int tWord = tx >= 0 ? ty * win.wd + (tx >> 6) : -1;
    u64 tBit = tx >= 0 ? 1ull << (tx & 63) : 0;
    if (threadIdx.x == 0) {
        win.avail[oy * win.wd + (ox >> 6)] |= 1ull << (ox & 63);   // the net's other pin
        win.avail[sWord] &= ~sBit;
        win.vis[sWord] |= sBit;
        win.front0[sWord] |= sBit;
        s_escaped = (win.exits(sy, sx >> 6) & sBit) != 0;
        s_found[0] = s_found[1] = 0;
    }
    __syncthreads();
    int row[WORDS_PER_THREAD], col[WORDS_PER_THREAD];
    ownWords(win, row, col);
    int T = levels(win, row, col, labels, numLevels,
                   [&](int i, int r, int k, u64 fresh, int level) {
                       if (i == tWord && (fresh & tBit)) s_found[level & 1] = 1;
                       if (fresh & win.exits(r, k)) s_escaped = 1;
                   });
    *escaped = s_escaped != 0;
    return T;
}

// Directions 0-3: up, left, right, down (backtrace.py's order).
__device__ __forceinline__ int stepX(int d) { return d == 1 ? -1 : d == 2 ? 1 : 0; }
__device__ __forceinline__ int stepY(int d) { return d == 0 ? -1 : d == 3 ? 1 : 0; }

__constant__ int c_dx[4] = {0, -1, 1, 0};   // up, left, right, down
__constant__ int c_dy[4] = {-1, 0, 0, 1};

// The backtrace of Fig. 15.5 (B) with backtrace.py's rule (keep the heading, else up, left,
// right, down; a straight step probes one cell) from local cell (x, y) on level T down to
// level 0: the cell reached after `step` steps goes to cells[T - step] (vertex ids; the
// one on level 0 only when `last`), each turn adds to *bends. Returns false if a step
// finds no cell, which exact levels never allow. The 32 lanes of one warp run it, with the
// same arguments (lane 0 alone adds to *bends): while the heading holds, lane j probes the
// cell j + 1 steps straight on, so a straight run of up to 32 steps costs one probe and a
// vote; at its end lanes 0-3 probe the four turns. (One thread stepping cell by cell pays
// a dependent shared-memory load a step, and a long wire has thousands of steps.)
__device__ __forceinline__ bool traceBack(const Window& win, int x, int y, int T,
                                          bool last, int width, int* cells, int* bends) {
    const unsigned all = 0xFFFFFFFFu;
    const int lane = threadIdx.x & 31;
    int heading = -1, turns = 0, step = 1;    // step: the number of the next step
    while (step <= T) {
        if (heading >= 0) {
            const int dx = stepX(heading), dy = stepY(heading);
            const int ax = x + (lane + 1) * dx, ay = y + (lane + 1) * dy;
            const bool on = step + lane <= T && win.holds(ax, ay, (T - step - lane) & 3);
            const unsigned m = __ballot_sync(all, on);
            const int run = m == all ? 32 : __ffs(~m) - 1;
            if (lane < run && (step + lane < T || last))
                cells[T - step - lane] = (win.y0 + ay) * width + win.x0 + ax;
            x += run * dx;
            y += run * dy;
            step += run;
            if (run == 32 || step > T) continue;
        }
        const bool open = lane < 4 && lane != heading
                          && win.holds(x + stepX(lane), y + stepY(lane), (T - step) & 3);
        const unsigned m = __ballot_sync(all, open);
        if (!m) return false;
        const int go = __ffs(m) - 1;
        turns += heading >= 0;
        heading = go;
        x += stepX(go);
        y += stepY(go);
        if (lane == 0 && (step < T || last)) cells[T - step] = (win.y0 + y) * width + win.x0 + x;
        ++step;
    }
    if (lane == 0) *bends += turns;
    return true;
}

__shared__ int s_px[MAX_PINS], s_py[MAX_PINS];   // a tree net's pins, window-local
__shared__ int s_bound;        // B of the notes at the top (INT_MAX: nothing touches outside)
__shared__ int s_tree, s_status, s_levels, s_bends, s_target;

#define NO_BOUND 0x7FFFFFFF

// Block (commit) the cell v as a wire cell of the net at pos (see count_levels above for
// the order of the writes).
__device__ __forceinline__ void commitCell(const Grid& g, unsigned* rest, unsigned* level,
                                           int v, int pos) {
    int y = v / g.width, x = v - y * g.width;
    size_t word = (size_t)y * g.wordsPerRow + (x >> 6);
    u64 bit = 1ull << (x & 63);
    // the earliest wire on a cell names it: two wires of one launch may share a cell
    // (a window grown in the launch), and lifting the later one must leave it blocked
    atomicMin(&g.time[v], pos);
    atomicOr(&g.wiredBits[word], bit);
    __threadfence();      // time and wired bit before the free bit (count_levels)
    atomicAnd(&g.freeBits[word], ~bit);
    rest[v] = BLOCKED;
    level[v] = BLOCKED;
}

// Lower s_bound by the cells `ex` of word (r, k), labelled on level L, that touch a free
// cell o outside the window: L + 1 + |o - q| for the nearest pin q not in the tree.
__device__ void lowerBound(const Window& win, int r, int k, u64 ex, int L, int npins,
                           unsigned joined) {
    while (ex) {
        int b = __ffsll((long long)ex) - 1;
        ex &= ex - 1;
        int x = 64 * k + b;
        for (int side = 0; side < 4; ++side) {
            bool open = side == 0 ? r == 0 && ((win.haloT[k] >> b) & 1ull)
                      : side == 1 ? r == win.h - 1 && ((win.haloB[k] >> b) & 1ull)
                      : side == 2 ? x == 0 && win.haloL[r]
                                  : x == win.w - 1 && win.haloR[r];
            if (!open) continue;
            int ox = side == 2 ? -1 : side == 3 ? win.w : x;
            int oy = side == 0 ? -1 : side == 1 ? win.h : r;
            int best = NO_BOUND;
            for (int q = 0; q < npins; ++q)
                if (!((joined >> q) & 1u))
                    best = min(best, abs(ox - s_px[q]) + abs(oy - s_py[q]));
            atomicMin(&s_bound, L + 1 + best);
        }
    }
}

// Whether the cells the pins not in the tree reach inside the window touch a free cell
// outside it. Every thread must call it.
__device__ bool pinsEscape(Window& win, const Grid& g, int pos, int npins, unsigned joined,
                           const int* row, const int* col) {
    win.load(g, pos);
    if (threadIdx.x == 0) s_escaped = 0;
    __syncthreads();
    for (int j = threadIdx.x; j < npins; j += blockDim.x) {
        if ((joined >> j) & 1u) continue;
        int k = s_py[j] * win.wd + (s_px[j] >> 6);
        u64 b = 1ull << (s_px[j] & 63);
        atomicOr(&win.vis[k], b);
        atomicOr(&win.front0[k], b);
        if (win.exits(s_py[j], s_px[j] >> 6) & b) s_escaped = 1;
    }
    u64* curr = win.front0;
    u64* next = win.front1;
    while (true) {
        __syncthreads();
        if (s_escaped) return true;
        int any = 0;
#pragma unroll
        for (int j = 0; j < WORDS_PER_THREAD; ++j) {
            int i = threadIdx.x + j * blockDim.x;
            if (i >= win.n) break;
            u64 fresh = stepWord(win, curr, next, i, row[j], col[j]);
            if (fresh) {
                any = 1;
                if (fresh & win.exits(row[j], col[j])) s_escaped = 1;
            }
        }
        if (!__syncthreads_or(any)) return s_escaped != 0;
        u64* t = curr;
        curr = next;
        next = t;
    }
}

// A net of 3..MAX_PINS pins (see the notes at the top): its tree, root first, then each
// branch from the tree outwards, in paths[off ..]; the header as route_batch's.
__device__ void routeTree(Window& win, const Grid& g, const int* rec, const int* pinXY,
                          unsigned* rest, unsigned* level, int* hdr, int* paths) {
    const int pos = rec[F_POS], off = rec[F_OFF], room = rec[F_LIMIT] + 1;
    const int npins = rec[F_NPINS];
    const int* pin = pinXY + 2 * rec[F_PINS];
    long long t0 = clock64();
    for (int j = threadIdx.x; j < npins; j += blockDim.x) {
        s_px[j] = pin[2 * j] - win.x0;
        s_py[j] = pin[2 * j + 1] - win.y0;
    }
    if (threadIdx.x == 0) {
        paths[off] = pin[1] * g.width + pin[0];
        s_tree = 1;
        s_levels = s_bends = 0;
        s_status = OK;
    }
    int row[WORDS_PER_THREAD], col[WORDS_PER_THREAD];
    ownWords(win, row, col);
    unsigned joined = 1u;       // pins in the tree
    int steps = 0;
    for (int stage = 1; stage < npins; ++stage) {
        win.load(g, pos);
        if (threadIdx.x == 0) {
            s_bound = NO_BOUND;
            s_found[0] = s_found[1] = 0;
        }
        __syncthreads();
        // the pins not in the tree may be entered; the tree is level 0
        for (int j = threadIdx.x; j < npins; j += blockDim.x)
            if (!((joined >> j) & 1u))
                atomicOr(&win.avail[s_py[j] * win.wd + (s_px[j] >> 6)], 1ull << (s_px[j] & 63));
        for (int i = threadIdx.x; i < s_tree; i += blockDim.x) {
            int v = paths[off + i];
            int gy = v / g.width;
            int y = gy - win.y0, x = v - gy * g.width - win.x0;
            int k = y * win.wd + (x >> 6);
            u64 b = 1ull << (x & 63);
            atomicAnd(&win.avail[k], ~b);
            atomicOr(&win.vis[k], b);
            atomicOr(&win.front0[k], b);
            lowerBound(win, y, x >> 6, win.exits(y, x >> 6) & b, 0, npins, joined);
        }
        __syncthreads();
        int numLevels = 0;
        const int T = levels(win, row, col, true, &numLevels,
                             [&](int i, int r, int k, u64 fresh, int level) {
                                 u64 ex = fresh & win.exits(r, k);
                                 if (ex) lowerBound(win, r, k, ex, level, npins, joined);
                                 for (int q = 0; q < npins; ++q)
                                     if (!((joined >> q) & 1u) && s_py[q] == r
                                         && (s_px[q] >> 6) == k
                                         && ((fresh >> (s_px[q] & 63)) & 1ull))
                                         s_found[level & 1] = 1;
                             });
        steps += numLevels;
        // no pin reached, and the wave touched the outside: are the pins enclosed?
        const bool flood = T < 0 && s_bound != NO_BOUND;
        const bool escaped = flood && pinsEscape(win, g, pos, npins, joined, row, col);
        if (threadIdx.x < 32) {          // warp 0: lane 0 writes, all lanes trace back
            const bool lead = threadIdx.x == 0;
            const int bound = s_bound, tree = s_tree;
            __syncwarp();                 // every lane has read them before lane 0 writes
            if (T < 0) {
                if (lead) {
                    if (!flood) s_levels += numLevels;
                    s_status = !flood ? UNROUTED_SOURCE : escaped ? ESCAPED : UNROUTED_TARGET;
                }
            } else if (T >= bound) {
                if (lead) s_status = ESCAPED;
            } else if (tree + T > room) {
                if (lead) s_status = ALONE;
            } else {
                int q = 0;       // the first pin not in the tree that is labelled
                while ((joined >> q) & 1u || !win.holds(s_px[q], s_py[q], T & 3)) ++q;
                int* at = paths + off + tree - 1;   // the branch's cell on level L: at[L]
                if (lead) {
                    s_levels += numLevels;
                    at[T] = (win.y0 + s_py[q]) * g.width + win.x0 + s_px[q];
                }
                // level 0 is the tree's cell already; a failed step commits nothing
                const bool traced = traceBack(win, s_px[q], s_py[q], T, false, g.width, at,
                                              &s_bends);
                if (lead) {
                    if (!traced) s_status = 0;
                    s_tree = tree + T;
                    s_target = q;
                }
            }
        }
        __syncthreads();
        if (s_status != OK) break;
        joined |= 1u << s_target;
    }
    // OK: the tree; UNROUTED_TARGET: the tree so far (the roots of its level count)
    const int cells = s_status == OK || s_status == UNROUTED_TARGET ? s_tree : 0;
    if (threadIdx.x == 0) {
        int* h = hdr + (size_t)blockIdx.x * HDR;
        h[0] = s_status;
        h[1] = s_levels;
        h[2] = s_bends;
        h[3] = cells;
        h[4] = (int)min(clock64() - t0, (long long)0x7FFFFFFF);
        h[5] = steps;
        h[H_MARGIN] = 0;
#ifdef PHASES
        h[7] = h[8] = h[9] = 0;
#endif
    }
    if (s_status != OK) return;
    // commit the tree's cells other than its pins (blocked for good already)
    for (int i = threadIdx.x; i < cells; i += blockDim.x) {
        int v = paths[off + i];
        int gy = v / g.width;
        int y = gy - win.y0, x = v - gy * g.width - win.x0;
        bool isPin = false;
        for (int q = 0; q < npins; ++q) isPin |= s_px[q] == x && s_py[q] == y;
        if (!isPin) commitCell(g, rest, level, v, pos);
    }
}

// Shared memory of a window of h x w cells (gpu_batch.py window_bytes).
__device__ __forceinline__ int windowBytes(int h, int w) {
    const int wd = (w + 63) >> 6;
    return PLANES * h * wd * 8 + 2 * wd * 8 + 2 * ((h + 7) / 8 * 8);
}

extern "C" __global__ void __launch_bounds__(1024)
route_batch(const int* recs, int numNets, const int* pinXY, u64* freeBits, u64* wiredBits,
            int* time, unsigned* rest, unsigned* level, int width, int height,
            int wordsPerRow, int* hdr, int* paths, int smemBytes) {
    extern __shared__ u64 smem[];
    __shared__ int s_cells;
    const int* rec = recs + (size_t)blockIdx.x * REC;
    Grid g{freeBits, wiredBits, time, width, height, wordsPerRow};
    Window win;
    win.x0 = rec[F_X0];
    win.y0 = rec[F_Y0];
    win.w = rec[F_W];
    win.h = rec[F_H];
    win.carve(smem);
    if (rec[F_NPINS] > 2) {
        routeTree(win, g, rec, pinXY, rest, level, hdr, paths);
        return;
    }
    const int pos = rec[F_POS], off = rec[F_OFF], room = rec[F_ROOM];
    const int gsx = rec[F_SX], gsy = rec[F_SY], gtx = rec[F_TX], gty = rec[F_TY];
    const int span = abs(gsx - gtx) + abs(gsy - gty);
    int limit = rec[F_LIMIT];
    int margin = (limit - span - 1) / 2;
    long long t0 = clock64();
    int numLevels = 0, bends = 0, steps = 0, status, T;
    bool grown = false;
    while (true) {
        const int sx = gsx - win.x0, sy = gsy - win.y0, tx = gtx - win.x0, ty = gty - win.y0;
        bool escaped = false;
        T = bfs(win, g, pos, sx, sy, tx, ty, tx, ty, true, &numLevels, &escaped, grown);
        steps += numLevels;
        if (T >= 0) {
            status = T <= limit ? OK : GROW;
        } else if (!escaped) {
            status = UNROUTED_SOURCE;
        } else {
            int more;
            bfs(win, g, pos, tx, ty, sx, sy, -1, -1, false, &more, &escaped, grown);
            steps += more;
            status = escaped ? ESCAPED : UNROUTED_TARGET;
            numLevels = 0;
        }
        if (status != GROW && status != ESCAPED) break;
        // the window grows in this launch where the net's room (no earlier net waiting
        // within it) and the block allow: the margin the host would give it next
        const int m = status == GROW ? (T - span) / 2 : 2 * margin + 16;
        const int x0 = max(min(gsx, gtx) - m, 0), x1 = min(max(gsx, gtx) + m, width - 1);
        const int y0 = max(min(gsy, gty) - m, 0), y1 = min(max(gsy, gty) + m, height - 1);
        const int w = x1 - x0 + 1, h = y1 - y0 + 1;
        if (m > room || h * ((w + 63) >> 6) > WORDS_PER_THREAD * (int)blockDim.x
            || windowBytes(h, w) > smemBytes)
            break;
        __syncthreads();                 // every thread is done with the smaller window
        win.x0 = x0;
        win.y0 = y0;
        win.w = w;
        win.h = h;
        win.carve(smem);
        margin = m;
        limit = span + 2 * m + 1;
        grown = true;
    }
#ifdef PHASES
    long long t1 = clock64();
#endif
    const int tx = gtx - win.x0, ty = gty - win.y0;
    int cells = 0;
    if (threadIdx.x < 32 && status == OK) {     // warp 0 (a block has at least 128 threads)
        if (threadIdx.x == 0) paths[off + T] = gty * width + gtx;
        if (traceBack(win, tx, ty, T, true, width, paths + off, &bends))
            cells = T + 1;
        else
            status = 0;          // commit nothing
    }
    if (threadIdx.x == 0) {
        s_cells = cells;
        int* h = hdr + (size_t)blockIdx.x * HDR;
        h[0] = status;
        h[1] = numLevels;
        h[2] = bends;
        h[3] = cells;
        h[4] = (int)min(clock64() - t0, (long long)0x7FFFFFFF);
        h[5] = steps;
        h[H_MARGIN] = margin;
#ifdef PHASES
        h[7] = (int)(s_loaded - t0);
        h[8] = (int)(t1 - s_loaded);
        h[9] = (int)(clock64() - t1);
#endif
    }
    __syncthreads();
    // commit the wire's inner cells (the pins are blocked for good already). Another
    // block of this launch may read them only where this window grew in the launch, or
    // where a later net was taken eagerly over this one's claim: that net reads them as
    // free or blocked, and the host redoes it if they lie in its claim (an earlier net
    // reads them as free, by their time)
    for (int i = 1 + threadIdx.x; i < s_cells - 1; i += blockDim.x)
        commitCell(g, rest, level, paths[off + i], pos);
}

// block != 0: cells[i] becomes a wire cell of the net at pos[i] (the earliest net whose
// wire holds a cell names it). block == 0: cells[i] is freed if it still belongs to that
// net's wire (freed[i] = 1; its wired bit stays: a reader of the free bit must never see
// "blocked, not wired" for it; its time becomes NO_WIRE, later than every net, which a
// reader that saw the free bit before it was set reads as free, as a later net's wire).
extern "C" __global__ void commit_cells(const int* cells, const int* pos, int n, int block,
                                        u64* freeBits, u64* wiredBits, int* time,
                                        unsigned* rest, unsigned* level, int width,
                                        int height, int wordsPerRow, int* freed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = cells[i];
    if (block) {
        commitCell(Grid{freeBits, wiredBits, time, width, height, wordsPerRow}, rest, level,
                   v, pos[i]);
        return;
    }
    int y = v / width, x = v - y * width;
    size_t word = (size_t)y * wordsPerRow + (x >> 6);
    u64 bit = 1ull << (x & 63);
    if ((wiredBits[word] & bit) && time[v] == pos[i]) {
        atomicOr(&freeBits[word], bit);
        rest[v] = UNREACHED;
        level[v] = UNREACHED;
        freed[i] = 1;
        __threadfence();
        time[v] = NO_WIRE;    // after the free bit: whoever reads it blocked reads it late
    }
}

// Levels of a full wavefront from the roots roots[start[b] .. start[b + 1]) as of pos[b]
// (one block each; several roots: a tree's cells): a queue BFS
// (PMPP Fig. 15.12's frontier, in one block as in Fig. 15.16) over visited bits that
// start as "blocked". Visited bits in shared memory when visShared, else in visGlobal;
// the frontier in a ring of ringSize (a power of two) entries of shared memory after
// them, or in queues (width x height per block) when ringSize == 0. A frontier that
// outgrows the ring gives out[b] = -1 (the host runs that root again on the queues).
extern "C" __global__ void count_levels(const int* roots, const int* start, const int* pos,
                                        u64* freeBits,
                                        u64* wiredBits, int* time, unsigned* rest,
                                        unsigned* level, int width, int height,
                                        int wordsPerRow, int* queues, u64* visGlobal,
                                        int visShared, int ringSize, int* out) {
    extern __shared__ u64 smem[];
    __shared__ int s_count[3];   // per level mod 3: one in use, one read, one being cleared
    const size_t words = (size_t)height * wordsPerRow;
    // visited bits as 32-bit words: 64-bit shared atomicOr is a compare-and-swap loop,
    // and frontier cells next to each other hit the same word
    unsigned* vis = (unsigned*)(visShared ? smem : visGlobal + blockIdx.x * words);
    int* queue = ringSize ? (int*)(smem + (visShared ? words : 0))
                          : queues + (size_t)blockIdx.x * width * height;
    const unsigned mask = ringSize ? (unsigned)ringSize - 1 : 0xFFFFFFFFu;
    const int p = pos[blockIdx.x], r0 = start[blockIdx.x], r1 = start[blockIdx.x + 1];
    if (ringSize && r1 - r0 > ringSize) {    // more roots than the ring holds: the queues
        if (threadIdx.x == 0) out[blockIdx.x] = -1;
        return;
    }
    Grid g{freeBits, wiredBits, time, width, height, wordsPerRow};
    for (size_t i = threadIdx.x; i < words; i += blockDim.x) {
        int r = (int)(i / wordsPerRow), k = (int)(i - (size_t)r * wordsPerRow);
        u64 blocked = ~freeAt<true>(g, r, 64 * k, min(64, width - 64 * k), p);
        vis[2 * i] = (unsigned)blocked;
        vis[2 * i + 1] = (unsigned)(blocked >> 32);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = r0; i < r1; ++i) {
            int root = roots[i];
            int ry = root / width, rx = root - ry * width;
            vis[(size_t)ry * 2 * wordsPerRow + (rx >> 5)] |= 1u << (rx & 31);
            queue[i - r0] = root;
        }
        s_count[0] = s_count[1] = s_count[2] = 0;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31;
    unsigned head = 0, tail = r1 - r0;
    int currLevel = 0;
    while (true) {
        int slot = currLevel % 3;
        if (threadIdx.x == 0) s_count[(currLevel + 1) % 3] = 0;
        for (unsigned base = head; base < tail; base += blockDim.x) {
            unsigned i = base + threadIdx.x;
            int found[4];
            int nf = 0;
            if (i < tail) {
                int v = queue[i & mask];
                int y = v / width, x = v - y * width;
#pragma unroll
                for (int d = 0; d < 4; ++d) {
                    int nx = x + c_dx[d], ny = y + c_dy[d];
                    if (nx < 0 || nx >= width || ny < 0 || ny >= height) continue;
                    size_t word = (size_t)ny * 2 * wordsPerRow + (nx >> 5);
                    unsigned bit = 1u << (nx & 31);
                    if (vis[word] & bit) continue;
                    if (!(atomicOr(&vis[word], bit) & bit)) found[nf++] = ny * width + nx;
                }
            }
            // one atomicAdd per warp for the new cells
            int incl = nf;
            for (int o = 1; o < 32; o <<= 1) {
                int t = __shfl_up_sync(0xFFFFFFFFu, incl, o);
                if (lane >= o) incl += t;
            }
            int total = __shfl_sync(0xFFFFFFFFu, incl, 31);
            int at = 0;
            if (lane == 31 && total) at = atomicAdd(&s_count[slot], total);
            at = __shfl_sync(0xFFFFFFFFu, at, 31) + incl - nf;
            for (int j = 0; j < nf; ++j) queue[(tail + at + j) & mask] = found[j];
        }
        __syncthreads();
        int added = s_count[slot];
        if (added == 0) break;
        if (ringSize && (unsigned)added + (tail - head) > (unsigned)ringSize) {
            currLevel = -2;        // the ring overwrote unread entries: do it again
            break;
        }
        head = tail;
        tail += added;
        ++currLevel;
    }
    if (threadIdx.x == 0) out[blockIdx.x] = currLevel + 1;
}
