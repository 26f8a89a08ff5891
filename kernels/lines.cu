// PMPP Fig. 15.5's wavefront levels by whole-line min-plus scans, the way GAMER (Lin et al.,
// TCAD 2023) sweeps a routing grid: alternate phases relax every row, then every column,
// whole (level[c] = min over the cells c' of c's run of free cells of level[c'] + |c - c'|),
// until a phase changes nothing. A straight corridor of any length settles in one phase,
// so the number of phases follows the bends of the shortest paths, not their length and
// not the tiles they cross (kernels/grid.cu steps one level at a time; kernels/sweep.cu
// settles 64 x 32 tiles, so a corridor hands over from tile to tile).
//
// * Only lines that changed are scanned: a phase widens the span of each perpendicular
//   line to take in the cells it improved there; the next phase scans each line that has
//   a span from that span outwards for as long as a scan still improves (cells outside
//   the span were relaxed along the line before and have not changed since).
// * Rows are scanned in a row-major copy, columns in a column-major copy, so both phases
//   read whole lines coalesced; an improved cell is written to both.
// * One warp scans one line, STEP cells at a time, CPL consecutive cells per lane: each
//   lane scans its cells, a warp scan composes the lanes' maps x -> min(A, x + B), and a
//   second pass applies the carried value.
// * One persistent kernel; its blocks meet at a grid barrier between phases (a
//   cooperative launch, one block per SM). Relaxation is monotone (every value is a
//   path's length), so the fixpoint is the BFS.
// Host side: mazeroute/engines/gpu_lines.py.

#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define UNREACHED 0xFFFFFFFFu
#define BLOCKED 0xFFFFFFFEu
// The host passes these four (mazeroute/engines/gpu_lines.py); the fallbacks serve a
// plain compile check.
#ifndef THREADS
#define THREADS 512              // per block of lines_wavefront, one block per SM
#endif
#ifndef INF
#define INF 0x3FFFFFFF           // "no path yet" in a scan: every level stays below it
#endif
#ifndef CPL
#define CPL 8                    // cells per lane in a step
#endif
#ifndef NOSPAN
#define NOSPAN 0x7FFFFFFF        // lo of a line's span when it has none (hi: -1)
#endif
#define STEP (32 * CPL)          // cells per step; both copies' pitches are multiples
#define FULL 0xFFFFFFFFu

// flags[]: whether a phase improved a cell, by the phase's side (rows 0/1, columns 2/3)
// and the round's parity; flags[4]: the phases of the last run (a probe's figure)
#define ROWS 0
#define COLS 2
#define PHASES 4

struct Side {               // one orientation: its lines and their spans
    unsigned* lines;        // row-major (rows) or column-major (columns) copy
    int pitch;              // cells between consecutive lines
    int n;                  // lines
    int* lo;                // span of the cells improved since the line's last scan
    int* hi;                // (lo NOSPAN, hi -1: none)
};

static __device__ __forceinline__ int toVal(unsigned raw) {
    return raw >= BLOCKED ? INF : (int)raw;
}

// A lane's CPL consecutive cells of the step at `base`: lane l holds cells base + CPL l
// onwards, in both scan directions.
static __device__ __forceinline__ void load(const Side& s, int line, int base, uint4& q0,
                                            uint4& q1) {
    const uint4* p = reinterpret_cast<const uint4*>(s.lines + (size_t)line * s.pitch + base
                                                    + CPL * (threadIdx.x & 31));
    q0 = __ldcg(p);
    q1 = __ldcg(p + 1);
}

