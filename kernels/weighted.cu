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
//     memory (boxes too big for it are searched in tiles, weighted_tiles.cuh);
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
// chain_uses: loads and costs of the cells of routes ripped up and found (chains, below).
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
//
// The A* bound (Hart, Nilsson and Raphael, IEEE TSSC 1968; the CPU engine's A* uses the
// same lower bound): with f a lower bound of the cell costs, a cell at distance d whose
// Manhattan gap to the targets' box is g starts no path to a target cheaper than d + f * g.
// Once a target holds u (a real path's cost: every value the sweeps write is one), a cell
// with d + f * g > u lies on no path to the cheapest target and hands nothing on, and a
// line is swept only over the cells whose gaps to the sources' and the targets' boxes,
// times f, come within u (a path from the tree to any other costs more). The fixpoint is
// then exact on every cell of a path costing at most u: every cheapest path to the chosen
// target, and every cell the backtrace steps to (a value equal to its `want` is a real
// path's cost no more than the exact distance, so it is exact); the other cells keep costs
// of real paths, from which a tree's next search resumes. Tiles whose cells all lie beyond
// u are not relaxed. -DNO_BOUND turns the bound off (for A/B runs).

// The host passes these from mazeroute/engines/costs.py (the cost contract) and
// gpu_weighted.py; the fallbacks serve a plain compile check, and tests/test_weighted.py
// and tests/test_gpu_weighted_host.py tie them.
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

// request record: int64 fields (weighted_launch.py REC, R_*)
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
// result header per request (weighted_launch.py HDR, gpu_weighted.py ST_*): status, cells, offset in out
#define HDR 3
#define ST_OK 1
#define ST_UNREACHABLE 2
#define ST_ERROR 3   // the backtrace found no predecessor (distances not exact: a bug)

// -DPROBE: counters in g_probe (searches, sweeps, backtrace steps, clock cycles of the
// blocks, cells swept, tiles relaxed, rounds of the tiled search), read by
// benchmarks/weighted_probe.py
#ifdef PROBE
__device__ unsigned long long g_probe[7];
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

// A cell's cost to a net: 0 where the net may not enter it; under the group schedule
// (mazeroute/router/negotiation/loop.py), where ownNet names the net (a cell of the net's
// current wire), ownCost, the price of the cell were that wire gone. A call's nets own
// disjoint cells (the host splits calls where they do not), so one overlay serves every
// net of a launch; without one (ownNet null) every cell costs its `cost`.
struct CellCosts {
    const int* code;
    const unsigned short* cost;
    const int* ownNet;
    const unsigned short* ownCost;

    // every load issued before any is used: one memory latency a cell, not a chain of
    // three (a tile's block of one warp has nothing else to hide them behind)
    __device__ __forceinline__ unsigned at(long long g, int net) const {
        const int k = __ldg(code + g);
        const unsigned c = __ldg(cost + g);
        if (ownNet != nullptr) {
            const int o = __ldg(ownNet + g);
            const unsigned oc = __ldg(ownCost + g);
            return !passable(k, net) ? 0u : (o == net ? oc : c);
        }
        return passable(k, net) ? c : 0u;
    }
};

__device__ __forceinline__ int gap(int v, int a, int b) {
    return v < a ? a - v : (v > b ? v - b : 0);
}

// The least of gap(v, a1, b1) + gap(v, a2, b2) over v in [lo, hi] (a convex function,
// least between the two intervals).
__device__ __forceinline__ int leastGaps(int lo, int hi, int a1, int b1, int a2, int b2) {
    const int p = max(a1, a2), q = min(b1, b2);
    const int v = min(max(min(p, q), lo), hi);
    return gap(v, a1, b1) + gap(v, a2, b2);
}

// The A* bound of one search (notes above), in the coordinates of the box being relaxed.
struct Bound {
    unsigned u;                 // the least cost of a path to a target found yet (INF: none)
    unsigned least;             // a lower bound of every cell cost (0: none known)
    int sx0, sy0, sx1, sy1;     // the sources' box (the tree so far)
    int tx0, ty0, tx1, ty1;     // the targets' box (pins not in the tree)

