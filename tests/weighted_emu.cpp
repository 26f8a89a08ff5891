// kernels/weighted.cu compiled for the CPU, for tests/test_gpu_weighted_host.py: the
// kernel's own code, its blocks run one after another, each by `threads` OS threads
// that meet at std::barrier where the kernel calls __syncthreads(). What this cannot
// show is the device's memory model; with -fsanitize=thread it shows the races between
// the threads of a block that the barriers fail to order.
#include "cuda_emu.h"

unsigned smem[1 << 16];   // 256 kB: more than any device's shared memory per block

#define MAZEROUTE_EMU 1   // the cooperative tiled_rounds is emulated below
#include "../kernels/weighted.cu"

#ifdef PROBE
extern "C" unsigned long long* probe() { return g_probe; }
#endif

extern "C" int emulate(int threads, int blocks, int smemBytes, const long long* rec,
                       int count, const int* code, const unsigned short* cost,
                       const int* ownNet, const unsigned short* ownCost, int owns,
                       const int* pins, int width, int least, int* seg, int* out, int* hdr,
                       int* used) {
    if (smemBytes > (int)sizeof(smem)) return -1;
    return runBlocks(threads, blocks, [=] {
        weighted_route(rec, count, code, cost, ownNet, ownCost, owns, pins, width, least,
                       seg, out, hdr, used);
    });
}

extern "C" int emulate_tiled_init(int threads, int blocks, const long long* rec,
                                  const int* tiles, int ntiles, const int* pins, int width,
                                  int least, unsigned* gdist, int* seg, int* state, int* bnd,
                                  int* prev) {
    return runBlocks(threads, blocks, [=] {
        tiled_init(rec, tiles, ntiles, pins, width, least, gdist, seg, state, bnd, prev);
    });
}

// tiled_rounds needs its blocks resident together (a grid barrier after each round): here
// each round is a run of every block in turn, and its loop, written out again, is the
// kernel's (the same counters, flags and clearing).
extern "C" int emulate_tiled_rounds(int threads, int blocks, const long long* rec,
                                    const int* tiles, int ntiles, const int* pins,
                                    const int* code, const unsigned short* cost,
                                    const int* ownNet, const unsigned short* ownCost,
                                    int owns, unsigned* gdist, int width, int* bnd,
                                    int* flagsA, int* flagsB, int* moved) {
    const CellCosts cc = cellCosts(code, cost, ownNet, ownCost, owns);
    int* prev = flagsA;
    int* cur = flagsB;
    for (int k = 0;; ++k) {
        int* count = moved + k % MAX_ROUNDS;
        moved[(k + 2) % MAX_ROUNDS] = 0;
        const int rc = runBlocks(threads, blocks, [=] {
            for (int t = blockIdx.x; t < ntiles; t += gridDim.x)
                relaxTile(t, rec, tiles, pins, cc, gdist, width, (Bound*)bnd, prev, cur,
                          count, false);   // the blocks share one shared memory here
        });
        if (rc) return rc;
        const bool still = *count != 0;
        std::swap(prev, cur);
        if (!still) break;
    }
    if (prev != flagsA)
        for (int t = 0; t < ntiles; ++t) flagsA[t] = 0;
    moved[0] = moved[1] = 0;
    return 0;
}

extern "C" int emulate_tiled_seed(int threads, int blocks, int ntiles, int* flagsA,
                                  int* tstate, int* queue, int* counters, int qmask) {
    return runSerial(threads, blocks, [=] {
        tiled_seed(ntiles, flagsA, tstate, queue, counters, (unsigned)qmask);
    });
}

// The blocks of tiled_queue one after another: the first takes every tile from the queue
// until the pending count falls to zero, and the others find the run over.
extern "C" int emulate_tiled_queue(int threads, int blocks, const long long* rec,
                                   const int* tiles, int ntiles, const int* pins,
                                   const int* code, const unsigned short* cost,
                                   const int* ownNet, const unsigned short* ownCost,
                                   int owns, unsigned* gdist, int width, int* bnd,
                                   int* tstate, int* queue, int* counters, int qmask) {
    return runBlocks(threads, blocks, [=] {
        tiled_queue(rec, tiles, ntiles, pins, code, cost, ownNet, ownCost, owns, gdist,
                    width, bnd, tstate, queue, counters, (unsigned)qmask);
    });
}

extern "C" int emulate_tiled_connect(int threads, int blocks, const long long* rec, int count,
                                     const int* pins, int width, const int* code,
                                     const unsigned short* cost, const int* ownNet,
                                     const unsigned short* ownCost, int owns,
                                     unsigned* gdist, int* seg, int* state, int* bnd,
                                     const int* tfirst, int* prev, int* growing) {
    return runBlocks(threads, blocks, [=] {
        tiled_connect(rec, count, pins, width, code, cost, ownNet, ownCost, owns, gdist, seg,
                      state, bnd, tfirst, prev, growing);
    });
}

extern "C" int emulate_tiled_finish(int threads, int blocks, const long long* rec, int count,
                                    const int* seg, const int* state, int* out, int* hdr,
                                    int* used) {
    return runBlocks(threads, blocks, [=] {
        tiled_finish(rec, count, seg, state, out, hdr, used);
    });
}

extern "C" int emulate_set_costs(int threads, int blocks, const int* idx, const int* val,
                                 int n, unsigned short* cost) {
    return runSerial(threads, blocks, [=] { set_costs(idx, val, n, cost); });
}

extern "C" int emulate_chain_uses(int threads, int blocks, const int* cells, const int* start,
                                  const int* hdr, int from_hdr, int row0, int count,
                                  const int* nets, int sign, int price,
                                  const long long* weight, long long* load,
                                  const long long* bh, int pres, unsigned short* cost) {
    return runSerial(threads, blocks, [=] {
        chain_uses(cells, start, hdr, from_hdr, row0, count, nets, sign, price, weight, load,
                   bh, pres, cost);
    });
}