// One step: the STEP cells from `base` of line `line`, held in q0, q1 and updated there
// (REV: scanned right to left, lane 31 first). `carry` is the scan's value one cell
// before the step (INF: none) and becomes the value at its last cell; returns whether
// that last cell improved (then the next step may too). An improved cell is written to
// both copies, and its perpendicular line's span takes it in (reductions without
// return: nothing waits on them).
template <bool REV>
static __device__ bool step(const Side& s, const Side& o, int line, int base, uint4& q0,
                            uint4& q1, int& carry, int* oFlag) {
    const int lane = threadIdx.x & 31;
    const int head = REV ? 31 : 0, tail = 31 - head;     // the step's first and last lane
    unsigned raw[CPL] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
    int v[CPL];
    bool wall[CPL];
#pragma unroll
    for (int k = 0; k < CPL; ++k) {          // k: the scan's order within the lane
        const unsigned r = raw[REV ? CPL - 1 - k : k];
        wall[k] = r == BLOCKED;
        v[k] = toVal(r);
    }
    // the lane's map of an incoming value x: min(A, x + B), B = INF past a wall
    int A = INF, B = CPL;
#pragma unroll
    for (int k = 0; k < CPL; ++k) {
        A = wall[k] ? INF : min(v[k], A + 1);
        if (wall[k]) B = INF;
    }
    // composed with the maps of the lanes the scan passes first (below; REV: above)
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int a = REV ? __shfl_down_sync(FULL, A, d) : __shfl_up_sync(FULL, A, d);
        const int b = REV ? __shfl_down_sync(FULL, B, d) : __shfl_up_sync(FULL, B, d);
        if (REV ? lane + d < 32 : lane >= d) {
            A = min(A, a + B);
            B = min(b + B, INF);
        }
    }
    const int a = REV ? __shfl_down_sync(FULL, A, 1) : __shfl_up_sync(FULL, A, 1);
    const int b = REV ? __shfl_down_sync(FULL, B, 1) : __shfl_up_sync(FULL, B, 1);
    int x = lane == head ? carry : min(a, min(carry + b, INF));
    bool any = false, last = false;
#pragma unroll
    for (int k = 0; k < CPL; ++k) {
        x = wall[k] ? INF : min(v[k], x + 1);
        const bool better = x < v[k];
        if (better) {
            const int i = REV ? CPL - 1 - k : k;
            const int c = base + CPL * lane + i;                     // cell along the line
            raw[i] = (unsigned)x;
            o.lines[(size_t)c * o.pitch + line] = (unsigned)x;
            atomicMin(&o.lo[c], line);
            atomicMax(&o.hi[c], line);
        }
        any |= better;
        last = better;
    }
    if (any) {
        q0 = make_uint4(raw[0], raw[1], raw[2], raw[3]);
        q1 = make_uint4(raw[4], raw[5], raw[6], raw[7]);
        uint4* p = reinterpret_cast<uint4*>(s.lines + (size_t)line * s.pitch + base + CPL * lane);
        p[0] = q0;
        p[1] = q1;
    }
    if (__any_sync(FULL, any) && lane == 0) *oFlag = 1;
    carry = __shfl_sync(FULL, x, tail);
    return __shfl_sync(FULL, (int)last, tail) != 0;
}

// Relax line `line` along itself from its span [lo, hi] (the cells changed since its last
// scan) outwards: a forward scan from the span's first step through the step of cell
// hi + 1 (which the span's last cell may improve), and on while a step's last cell
// improves; then a backward scan from the span's last step down through the step of cell
// lo - 1, and on the same way. A cell improved only by the forward scan cannot improve a
// cell before it, so the backward scan need not start past the span. Each scan loads its
// next step while it works on one; the backward scan starts from the registers the
// forward scan left for the span's last step (each lane holds the same cells in both).
static __device__ void scanLine(const Side& s, const Side& o, int line, int lo, int hi,
                                int* oFlag) {
    const int first = lo / STEP * STEP, last = hi / STEP * STEP;
    const int fwdEnd = min(hi + 1, s.pitch - 1) / STEP * STEP;
    const int bwdEnd = max(lo - 1, 0) / STEP * STEP;
    uint4 c0, c1, n0, n1, k0, k1;
    int carry = INF;
    load(s, line, first, c0, c1);
    for (int base = first;; base += STEP) {
        const bool next = base + STEP < s.pitch;
        if (next) load(s, line, base + STEP, n0, n1);
        const bool more = step<false>(s, o, line, base, c0, c1, carry, oFlag);
        if (base == last) {
            k0 = c0;
            k1 = c1;
        }
        if ((base >= fwdEnd && !more) || !next) break;
        c0 = n0;
        c1 = n1;
    }
    carry = INF;
    c0 = k0;
    c1 = k1;
    for (int base = last;; base -= STEP) {
        const bool next = base > 0;
        if (next) load(s, line, base - STEP, n0, n1);
        const bool more = step<true>(s, o, line, base, c0, c1, carry, oFlag);
        if ((base <= bwdEnd && !more) || !next) break;
        c0 = n0;
        c1 = n1;
    }
}