    __device__ __forceinline__ bool on() const {
#ifdef NO_BOUND
        return false;
#else
        return u != INF;
#endif
    }
    // whether a cell (x, y) at distance d may hand d on
    __device__ __forceinline__ bool keeps(unsigned d, int x, int y) const {
        return !on() || (unsigned long long)d + (unsigned long long)least
                                                    * (gap(x, tx0, tx1) + gap(y, ty0, ty1)) <= u;
    }
    // The cells [lo, hi] of line `line` (a row, else a column) of n cells that may lie on
    // a path of cost at most u: least * (gap to the sources + gap to the targets) <= u.
    __device__ void span(bool row, int line, int n, int& lo, int& hi) const {
        lo = 0;
        hi = n - 1;
        if (!on() || least == 0) return;
        const int a1 = row ? sx0 : sy0, b1 = row ? sx1 : sy1;
        const int a2 = row ? tx0 : ty0, b2 = row ? tx1 : ty1;
        const long long k = (long long)(u / least)
            - (row ? gap(line, sy0, sy1) + gap(line, ty0, ty1)
                   : gap(line, sx0, sx1) + gap(line, tx0, tx1));
        if (k < max(0, max(a1, a2) - min(b1, b2))) {
            hi = -1;
            return;
        }
        // before both intervals the gaps total a1 + a2 - 2v, after both 2v - b1 - b2
        const long long left = -((k - a1 - a2) >> 1), right = (k + b1 + b2) >> 1;
        lo = (int)max(0ll, min((long long)min(a1, a2), left));
        hi = (int)min((long long)n - 1, max((long long)max(b1, b2), right));
    }
    // whether no cell of [x0, x1] x [y0, y1] may lie on a path of cost at most u
    __device__ bool beyond(int x0, int y0, int x1, int y1) const {
        if (!on() || least == 0) return false;
        const long long g = leastGaps(x0, x1, sx0, sx1, tx0, tx1)
                            + leastGaps(y0, y1, sy0, sy1, ty0, ty1);
        return (unsigned long long)least * g > u;
    }
    // A search from the root at (x, y) alone, costs at least `lower`: aimed at the pins
    // pins[p0 + 1 .. p1) by aim() (dist as there).
    template <class Dist>
    __device__ void begin(unsigned lower, int x, int y, Dist dist, const int* pins,
                          long long p0, long long p1, int width, int x0, int y0) {
        least = lower;
        sx0 = sx1 = x;
        sy0 = sy1 = y;
        aim(dist, pins, p0, p1, width, x0, y0);
    }
    // the same bound in coordinates whose origin is (dx, dy) here
    __device__ void shift(int dx, int dy) {
        sx0 -= dx; sx1 -= dx; tx0 -= dx; tx1 -= dx;
        sy0 -= dy; sy1 -= dy; ty0 -= dy; ty1 -= dy;
    }
    // The sources are the n cells (vertex ids) of a box whose origin in the grid is x0, y0.
    __device__ void source(const int* cells, int n, int width, int x0, int y0) {
        for (int i = 0; i < n; ++i) {
            const int x = cells[i] % width - x0, y = cells[i] / width - y0;
            sx0 = min(sx0, x); sx1 = max(sx1, x);
            sy0 = min(sy0, y); sy1 = max(sy1, y);
        }
    }
    // Aim at the pins pins[p0 + 1 .. p1) not in the tree (distance not 0; dist(x, y) gives
    // a pin's, in a box whose origin in the grid is x0, y0): their box, and u the least of
    // their distances. Returns how many pins are left.
    template <class Dist>
    __device__ int aim(Dist dist, const int* pins, long long p0, long long p1, int width,
                       int x0, int y0) {
        u = INF;
        tx0 = ty0 = 0x7fffffff;
        tx1 = ty1 = -1;
        int left = 0;
        for (long long j = p0 + 1; j < p1; ++j) {
            const int x = pins[j] % width - x0, y = pins[j] / width - y0;
            const unsigned dv = dist(x, y);
            if (dv == 0) continue;
            ++left;
            u = min(u, dv);
            tx0 = min(tx0, x); tx1 = max(tx1, x);
            ty0 = min(ty0, y); ty1 = max(ty1, y);
        }
        if (!left) {                // no search follows
            tx0 = tx1 = sx0;
            ty0 = ty1 = sy0;
        }
        return left;
    }
    // u lowered to what the pins inside [0, bw) x [0, bh) of b (origin x0, y0 in the grid)
    // hold now, while other threads may be lowering them: each value read is a real path's
    // cost. Distance 0 marks a pin in the tree.
    template <class Box>
    __device__ void tighten(const Box& b, const int* pins, long long p0, long long p1,
                            int width, int x0, int y0, int bw, int bh) {
        unsigned best = u;
        for (long long j = p0 + 1; j < p1; ++j) {
            const int x = pins[j] % width - x0, y = pins[j] / width - y0;
            if (x < 0 || x >= bw || y < 0 || y >= bh) continue;
            const unsigned dv = *(volatile unsigned*)b.at(x, y);
            if (dv != 0) best = min(best, dv);
        }
        u = best;
    }
};

