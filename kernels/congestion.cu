// PathFinder (McMurchie and Ebeling, "PathFinder: A Negotiation-Based Performance-Driven
// Router for FPGAs", FPGA 1995), its negotiation state kept on the device between the
// searches of kernels/weighted.cu, so that an iteration's rip-ups, commits and pricing
// need no look from the host (mazeroute/engines/gpu_state.py; the host's form of the same
// state is mazeroute/router/congestion.py, and of the pricing rule router/pricing.py).
//
// Routes live in a pool of cells: net k's route is pool[rstart[k] .. + rlen[k]) (rlen 0:
// no route), its bounding box rbox[4k ..] (x0, y0, x1, y1). Per cell: occupancy (nets
// using it), load (their weights, summed), idSum (their ids, summed), history and bh (base
// plus history), cost (what the searches read: pricing.cuh priceOf).
// Kernels over routes run a block a route.
//
// route_keep: the results of `count` requests of nets[j] (their headers hdr[j * HDR ..]:
//   status, cells, offset into out): a found route's cells are copied to the pool at an
//   offset taken by one atomicAdd on *used, rstart, rlen and rbox set; a request that
//   found none leaves its net without a route. found[j] = 1 when it found one.
// route_uses: sign * (1, weight, id) added to each cell of the routes of nets[0 .. count)
//   (occupancy, load, idSum); with bump, `bump` is added to the load alone.
// route_price: the cells of those routes priced (launched after route_uses).
// route_own: the own overlay of weighted.cu's CellCosts from the routes of nets[0 ..
//   count) (the group schedule: a net searches pricing its own route as if it were gone):
//   with on, each cell of net k's route gets ownNet = k and ownCost its price with k's
//   weight taken off its load; without, ownNet = -1. The routes share no cell.
// price_cells: the cells listed priced; price_grid: every cell.
// overused_uses: every (cell, net) use of a cell of occupancy above 1, over all routes,
//   at slots taken by atomicAdd on *count (at most cap of them written).
// history_add: history and bh grow by acc * (occupancy - 1) on the cells listed (each
//   once).
#include "pricing.cuh"

#define HDR 3
#define ST_OK 1

extern "C" __global__ void route_keep(const int* __restrict__ hdr, int count,
                                      const int* __restrict__ out,
                                      const int* __restrict__ nets, int width, int* pool,
                                      int* used, int* rstart, int* rlen, int* rbox,
                                      int* found) {
    __shared__ int s_at, s_box[4];
    for (int j = blockIdx.x; j < count; j += gridDim.x) {
        const int* h = hdr + (long long)j * HDR;
        const int net = nets[j];
        const int n = h[0] == ST_OK ? h[1] : 0;
        if (threadIdx.x == 0) {
            s_at = n ? atomicAdd(used, n) : 0;
            s_box[0] = s_box[1] = 0x7fffffff;
            s_box[2] = s_box[3] = -1;
        }
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const int c = out[h[2] + i];
            pool[s_at + i] = c;
            const int x = c % width, y = c / width;
            atomicMin(&s_box[0], x);
            atomicMin(&s_box[1], y);
            atomicMax(&s_box[2], x);
            atomicMax(&s_box[3], y);
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            rstart[net] = s_at;
            rlen[net] = n;
            found[j] = n ? 1 : 0;
            if (n)
                for (int k = 0; k < 4; ++k) rbox[4 * net + k] = s_box[k];
        }
        __syncthreads();
    }
}

extern "C" __global__ void route_uses(const int* __restrict__ pool,
                                      const int* __restrict__ rstart,
                                      const int* __restrict__ rlen,
                                      const int* __restrict__ nets, int count, int sign,
                                      long long bump, const long long* __restrict__ weight,
                                      int* occupancy, long long* load, long long* idSum) {
    for (int j = blockIdx.x; j < count; j += gridDim.x) {
        const int net = nets[j];
        const int s = rstart[net], n = rlen[net];
        const long long w = bump ? bump : (long long)sign * weight[net];
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const int c = pool[s + i];
            atomicAdd((unsigned long long*)(load + c), (unsigned long long)w);
            if (!bump) {
                atomicAdd(occupancy + c, sign);
                atomicAdd((unsigned long long*)(idSum + c),
                          (unsigned long long)((long long)sign * net));
            }
        }
    }
}

extern "C" __global__ void route_price(const int* __restrict__ pool,
                                       const int* __restrict__ rstart,
                                       const int* __restrict__ rlen,
                                       const int* __restrict__ nets, int count,
                                       const long long* __restrict__ bh,
                                       const long long* __restrict__ load, int pres,
                                       unsigned short* cost) {
    for (int j = blockIdx.x; j < count; j += gridDim.x) {
        const int net = nets[j];
        const int s = rstart[net], n = rlen[net];
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const int c = pool[s + i];
            cost[c] = priceOf(bh[c], load[c], pres);
        }
    }
}

extern "C" __global__ void route_own(const int* __restrict__ pool,
                                     const int* __restrict__ rstart,
                                     const int* __restrict__ rlen,
                                     const int* __restrict__ nets, int count, int on,
                                     const long long* __restrict__ weight,
                                     const long long* __restrict__ bh,
                                     const long long* __restrict__ load, int pres,
                                     int* ownNet, unsigned short* ownCost) {
    for (int j = blockIdx.x; j < count; j += gridDim.x) {
        const int net = nets[j];
        const int s = rstart[net], n = rlen[net];
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const int c = pool[s + i];
            ownNet[c] = on ? net : -1;
            if (on) ownCost[c] = priceOf(bh[c], load[c] - weight[net], pres);
        }
    }
}

extern "C" __global__ void price_cells(const int* __restrict__ cells, int n,
                                       const long long* __restrict__ bh,
                                       const long long* __restrict__ load, int pres,
                                       unsigned short* cost) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        cost[cells[i]] = priceOf(bh[cells[i]], load[cells[i]], pres);
}

extern "C" __global__ void price_grid(long long n, const long long* __restrict__ bh,
                                      const long long* __restrict__ load, int pres,
                                      unsigned short* cost) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        cost[i] = priceOf(bh[i], load[i], pres);
}

extern "C" __global__ void overused_uses(const int* __restrict__ pool,
                                         const int* __restrict__ rstart,
                                         const int* __restrict__ rlen, int nets,
                                         const int* __restrict__ occupancy, int* cells,
                                         int* who, int* count, int cap) {
    for (int net = blockIdx.x; net < nets; net += gridDim.x) {
        const int s = rstart[net], n = rlen[net];
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const int c = pool[s + i];
            if (occupancy[c] > 1) {
                const int k = atomicAdd(count, 1);
                if (k < cap) {
                    cells[k] = c;
                    who[k] = net;
                }
            }
        }
    }
}

extern "C" __global__ void history_add(const int* __restrict__ cells, int n,
                                       const int* __restrict__ occupancy, long long acc,
                                       long long* history, long long* bh) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const int c = cells[i];
        const long long add = acc * (occupancy[c] - 1);
        history[c] += add;
        bh[c] += add;
    }
}
