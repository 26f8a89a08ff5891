"""Sequential routing of multi-pin nets: the CPU engine, the GPU with group searches
(mazeroute/router/grouped.py), and the GPU one net at a time (``group_search`` off), the
batched tree search off in both (``Router.batch_trees``; the router searches nets of
up to ``MAX_PINS`` pins as trees in its batches, and groups only nets of more pins:
``multipin_routing_probe.py`` measures that).

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/multipin_probe.py [MARGIN ...]`` (group box margins to try; default
``grouped.GROUP_MARGIN``). Layouts: the bench suite's multi-pin case (300 four-pin nets,
span 64, 1024^2, 15 % rectangles) and four that no suite generates (three-pin nets of
span 128 on 2048^2 with 25 %, six-pin nets of span 32 on 1024^2 with 10 %, four-pin nets
on the Moving AI map brc202d tiled 4 x 4, and 600 two-pin nets with 150 five-pin nets
mixed in). Per layout: medians over seeds 0-4 of ``Router(layout, backend).run()``
(router built, device synchronised), the nets committed from group searches, and
whether every backend gave the same wires, levels and bends.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.generate import random_layout, random_nets, tile_mask  # noqa: E402
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.readers import read_movingai  # noqa: E402
from mazeroute.router import Router, grouped  # noqa: E402

MAPS = Path(__file__).resolve().parent / "maps"


def timed(lay: Layout, backend: str, group: bool = True):
    start = time.perf_counter()
    r = Router(lay, backend)
    r.batch_trees = False          # multi-pin nets as barriers: the groups' own measure
    r.group_search = group
    res = r.run()
    if backend == "gpu":
        import cupy
        cupy.cuda.Device().synchronize()
    return time.perf_counter() - start, res, r


def same(a, b) -> bool:
    return all(x.cells == y.cells and x.levels == y.levels and x.bends == y.bends
               for x, y in zip(a.nets, b.nets))


def on_map(name: str, tiles: int, nets: int, pins: int, span: int, seed: int) -> Layout:
    blocked = tile_mask(read_movingai(MAPS / f"{name}.map").blocked, tiles)
    lay = Layout(f"{name}-{seed}", blocked.shape[1], blocked.shape[0], [], [], blocked)
    lay.nets = random_nets(blocked, nets, pins, np.random.default_rng(seed), span=span)
    return lay


def mixed(seed: int) -> Layout:
    lay = random_layout(1024, 1024, density=0.2, nets=600, pins=2, seed=seed, span=48)
    taken = lay.blocked.copy()
    for net in lay.nets:
        for x, y in net.pins:
            taken[y, x] = True
    rng = np.random.default_rng(seed + 7)
    nets = list(lay.nets)
    for m in random_nets(taken, 150, 5, rng, prefix="m", span=48):
        nets.insert(int(rng.integers(0, len(nets) + 1)), m)
    lay.nets = nets
    return lay


CASES = [
    ("multipin4 1024 15% span64 (bench)",
     lambda s: random_layout(1024, 1024, density=0.15, nets=300, pins=4, seed=s, span=64)),
    ("3-pin 2048 25% span128 (held out)",
     lambda s: random_layout(2048, 2048, density=0.25, nets=400, pins=3, seed=s, span=128)),
    ("6-pin 1024 10% span32 (held out)",
     lambda s: random_layout(1024, 1024, density=0.10, nets=500, pins=6, seed=s, span=32)),
    ("4-pin brc202d x4 span64 (held out)", lambda s: on_map("brc202d", 4, 300, 4, 64, s)),
    ("mixed 2+5-pin 1024 20% span48 (held out)", mixed),
]


def main() -> None:
    margins = [int(m) for m in sys.argv[1:]] or [grouped.GROUP_MARGIN]
    warm = random_layout(256, 256, density=0.15, nets=40, pins=4, seed=9, span=32)
    for backend, group in (("cpu", True), ("gpu", True), ("gpu", False)):
        timed(warm, backend, group)                     # compile, warm up
    for name, make in CASES:
        for margin in margins:
            grouped.GROUP_MARGIN = margin
            cpu, gpu, alone, taken, ok = [], [], [], [], True
            for seed in range(5):
                lay = make(seed)
                t_cpu, ref, _ = timed(lay, "cpu")
                t_gpu, got, router = timed(lay, "gpu")
                ok &= same(ref, got)
                if margin == margins[0]:
                    t_alone, one, _ = timed(lay, "gpu", False)
                    ok &= same(ref, one)
                    alone.append(t_alone)
                cpu.append(t_cpu)
                gpu.append(t_gpu)
                taken.append(router.grouped)
            mc, mg = statistics.median(cpu), statistics.median(gpu)
            one = (f"gpu one at a time {statistics.median(alone):.3f} s "
                   f"({mc / statistics.median(alone):.2f}x)" if alone else "")
            print(f"margin {margin} {name}: cpu {mc:.3f} s | gpu grouped {mg:.3f} s "
                  f"({mc / mg:.2f}x) | {one} | grouped nets {statistics.median(taken)} | "
                  f"same {ok}", flush=True)


if __name__ == "__main__":
    main()