// A box in shared memory: distances, then costs (0: the net may not enter the cell).
// Rows are `pitch` (odd) apart, so that a thread per row touches distinct banks.
struct SharedBox {
    unsigned* d;
    unsigned short* c;
    int pitch;

    __device__ __forceinline__ unsigned* at(int x, int y) const { return d + y * pitch + x; }
    __device__ __forceinline__ unsigned cost(int x, int y) const { return c[y * pitch + x]; }

    __device__ void init(const CellCosts& cc, long long base, int width, int net, int bw,
                         int bh) const {
        for (int i = threadIdx.x; i < bw * bh; i += blockDim.x) {
            const int y = i / bw, x = i - y * bw;
            const long long g = base + (long long)y * width + x;
            c[y * pitch + x] = (unsigned short)cc.at(g, net);
            d[y * pitch + x] = INF;
        }
    }
};

// A box's distances in a region of global memory of its own (rows bw apart); costs and
// codes read from the grid's arrays (the tiled search's connect()).
struct GlobalBox {
    unsigned* d;
    CellCosts cc;
    long long base;
    int width, pitch, net;

    __device__ __forceinline__ unsigned* at(int x, int y) const {
        return d + (long long)y * pitch + x;
    }
    __device__ __forceinline__ unsigned cost(int x, int y) const {
        const long long g = base + (long long)y * width + x;
        return cc.at(g, net);
    }

    // The box of request r: its distances at gdist[R_SEG ..], rows as wide as the box.
    __device__ static GlobalBox of(const long long* r, const CellCosts& cc, unsigned* gdist,
                                   int width) {
        GlobalBox b;
        b.d = gdist + r[R_SEG];
        b.cc = cc;
        b.base = r[R_Y0] * width + r[R_X0];
        b.width = width;
        b.pitch = (int)(r[R_X1] - r[R_X0]) + 1;
        b.net = (int)r[R_NET];
        return b;
    }
};

// One way of a min-plus sweep over the n cells (x + i dx, y + i dy), i = first, first +
// step, ...: a cell the net may enter takes min(its value, carry + its cost), and every
// cell the bound keeps hands its value on as the carry (a source the net may not enter
// still starts paths, at 0); the carry starts at INF. Returns whether a cell the bound
// keeps fell (a cell beyond it hands nothing on, so its fall wakes nothing). Cells are read
// SWEEP_CHUNK at a time, so that their loads overlap and only the carry chain runs one
// cell after another.
#define SWEEP_CHUNK 8
template <class Box>
__device__ bool sweepWay(const Box& b, const Bound& g, int x, int y, int dx, int dy, int n,
                         int first, int step) {
    PROBE_ADD(4, n);
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
                const int i = first + (k0 + k) * step;
                const unsigned nv = c[k] ? min(v[k], satAdd(carry, c[k])) : v[k];
                const bool keep = g.keeps(nv, x + i * dx, y + i * dy);
                if (nv != v[k]) {
                    *b.at(x + i * dx, y + i * dy) = nv;
                    changed |= keep;
                }
                carry = keep ? nv : INF;
            }
        }
    }
    return changed;
}

