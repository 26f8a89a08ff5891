// kernels/congestion.cu compiled for the CPU, for tests/test_gpu_state_host.py: the
// kernels' own code run by tests/cuda_emu.h (route_keep by a team of threads that meet
// at its barriers; the kernels without barriers a (block, thread) at a time). A block's
// shared variables are the function's statics here, one copy for the team.
#define __shared__ static
#include "cuda_emu.h"

#include "../kernels/congestion.cu"

extern "C" int emulate_route_keep(int threads, int blocks, const int* hdr, int count,
                                  const int* out, const int* nets, int width, int* pool,
                                  int* used, int* rstart, int* rlen, int* rbox, int* found) {
    return runBlocks(threads, blocks, [=] {
        route_keep(hdr, count, out, nets, width, pool, used, rstart, rlen, rbox, found);
    });
}

extern "C" int emulate_route_uses(int threads, int blocks, const int* pool, const int* rstart,
                                  const int* rlen, const int* nets, int count, int sign,
                                  long long bump, const long long* weight, int* occupancy,
                                  long long* load, long long* idSum) {
    return runSerial(threads, blocks, [=] {
        route_uses(pool, rstart, rlen, nets, count, sign, bump, weight, occupancy, load,
                   idSum);
    });
}

extern "C" int emulate_route_price(int threads, int blocks, const int* pool, const int* rstart,
                                   const int* rlen, const int* nets, int count,
                                   const long long* bh, const long long* load, int pres,
                                   unsigned short* cost) {
    return runSerial(threads, blocks, [=] {
        route_price(pool, rstart, rlen, nets, count, bh, load, pres, cost);
    });
}

extern "C" int emulate_route_own(int threads, int blocks, const int* pool, const int* rstart,
                                 const int* rlen, const int* nets, int count, int on,
                                 const long long* weight, const long long* bh,
                                 const long long* load, int pres, int* ownNet,
                                 unsigned short* ownCost) {
    return runSerial(threads, blocks, [=] {
        route_own(pool, rstart, rlen, nets, count, on, weight, bh, load, pres, ownNet, ownCost);
    });
}

extern "C" int emulate_price_cells(int threads, int blocks, const int* cells, int n,
                                   const long long* bh, const long long* load, int pres,
                                   unsigned short* cost) {
    return runSerial(threads, blocks, [=] { price_cells(cells, n, bh, load, pres, cost); });
}

extern "C" int emulate_price_grid(int threads, int blocks, long long n, const long long* bh,
                                  const long long* load, int pres, unsigned short* cost) {
    return runSerial(threads, blocks, [=] { price_grid(n, bh, load, pres, cost); });
}

extern "C" int emulate_overused_uses(int threads, int blocks, const int* pool,
                                     const int* rstart, const int* rlen, int nets,
                                     const int* occupancy, int* cells, int* who, int* count,
                                     int cap) {
    return runSerial(threads, blocks, [=] {
        overused_uses(pool, rstart, rlen, nets, occupancy, cells, who, count, cap);
    });
}

extern "C" int emulate_history_add(int threads, int blocks, const int* cells, int n,
                                   const int* occupancy, long long acc, long long* history,
                                   long long* bh) {
    return runSerial(threads, blocks, [=] { history_add(cells, n, occupancy, acc, history, bh); });
}
