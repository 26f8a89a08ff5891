// Negotiated congestion's pricing rule (PathFinder: McMurchie and Ebeling, FPGA 1995),
// read by the chains of weighted.cu and by congestion.cu; the host's form of the same
// rule is mazeroute/router/pricing.py (mazeroute/engines/costs.py Pricing):
//   cost = clamp(bh * (COST_SCALE + pres * load) / COST_SCALE, 1, COST_MAX)
// with bh a cell's base plus history cost and load the weights of the nets using it.
#pragma once

#ifndef COST_SCALE
#define COST_SCALE 16
#endif
#ifndef COST_MAX
#define COST_MAX 65535
#endif

__device__ __forceinline__ unsigned short priceOf(long long bh, long long load, int pres) {
    const long long v = bh * (COST_SCALE + (long long)pres * load) / COST_SCALE;
    return (unsigned short)(v < 1 ? 1 : (v > COST_MAX ? COST_MAX : v));
}
