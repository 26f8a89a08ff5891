// Pattern routing (Kastner, Bozorgzadeh and Sarrafzadeh, "Pattern Routing", DAC 2000)
// with each shape's layers chosen by dynamic programming along its runs and the via
// stacks where a tree's edges meet priced exactly, as CUGR's layer assignment does
// (Liu et al., ICCAD 2019), every candidate of every net in one launch as InstantGR
// prices its patterns (Liu et al., ICCAD 2024).
// Host side: mazeroute/engines/gpu_pattern.py; the NumPy twin of every kernel is in
// mazeroute/router/pattern_shapes.py and pattern_tree.py, integer for integer.
typedef long long i64;

#define MAXL 32
#define INF (1LL << 44)

// A run of one shape on layer z: the sum of its nodes' costs from prefix sums along the
// layer's rows (horizontal) or columns; nothing for a run of no step; INF along a layer
// of the other direction.
__device__ __forceinline__ i64 run_cost(const i64* p, const unsigned char* along, int z,
                                        int lines, int len, i64 line, i64 a, i64 b) {
    i64 lo = a < b ? a : b, hi = a < b ? b : a;
    if (hi == lo) return 0;
    if (!along[z]) return INF;
    const i64* row = p + ((i64)z * lines + line) * (len + 1);
    return row[hi + 1] - row[lo];
}

// t reached through a via stack from any layer: min over z' of t[z'] + via * |z - z'|.
__device__ __forceinline__ void stacked(i64* t, int L, i64 via) {
    for (int z = 1; z < L; ++z) t[z] = min(t[z], t[z - 1] + via);
    for (int z = L - 2; z >= 0; --z) t[z] = min(t[z], t[z + 1] + via);
}

// One thread a candidate shape: its three runs' costs on every layer, the cost from
// each first-run layer to the far end (whose arrival costs are end[row]), and the
// shape's key (cost << bits | index) kept where least for its edge and first layer.
extern "C" __global__ void pattern_shapes(
    const i64* ph, const i64* pv, const unsigned char* along_x,
    const unsigned char* along_y, int L, int ny, int nx, i64 via, int first_h,
    const i64* xa, const i64* ya, const i64* xb, const i64* yb, const i64* mid,
    const i64* row, const i64* index, const i64* end, int bits, i64* best, i64 n) {
    i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    i64 t[MAXL];
    const i64* e = end + row[k] * L;
    // runs: horizontal along a row (ph: L x ny x (nx + 1)), vertical along a column
    // (pv: L x nx x (ny + 1)); the last run first, the dynamic programme runs backwards
    for (int z = 0; z < L; ++z) {
        i64 c3 = first_h ? run_cost(ph, along_x, z, ny, nx, yb[k], mid[k], xb[k])
                         : run_cost(pv, along_y, z, nx, ny, xb[k], mid[k], yb[k]);
        t[z] = min(c3 + e[z], INF);
    }
    stacked(t, L, via);
    for (int z = 0; z < L; ++z) {
        i64 c2 = first_h ? run_cost(pv, along_y, z, nx, ny, mid[k], ya[k], yb[k])
                         : run_cost(ph, along_x, z, ny, nx, mid[k], xa[k], xb[k]);
        t[z] = min(c2 + t[z], INF);
    }
    stacked(t, L, via);
    i64* out = best + row[k] * L;
    for (int z = 0; z < L; ++z) {
        i64 c1 = first_h ? run_cost(ph, along_x, z, ny, nx, ya[k], xa[k], mid[k])
                         : run_cost(pv, along_y, z, nx, ny, xa[k], ya[k], mid[k]);
        i64 key = (min(c1 + t[z], INF) << bits) | index[k];
        atomicMin(out + z, key);
    }
}

// One thread a child edge: for every stack lo..hi of its point, its cheapest start
// layer inside the stack, added to the point's table (points x L x L).
extern "C" __global__ void junction_add(const i64* f, const i64* point, int L, i64* tot,
                                        i64 n) {
    i64 k = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const i64* fk = f + k * L;
    i64* out = tot + point[k] * L * L;
    for (int lo = 0; lo < L; ++lo) {
        i64 cur = INF;
        for (int hi = lo; hi < L; ++hi) {
            cur = min(cur, fk[hi]);
            atomicAdd((unsigned long long*)(out + lo * L + hi), (unsigned long long)cur);
        }
    }
}

