// Connected-component labelling by union-find (Playne and Hawick, "A New Algorithm for
// Parallel Connected-Component Labelling on GPUs", IEEE TPDS 29(6), 2018): every free
// cell starts as a tree of its own; each cell joins the trees of its left and upper free
// neighbours (the union hangs the larger root under the smaller by atomicMin, so a root
// is the smallest cell of its tree, and retries when another thread moved it first); a
// last pass points every cell at its root. Work O(n) with short trees, a few launches,
// and no dependence on the length of the paths inside a component (a maze's corridors
// cost a level-synchronous wavefront one launch or sweep per bend).
//
// Used by mazeroute/engines/gpu_batch.py to prove two-pin nets unroutable without
// searching them: routing only ever turns free cells into wires, so pins that lie in
// different components of the free cells at one routing position lie in different
// components at every later one.
//
// label_cells: label[v] = v where cell v is free as of routing position `turn`, else -1.
//   Free as of `turn` is kernels/route_batch.cu's rule: the free bit is set, or the cell
//   is a wire of a net at `turn` or later (wired bit set, time[v] >= turn).
// label_join: union of every free cell with its left and upper free neighbours.
// label_flatten: label[v] = the root of v's tree (the smallest cell of its component).
// pins_apart: apart[i] = 1 when two-pin net i's pins (x0, y0, x1, y1 in pins[4i ..]) are
//   neither equal nor adjacent and no free neighbour of the one shares a component with a
//   free neighbour of the other (pins are never free cells themselves: no path joins them).

typedef unsigned long long u64;

extern "C" __global__ void label_cells(const u64* freeBits, const u64* wiredBits,
                                       const int* time, int turn, int width, int height,
                                       int wordsPerRow, int* label) {
    const long long n = (long long)width * height;
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < n;
         v += (long long)gridDim.x * blockDim.x) {
        const int y = (int)(v / width), x = (int)(v - (long long)y * width);
        const size_t word = (size_t)y * wordsPerRow + (x >> 6);
        const u64 bit = 1ull << (x & 63);
        bool free = (freeBits[word] & bit) != 0;
        if (!free && (wiredBits[word] & bit)) free = time[v] >= turn;
        label[v] = free ? (int)v : -1;
    }
}

__device__ __forceinline__ int findRoot(volatile int* label, int v) {
    int p = label[v];
    while (p != v) {
        v = p;
        p = label[v];
    }
    return v;
}

__device__ void unite(int* label, int a, int b) {
    volatile int* vl = label;
    while (true) {
        a = findRoot(vl, a);
        b = findRoot(vl, b);
        if (a == b) return;
        if (a > b) {
            const int t = a;
            a = b;
            b = t;
        }
        const int old = atomicMin(label + b, a);
        if (old == b) return;   // b was still a root: it hangs under a now
        b = old;                // another union moved b first: go on from where it went
    }
}

extern "C" __global__ void label_join(int* label, int width, int height) {
    const long long n = (long long)width * height;
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < n;
         v += (long long)gridDim.x * blockDim.x) {
        if (label[v] < 0) continue;
        const int x = (int)(v % width);
        if (x > 0 && label[v - 1] >= 0) unite(label, (int)v, (int)v - 1);
        if (v >= width && label[v - width] >= 0) unite(label, (int)v, (int)(v - width));
    }
}

extern "C" __global__ void label_flatten(int* label, int width, int height) {
    const long long n = (long long)width * height;
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < n;
         v += (long long)gridDim.x * blockDim.x) {
        if (label[v] >= 0) label[v] = findRoot(label, (int)v);
    }
}

// The components of the free 4-neighbours of (x, y), -1 where there is none.
__device__ __forceinline__ void around(const int* label, int width, int height, int x, int y,
                                       int out[4]) {
    out[0] = y > 0 ? label[(size_t)(y - 1) * width + x] : -1;
    out[1] = x + 1 < width ? label[(size_t)y * width + x + 1] : -1;
    out[2] = y + 1 < height ? label[(size_t)(y + 1) * width + x] : -1;
    out[3] = x > 0 ? label[(size_t)y * width + x - 1] : -1;
}

extern "C" __global__ void pins_apart(const int* label, const int* pins, int k, int width,
                                      int height, int* apart) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k) return;
    const int x0 = pins[4 * i], y0 = pins[4 * i + 1], x1 = pins[4 * i + 2],
              y1 = pins[4 * i + 3];
    if (abs(x0 - x1) + abs(y0 - y1) <= 1) {
        apart[i] = 0;
        return;
    }
    int a[4], b[4];
    around(label, width, height, x0, y0, a);
    around(label, width, height, x1, y1, b);
    int joined = 0;
    for (int s = 0; s < 4; ++s)
        for (int t = 0; t < 4; ++t) joined |= a[s] >= 0 && a[s] == b[t];
    apart[i] = !joined;
}