// A two-way sweep of the cells [lo, hi] of a row (column) of n cells that the bound
// spans: left to right (top to bottom), then back.
template <class Box>
__device__ bool sweepLine(const Box& b, const Bound& g, bool row, int line, int n) {
    int lo, hi;
    g.span(row, line, n, lo, hi);
    if (lo > hi) return false;
    const int x = row ? lo : line, y = row ? line : lo, dx = row, dy = !row;
    const bool fwd = sweepWay(b, g, x, y, dx, dy, hi - lo + 1, 0, 1);
    return sweepWay(b, g, x, y, dx, dy, hi - lo + 1, hi - lo, -1) || fwd;
}

// Bellman-Ford to the fixpoint under the bound g: row sweeps, column sweeps, alternately,
// a thread a line, until a sweep other than the first changes nothing (after a full
// two-way sweep of every row, every row edge from a cell the bound keeps holds; if the
// column sweep after it changes nothing, every such edge holds; u only falls, and a
// lower u keeps fewer cells). After each sweep thread 0 lowers g.u to what the pins
// pins[p0 + 1 .. p1) hold (the box's origin in the grid: x0, y0), while the others copy g
// as the next sweep begins: any u they read is a real path's cost, so a copy from before
// or after is a valid bound. Every thread must call it; it ends with a barrier.
template <class Box>
__device__ void relax(const Box& b, int bw, int bh, Bound& g, const int* pins, long long p0,
                      long long p1, int width, int x0, int y0) {
    for (int pass = 0;; ++pass) {
        Bound now = g;
        now.u = *(volatile unsigned*)&g.u;
        bool changed = false;
        if (pass & 1) {
            for (int x = threadIdx.x; x < bw; x += blockDim.x)
                changed |= sweepLine(b, now, false, x, bh);
        } else {
            for (int y = threadIdx.x; y < bh; y += blockDim.x)
                changed |= sweepLine(b, now, true, y, bw);
        }
        if (threadIdx.x == 0) g.tighten(b, pins, p0, p1, width, x0, y0, bw, bh);
        if (!__syncthreads_or(changed) && pass > 0) {
            if (threadIdx.x == 0) PROBE_ADD(1, pass + 1);
            break;
        }
    }
}

__shared__ int s_status;   // 0 while the tree grows, then ST_*
__shared__ int s_cells;    // cells in the tree
__shared__ int s_start;    // offset of the tree in out
__shared__ Bound s_bound;  // the search's bound (weighted_route; a tile's, relaxTile)