// One thread a point: its table closed (a stack must hold its pins' layers, costs a via
// a layer it spans, INF where impossible) and its cost on arriving on each layer (the
// cheapest stack holding the layer).
extern "C" __global__ void junction_close(i64* tot, const i64* pin_lo, const i64* pin_hi,
                                          int L, i64 via, i64* arrive, i64 n) {
    i64 p = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    i64* tp = tot + p * L * L;
    for (int lo = 0; lo < L; ++lo)
        for (int hi = 0; hi < L; ++hi) {
            bool ok = lo <= hi && lo <= pin_lo[p] && hi >= pin_hi[p];
            tp[lo * L + hi] = ok ? min(tp[lo * L + hi] + via * (hi - lo), INF) : INF;
        }
    for (int z = 0; z < L; ++z) {
        i64 m = INF;
        for (int lo = 0; lo <= z; ++lo)
            for (int hi = z; hi < L; ++hi) m = min(m, tp[lo * L + hi]);
        arrive[p * L + z] = m;
    }
}

// One thread an edge of one level, top-down: its start layer (the cheapest inside its
// parent point's stack), its shape (the key best kept for that layer), its middle and
// last runs' layers forwards from there, and its child point's arrival layer.
extern "C" __global__ void pattern_down(
    const i64* ph, const i64* pv, const unsigned char* along_x,
    const unsigned char* along_y, int L, int ny, int nx, i64 via, const i64* edges, const i64* xa_, const i64* ya_, const i64* xb_, const i64* yb_,
    const i64* a_loc, const i64* b_loc, const i64* lo, const i64* hi, const i64* cost,
    const i64* key, const i64* arrive_cost, unsigned char* first_h_out, i64* mid_out,
    i64* layers, i64* arrive, i64 m) {
    i64 j = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    i64 e = edges[j], a = a_loc[e], b = b_loc[e];
    i64 xa = xa_[e], ya = ya_[e], xb = xb_[e], yb = yb_[e];
    int z1 = -1;
    for (int z = (int)lo[a]; z <= hi[a]; ++z)
        if (z1 < 0 || cost[e * L + z] < cost[e * L + z1]) z1 = z;
    i64 k = key[e * L + z1];
    i64 dx = xb - xa, dy = yb - ya;
    bool diag = dx != 0 && dy != 0;
    i64 nh = diag ? (dx < 0 ? -dx : dx) + 1 : (dy == 0 ? 1 : 0);
    bool fh = k < nh;
    i64 local = fh ? k : k - nh;
    i64 mid = fh ? (diag ? xa + (dx > 0 ? local : -local) : xb)
                 : (diag ? ya + (dy > 0 ? local : -local) : yb);
    i64 t3[MAXL], t2[MAXL];
    const i64* end = arrive_cost + b * L;
    for (int z = 0; z < L; ++z) {
        i64 c3 = fh ? run_cost(ph, along_x, z, ny, nx, yb, mid, xb)
                    : run_cost(pv, along_y, z, nx, ny, xb, mid, yb);
        t3[z] = min(c3 + end[z], INF);
        t2[z] = t3[z];
    }
    stacked(t2, L, via);
    for (int z = 0; z < L; ++z) {
        i64 c2 = fh ? run_cost(pv, along_y, z, nx, ny, mid, ya, yb)
                    : run_cost(ph, along_x, z, ny, nx, mid, xa, xb);
        t2[z] = min(c2 + t2[z], INF);
    }
    int z2 = 0, z3 = 0;
    for (int z = 1; z < L; ++z)
        if (t2[z] + via * (z > z1 ? z - z1 : z1 - z)
            < t2[z2] + via * (z2 > z1 ? z2 - z1 : z1 - z2)) z2 = z;
    for (int z = 1; z < L; ++z)
        if (t3[z] + via * (z > z2 ? z - z2 : z2 - z)
            < t3[z3] + via * (z3 > z2 ? z3 - z2 : z2 - z3)) z3 = z;
    first_h_out[e] = fh;
    mid_out[e] = mid;
    layers[e * 3] = z1;
    layers[e * 3 + 1] = z2;
    layers[e * 3 + 2] = z3;
    arrive[b] = z3;
}
