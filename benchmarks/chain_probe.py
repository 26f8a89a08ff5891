"""Sequential routing on the GPU in chains (one launch up to the next barrier, nets waiting
for their overlapping predecessors on the device) against batches (one launch per set of
disjoint claims, the host between them), with the CPU engine beside them.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/chain_probe.py [--seeds N] [--runs K] [--held-out]``. Per case and seed,
after a warm-up of each arm, K rounds of ``Router(layout, "gpu").run()`` with
``batch.chain`` on and off taking turns, and one CPU run: medians (ms), launches, and
whether every net's result is the same in all three. ``--held-out`` adds layouts no
suite generates (other sizes, seeds, densities and loop shares).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from mazeroute.bench import (  # noqa: E402
    ROUTING_CASES,
    RoutingCase,
    _maze_routing,
    _rects_routing,
    route_layout,
)
from mazeroute.router import Router  # noqa: E402

HELD_OUT = (
    RoutingCase("local3000_span48_1536", "3000 two-pin nets (span 48)", 20, 1536, 3000, 2,
                48, lambda side, nets, pins, span, seed: route_layout(side, nets, seed + 11,
                                                                      span=span)),
    RoutingCase("local8000_span64_2048", "8000 two-pin nets (span 64)", 20, 2048, 8000, 2,
                64, lambda side, nets, pins, span, seed: route_layout(side, nets, seed + 21,
                                                                      span=span)),
    RoutingCase("local32000_span64_4096", "32,000 two-pin nets (span 64)", 20, 4096, 32000,
                2, 64, lambda side, nets, pins, span, seed: route_layout(side, nets,
                                                                         seed + 31,
                                                                         span=span)),
    RoutingCase("rects30_span90_1200", "600 two-pin nets (span 90), 30 % rectangles", 5,
                1200, 600, 2, 90, _rects_routing(0.3)),
    RoutingCase("multipin6_span40_900", "400 six-pin nets (span 40), 10 % rectangles", 5,
                900, 400, 6, 40, _rects_routing(0.1)),
    RoutingCase("maze8pct_span120_1501", "250 two-pin nets (span 120), maze, 8 % of its "
                "walls removed", 5, 1501, 250, 2, 120, _maze_routing(0.08)),
)


def _key(result) -> list:
    return [(n.name, n.routed, n.length, n.bends, n.levels,
             None if n.cells is None else np.asarray(n.cells).tolist())
            for n in result.nets]


_LOG: list[str] = []


def _trace_launches() -> None:
    """Log every batched search call: nets, their outcomes, the call's milliseconds."""
    from mazeroute.engines import gpu_batch as gb

    names = {gb.OK: "ok", gb.GROW: "grow", gb.UNROUTED_SOURCE: "src",
             gb.UNROUTED_TARGET: "tgt", gb.ESCAPED: "esc", gb.ALONE: "alone",
             gb.SKIPPED: "skip"}
    search = gb.GridBatch.search

    def timed(self, rec, path_size, links=None):
        start = time.perf_counter()
        hdr, paths = search(self, rec, path_size, links)
        ms = (time.perf_counter() - start) * 1e3
        st = np.bincount(hdr[:, 0], minlength=8)
        cycles = int(hdr[hdr[:, 0] != gb.SKIPPED, 4].max(initial=0))
        _LOG.append(f"  {len(rec)} nets, " + " ".join(
            f"{names[k]} {st[k]}" for k in names if st[k]) + f", slowest net {cycles} "
            f"cycles, {ms:.2f} ms")
        return hdr, paths

    gb.GridBatch.search = timed


def _run(lay, backend: str, arm: str | None = None):
    """One run; ``arm`` is ``chain:M`` or ``batch:M`` (M: the window margin)."""
    start = time.perf_counter()
    router = Router(lay, backend)
    if arm is not None:
        kind, margin = arm.split(":")
        router.batch.chain = kind == "chain"
        router.batch.margin = int(margin)
    result = router.run()
    return time.perf_counter() - start, router.batches, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--cases", nargs="*", help="prefixes of the case names to run")
    ap.add_argument("--arms", nargs="+", default=["chain:12", "batch:12"],
                    help="chain:M or batch:M (M the window margin); the first is the "
                         "one the ratios are of")
    ap.add_argument("--launches", action="store_true",
                    help="also print each launch of the first arm's last run: nets, "
                         "outcomes, ms")
    args = ap.parse_args()
    if args.launches:
        _trace_launches()
    cases = list(ROUTING_CASES) + (list(HELD_OUT) if args.held_out else [])
    if args.cases:
        cases = [c for c in cases if any(c.name.startswith(p) for p in args.cases)]
    arms = args.arms
    print("case | seed | CPU ms | " + " | ".join(f"{a} ms (launches)" for a in arms)
          + f" | {arms[0]} / others | CPU / {arms[0]} | same")
    for case in cases:
        ratios: dict[str, list[float]] = {a: [] for a in arms[1:]}
        speedups = []
        for seed in range(args.seeds):
            lay = case.layout(seed)
            cpu_s, _, cpu = _run(lay, "cpu")
            for arm in arms:
                _run(lay, "gpu", arm)
            times: dict[str, list[float]] = {a: [] for a in arms}
            launches, keys = {}, {}
            for _ in range(args.runs):
                for arm in arms:
                    s, n, res = _run(lay, "gpu", arm)
                    times[arm].append(s)
                    launches[arm] = n
                    keys[arm] = _key(res)
            same = all(k == _key(cpu) for k in keys.values())
            med = {a: statistics.median(v) for a, v in times.items()}
            for a in arms[1:]:
                ratios[a].append(med[arms[0]] / med[a])
            speedups.append(cpu_s / med[arms[0]])
            print(f"{case.name} | {seed} | {cpu_s * 1e3:.1f} | " + " | ".join(
                f"{med[a] * 1e3:.1f} ({launches[a]})" for a in arms) + " | " + ", ".join(
                f"{med[arms[0]] / med[a]:.2f}" for a in arms[1:])
                + f" | {cpu_s / med[arms[0]]:.1f}x | {same}", flush=True)
            if args.launches:
                _LOG.clear()
                t, _, _ = _run(lay, "gpu", arms[0])
                print(f"{case.name} seed {seed}, {arms[0]}, {t * 1e3:.1f} ms:\n"
                      + "\n".join(_LOG))
        print(f"{case.name} medians over seeds: " + ", ".join(
            f"{arms[0]} / {a} {statistics.median(v):.2f}" for a, v in ratios.items())
            + f", CPU / {arms[0]} {statistics.median(speedups):.1f}x", flush=True)


if __name__ == "__main__":
    main()
