"""Sequential routing on the CPU engine, the GPU engine and under ``auto`` (issue 14's
routing goals), medians over five seeds.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/routing_probe.py [--first-seed 0] [CASE ...]``. Each case is timed as
``Router(layout, backend).run()`` (the router built, the backend decided, every net
routed and read back). Cases whose names start with ``H_`` were added after the
routing rule of :func:`mazeroute.engines.auto.routing_prefers_cpu` was chosen, to check
it on layouts it was not chosen on.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.engines import gpu_available  # noqa: E402
from mazeroute.generate import loopy_maze_mask, random_layout, random_nets  # noqa: E402
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.router import Router  # noqa: E402


def loopy_maze(n: int, fraction: float, nets: int, span: int, seed: int) -> Layout:
    """A perfect maze with ``fraction`` of its inner walls removed, two-pin nets on it."""
    blocked = loopy_maze_mask(n, n, fraction, seed)
    layout = Layout(f"maze-{n}-{seed}", n, n, [], [], blocked)
    layout.nets = random_nets(blocked, nets, 2, np.random.default_rng(seed + 1), span=span)
    return layout


def rects(n, density, nets, pins, span=None):
    return lambda s: random_layout(n, n, density=density, nets=nets, pins=pins, seed=s,
                                   span=span)


CASES = {
    "multipin4_span64_1024": rects(1024, 0.15, 300, 4, 64),
    "maze2pct_span200_1023": lambda s: loopy_maze(1023, 0.02, 200, 200, s),
    "anywhere_2048": rects(2048, 0.25, 300, 2),
    "local1000_span64_1024": rects(1024, 0.25, 1000, 2, 64),
    "multipin3_anywhere_1024": rects(1024, 0.25, 100, 3),
    "local2000_span32_2048": rects(2048, 0.25, 2000, 2, 32),
    "maze0pct_span64_1023": lambda s: loopy_maze(1023, 0.0, 300, 64, s),
    "H_multipin3_span128_2048": rects(2048, 0.2, 300, 3, 128),
    "H_maze20pct_span100_1023": lambda s: loopy_maze(1023, 0.2, 300, 100, s),
    "H_multipin5_span32_1024": rects(1024, 0.1, 400, 5, 32),
    "H_local500_span128_1536": rects(1536, 0.3, 500, 2, 128),
}


def timed(layout: Layout, backend: str):
    start = time.perf_counter()
    result = Router(layout, backend).run()
    return time.perf_counter() - start, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    gpu = gpu_available()
    warm = random_layout(256, 256, nets=20, seed=9, span=32)
    for backend in ("cpu", "gpu", "auto") if gpu else ("cpu",):
        Router(warm, backend).run()
    seeds = range(args.first_seed, args.first_seed + 5)
    print(f"seeds {seeds.start}-{seeds.stop - 1}; medians in seconds")
    print("| case | cpu s | gpu s | auto s | auto's engine | gpu speed-up | auto / best | "
          "same wires |")
    print("|---|---:|---:|---:|---|---:|---:|---|")
    for name in args.cases:
        rows, engines, same = [], set(), True
        for seed in seeds:
            layout = CASES[name](seed)
            tc, rc = timed(layout, "cpu")
            tg, rg = timed(layout, "gpu") if gpu else (float("nan"), rc)
            ta, ra = timed(layout, "auto") if gpu else (tc, rc)
            engines.add(ra.engine)
            same &= all(a.cells == b.cells for a, b in zip(rc.nets, rg.nets))
            rows.append((tc, tg, ta))
        cpu, gpu_s, auto = (statistics.median(r[k] for r in rows) for k in range(3))
        print(f"| {name} | {cpu:.3f} | {gpu_s:.3f} | {auto:.3f} | {', '.join(sorted(engines))} "
              f"| {cpu / gpu_s:.2f}x | {auto / min(cpu, gpu_s):.2f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