// Every line of side s with a span, one warp a line (a warp reads the spans of its lines:
// no list to build, no atomic that returns).
static __device__ void phase(const Side& s, const Side& o, int* oFlag) {
    const int warps = gridDim.x * (blockDim.x >> 5);
    for (int line = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); line < s.n;
         line += warps) {
        const int hi = __ldcg(&s.hi[line]), lo = __ldcg(&s.lo[line]);   // both in flight
        if (hi < 0) continue;
        __syncwarp();
        if ((threadIdx.x & 31) == 0) {
            s.lo[line] = NOSPAN;
            s.hi[line] = -1;
        }
        scanLine(s, o, line, lo, hi, oFlag);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
lines_wavefront(unsigned* rowsCopy, unsigned* colsCopy, int rowPitch, int colPitch,
                int height, int width, int* rowLo, int* rowHi, int* colLo, int* colHi,
                int* flags) {
    const Side rows{rowsCopy, rowPitch, height, rowLo, rowHi};
    const Side cols{colsCopy, colPitch, width, colLo, colHi};
    cg::grid_group grid = cg::this_grid();
    const bool lead = blockIdx.x == 0 && threadIdx.x == 0;
    for (int k = 0;; ++k) {
        const int p = k & 1, q = p ^ 1;
        if (lead) {                    // slot q's flags were read a phase ago or more
            flags[ROWS + q] = 0;
            flags[COLS + q] = 0;
        }
        phase(rows, cols, &flags[COLS + p]);
        grid.sync();
        if (__ldcg(&flags[COLS + p]) == 0) {
            if (lead) flags[PHASES] = 2 * k + 1;
            break;
        }
        phase(cols, rows, &flags[ROWS + q]);
        grid.sync();
        if (__ldcg(&flags[ROWS + q]) == 0) {
            if (lead) flags[PHASES] = 2 * k + 2;
            break;
        }
    }
}

// The level array (height x width, resting levels) into both padded copies (pads
// blocked); 32 x 32 tiles through shared memory for the transposed one.
extern "C" __global__ void lines_load(const unsigned* level, int height, int width,
                                      unsigned* rowsCopy, unsigned* colsCopy, int rowPitch,
                                      int colPitch) {
    __shared__ unsigned t[32][33];
    const int x = blockIdx.x * 32 + threadIdx.x;
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
        const int y = blockIdx.y * 32 + j;
        const unsigned v = (y < height && x < width) ? level[(size_t)y * width + x] : BLOCKED;
        if (y < height) rowsCopy[(size_t)y * rowPitch + x] = v;
        t[j][threadIdx.x] = v;
    }
    __syncthreads();
    const int ty = blockIdx.y * 32 + threadIdx.x;    // column-major: line = x, cell = y
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
        const int tx = blockIdx.x * 32 + j;
        if (tx < width) colsCopy[(size_t)tx * colPitch + ty] = t[threadIdx.x][j];
    }
}

// Sources at level 0 in both copies, in the spans of their row and their column.
extern "C" __global__ void lines_seed(const int* sources, int numSources, int width,
                                      unsigned* rowsCopy, unsigned* colsCopy, int rowPitch,
                                      int colPitch, int* rowLo, int* rowHi, int* colLo,
                                      int* colHi) {
    for (int i = threadIdx.x; i < numSources; i += blockDim.x) {
        const int v = sources[i], y = v / width, x = v - y * width;
        rowsCopy[(size_t)y * rowPitch + x] = 0;
        colsCopy[(size_t)x * colPitch + y] = 0;
        atomicMin(&rowLo[y], x);
        atomicMax(&rowHi[y], x);
        atomicMin(&colLo[x], y);
        atomicMax(&colHi[x], y);
    }
}

// The row-major copy back into the level array, and its highest level into maxLevel[0]
// (raised by atomicMax from 0).
extern "C" __global__ void lines_store(const unsigned* rowsCopy, int rowPitch, int height,
                                       int width, unsigned* level, unsigned* maxLevel) {
    unsigned m = 0;
    const long long n = (long long)height * width;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int y = (int)(i / width), x = (int)(i - (long long)y * width);
        const unsigned v = rowsCopy[(size_t)y * rowPitch + x];
        level[i] = v;
        if (v < BLOCKED) m = max(m, v);
    }
    m = __reduce_max_sync(FULL, m);
    if ((threadIdx.x & 31) == 0 && m) atomicMax(maxLevel, m);
}