// Thread 0, after a search: join the cheapest pin not yet in the tree (the first of
// equals) by the backtrace: from it, step to a neighbour n in the box with
// d[n] + cost[cur] == d[cur], the current heading first, else up, left, right, down;
// stop at a cell of distance 0 (the tree). Returns 0 (search again: a pin is still not
// in the tree, and g is aimed at the pins left from the grown tree) or the final status.
template <class Box>
__device__ int connect(const Box& b, Bound& g, const int* pins, long long p0, long long p1,
                       int width, int x0, int y0, int bw, int bh, int* tree) {
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
    g.source(tree + n, m, width, x0, y0);
    // another search only if a pin is left
    return g.aim([&](int x, int y) { return *b.at(x, y); }, pins, p0, p1, width, x0, y0)
           ? 0 : ST_OK;
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
__device__ void routeNet(const Box& b, const long long* r, const CellCosts& cc,
                         const int* pins, int width,
                         unsigned least, int* seg, int* out, int* hdr, int* used) {
    const int net = (int)r[R_NET];
    const int x0 = (int)r[R_X0], y0 = (int)r[R_Y0];
    const int bw = (int)r[R_X1] - x0 + 1, bh = (int)r[R_Y1] - y0 + 1;
    const long long p0 = r[R_PIN0], p1 = r[R_PIN1];
    int* tree = seg + r[R_SEG];
#ifdef PROBE
    const long long t0 = clock64();
#endif
    b.init(cc, (long long)y0 * width + x0, width, net, bw, bh);
    __syncthreads();
    if (threadIdx.x == 0) {
        const int root = pins[p0];
        *b.at(root % width - x0, root / width - y0) = 0;
        tree[0] = root;
        s_cells = 1;
        s_status = p1 - p0 > 1 ? 0 : ST_OK;
        s_bound.begin(least, root % width - x0, root / width - y0,
                      [&](int x, int y) { return *b.at(x, y); }, pins, p0, p1, width, x0, y0);
    }
    __syncthreads();
    while (s_status == 0) {
        relax(b, bw, bh, s_bound, pins, p0, p1, width, x0, y0);
        if (threadIdx.x == 0) {
            PROBE_ADD(0, 1);
            s_status = connect(b, s_bound, pins, p0, p1, width, x0, y0, bw, bh, tree);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) PROBE_ADD(3, clock64() - t0);
    writeResult(r, s_status, s_cells, tree, out, hdr, used);
}

// The CellCosts of a kernel's arguments (owns 0: no overlay; its arrays are not read).
__device__ __forceinline__ CellCosts cellCosts(const int* code, const unsigned short* cost,
                                               const int* ownNet,
                                               const unsigned short* ownCost, int owns) {
    return CellCosts{code, cost, owns ? ownNet : nullptr, owns ? ownCost : nullptr};
}

// rec: count records; code: per cell BLOCKED_CODE or its owner (-1: nobody); cost: per
// cell; ownNet, ownCost, owns: the overlay of CellCosts; pins: vertex ids; least: a lower
// bound of every cost, the overlay's included (0: none); dynamic shared memory: the
// largest box's distances and costs.
extern "C" __global__ void __launch_bounds__(1024)
weighted_route(const long long* rec, int count, const int* __restrict__ code,
               const unsigned short* __restrict__ cost, const int* __restrict__ ownNet,
               const unsigned short* __restrict__ ownCost, int owns,
               const int* __restrict__ pins, int width, int least, int* seg, int* out,
               int* hdr, int* used) {
    if ((int)blockIdx.x >= count) return;
    const long long* r = rec + (long long)blockIdx.x * REC;
    extern __shared__ unsigned smem[];
    const int bw = (int)(r[R_X1] - r[R_X0]) + 1, bh = (int)(r[R_Y1] - r[R_Y0]) + 1;
    SharedBox b;
    b.pitch = bw | 1;
    b.d = smem;
    b.c = (unsigned short*)(smem + bh * b.pitch);
    routeNet(b, r, cellCosts(code, cost, ownNet, ownCost, owns), pins, width,
             (unsigned)least, seg, out, hdr, used);
}

extern "C" __global__ void set_costs(const int* __restrict__ idx, const int* __restrict__ val,
                                     int n, unsigned short* cost) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        cost[idx[i]] = (unsigned short)val[i];
}

// -- chains --------------------------------------------------------------------------
// A chain routes batches one after another with no look from the host between them
// (gpu_chains.py route_chain): before a batch, its nets' old routes leave the cells'
// loads; after it, the routes it found join them; each time the cells touched are
// repriced by negotiated congestion's rule (PathFinder: McMurchie and Ebeling, FPGA
// 1995; pricing.cuh priceOf). chain_uses runs over `count` routes, a block
// a route: route j is cells[start[j] .. start[j + 1]) of net nets[j], or with from_hdr
// the result of request row0 + j (hdr: status, cells, offset in cells), passed over
// unless ST_OK. price 0 adds sign * weight[net] to each cell's load (atomically: boxes
// of one batch may overlap when the caller lets them); price 1, launched after, prices
// the same cells.
#include "pricing.cuh"

extern "C" __global__ void chain_uses(const int* __restrict__ cells,
                                      const int* __restrict__ start, const int* hdr,
                                      int from_hdr, int row0, int count,
                                      const int* __restrict__ nets, int sign, int price,
                                      const long long* __restrict__ weight, long long* load,
                                      const long long* __restrict__ bh, int pres,
                                      unsigned short* cost) {
    for (int j = blockIdx.x; j < count; j += gridDim.x) {
        int s, n;
        if (from_hdr) {
            const int* h = hdr + (long long)(row0 + j) * HDR;
            if (h[0] != ST_OK) continue;
            n = h[1];
            s = h[2];
        } else {
            s = start[j];
            n = start[j + 1] - s;
        }
        const long long add = (long long)sign * weight[nets[j]];
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const int c = cells[s + i];
            if (price) {
                cost[c] = priceOf(bh[c], load[c], pres);
            } else {
                atomicAdd((unsigned long long*)(load + c), (unsigned long long)add);
            }
        }
    }
}

// -- tiles: the tiled search of boxes too big for shared memory ----------------------
#include "weighted_tiles.cuh"
