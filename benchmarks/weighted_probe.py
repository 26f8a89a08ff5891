"""Probe of the weighted net search on the GPU (gpu_weighted) against the CPU engine.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/weighted_probe.py`` (``--cpu-only`` runs the CPU half anywhere). The layout is
``random_layout(size, size, density=0.25, nets, span)``; each net's box is its pins' box
grown by ``--margin`` cells, and the nets are packed greedily (first fit, in net order)
into batches of pairwise disjoint boxes, one ``route`` call each, as negotiated routing
calls it. Costs look like negotiation's: a base of 16, history steps of 16 on a third of
the cells, 2 % dear cells; between passes 1 % of the cells change (passed as
``changed``). Prints, per engine, the median wall time of one pass over every batch, and
checks that both engines return the same wires; for the GPU also one ``-DPROBE`` pass:
searches, sweeps per search, backtrace steps and block cycles per net. ``--big`` adds one
whole-grid request on a ``--big-size`` grid (4096 by default) of the same kind.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.engines.weighted import (  # noqa: E402
    COST_DTYPE,
    COST_MAX,
    CPUNetSearch,
    NetRequest,
)
from mazeroute.generate import random_layout  # noqa: E402


def disjoint_batches(boxes: np.ndarray, shape: tuple[int, int]) -> list[list[int]]:
    """First fit, in order: each box joins the first batch whose boxes it does not meet."""
    occupied: list[np.ndarray] = []
    batches: list[list[int]] = []
    for i, (x0, y0, x1, y1) in enumerate(boxes.tolist()):
        for occ, batch in zip(occupied, batches):
            if not occ[y0:y1 + 1, x0:x1 + 1].any():
                occ[y0:y1 + 1, x0:x1 + 1] = True
                batch.append(i)
                break
        else:
            occ = np.zeros(shape, bool)
            occ[y0:y1 + 1, x0:x1 + 1] = True
            occupied.append(occ)
            batches.append([i])
    return batches


def negotiation_costs(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    cost = 16 + 16 * (rng.random((h, w)) < 1 / 3) * rng.integers(1, 4, (h, w))
    dear = rng.random((h, w)) < 0.02
    cost[dear] = rng.integers(100, COST_MAX + 1, int(dear.sum()))
    return cost.astype(COST_DTYPE)


def problem(size: int, nets: int, span: int, margin: int, seed: int):
    lay = random_layout(size, size, density=0.25, nets=nets, pins=2, seed=seed, span=span)
    owner = np.full((size, size), -1, np.int32)
    requests = []
    for j, net in enumerate(lay.nets):
        p = np.array(net.pins, np.int64)
        owner[p[:, 1], p[:, 0]] = j
        box = (max(0, int(p[:, 0].min()) - margin), max(0, int(p[:, 1].min()) - margin),
               min(size - 1, int(p[:, 0].max()) + margin),
               min(size - 1, int(p[:, 1].max()) + margin))
        requests.append(NetRequest(j, p, box))
    return ~lay.blocked, owner, requests


def one_pass(search, cost, requests, batches, changed):
    out = []
    for k, batch in enumerate(batches):
        out += search.route(cost, [requests[i] for i in batch],
                            changed=changed if k == 0 else np.zeros(0, np.int64))
    return out


def timed_passes(search, cost0, requests, batches, repeats, seed, sync=lambda: None):
    """Median seconds of one pass (after a warm-up pass) and the last pass's wires."""
    rng = np.random.default_rng(seed)
    cost = cost0.copy()
    one_pass(search, cost, requests, batches, None)
    times, out = [], None
    for _ in range(repeats):
        changed = rng.integers(0, cost.size, cost.size // 100)
        cost.ravel()[changed] = rng.integers(16, 80, changed.size)
        sync()
        t = time.perf_counter()
        out = one_pass(search, cost, requests, batches, changed)
        sync()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def same(a, b) -> bool:
    return len(a) == len(b) and all(
        (x is None) == (y is None) and (x is None or np.array_equal(x, y))
        for x, y in zip(a, b))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--nets", type=int, default=2000)
    ap.add_argument("--span", type=int, default=64)
    ap.add_argument("--margin", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--big-size", type=int, default=4096)
    args = ap.parse_args()

    free, owner, requests = problem(args.size, args.nets, args.span, args.margin, args.seed)
    boxes = np.array([r.box for r in requests])
    batches = disjoint_batches(boxes, free.shape)
    area = (boxes[:, 2] - boxes[:, 0] + 1) * (boxes[:, 3] - boxes[:, 1] + 1)
    print(f"{args.size}^2, {len(requests)} nets (span {args.span}, margin {args.margin}): "
          f"{len(batches)} batches of disjoint boxes, box area median {int(np.median(area))}"
          f", max {int(area.max())}")
    cost0 = negotiation_costs(np.random.default_rng(args.seed), *free.shape)

    cpu_t, cpu_out = timed_passes(CPUNetSearch(free, owner), cost0, requests, batches,
                                  args.repeats, args.seed)
    routed = sum(o is not None for o in cpu_out)
    print(f"cpu: median {cpu_t * 1e3:.1f} ms a pass ({routed} of {len(requests)} routed)")
    if args.cpu_only:
        return

    import cupy

    from mazeroute.engines import cuda
    from mazeroute.engines.gpu_weighted import GPUNetSearch

    sync = cupy.cuda.Device().synchronize
    gpu = GPUNetSearch(free, owner)
    gpu_t, gpu_out = timed_passes(gpu, cost0, requests, batches, args.repeats, args.seed,
                                  sync)
    launches = gpu.launches
    print(f"gpu: median {gpu_t * 1e3:.1f} ms a pass, {cpu_t / gpu_t:.1f}x the CPU; "
          f"wires equal the CPU's: {same(gpu_out, cpu_out)}; launches so far {launches}")

    probe = GPUNetSearch(free, owner, options=("-DPROBE",))
    ptr = cuda.load_module("weighted", probe.options).get_global("g_probe")
    counters = cupy.ndarray((4,), cupy.uint64, memptr=ptr)
    counters.fill(0)
    one_pass(probe, cost0, requests, batches, None)
    c = [int(v) for v in counters.get()]
    n = len(requests)
    print(f"probe: {c[0] / n:.2f} searches a net, {c[1] / max(c[0], 1):.1f} sweeps a "
          f"search, {c[2] / n:.1f} backtrace steps a net, {c[3] / n:.0f} block cycles a net")

    if args.big:
        s = args.big_size
        bfree, bowner, breqs = problem(s, 1, s, s, args.seed)
        bcost = negotiation_costs(np.random.default_rng(args.seed), s, s)
        bg = GPUNetSearch(bfree, bowner)
        bg.route(bcost, breqs)                            # compile, allocate
        sync()
        t = time.perf_counter()
        g = bg.route(bcost, breqs)
        sync()
        gt = time.perf_counter() - t
        t = time.perf_counter()
        c = CPUNetSearch(bfree, bowner).route(bcost, breqs)
        ct = time.perf_counter() - t
        print(f"big: one {s}^2 box: gpu {gt:.2f} s, cpu {ct:.2f} s, equal: {same(g, c)}")


if __name__ == "__main__":
    main()
