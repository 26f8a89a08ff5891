"""Sequential routing of multi-pin layouts: the CPU engine against the GPU (trees in the
batched kernel, nets of more than ``MAX_PINS`` pins in group searches), and what auto
picks.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/multipin_routing_probe.py OUT.json [--held-out] [--maps] [--only PREFIX,...]``.
Layouts (none is a bench suite's): random rectangles at 512^2, 1024^2, 2048^2 (seed 5)
with nets of 3, 4, 8 and 40 pins, spans 32, 128 and anywhere, 15 % (and 30 % at span
128) blockages; ``--held-out``: 768^2 and 1536^2 at 20 % (seed 7) with nets of 3, 5, 12,
33 and 50 pins, spans 48, 192 and anywhere (96 and 192 for the many-pin nets);
``--maps``: the Moving AI maps of ``benchmarks/maps`` as they are and tiled 4 x 4, with
four-pin nets of span 64, three-pin nets of span 200, eight-pin nets of span 32, and
two-pin nets of span 64 and anywhere. Per
layout: the median of three GPU runs and of one to three CPU runs of
``Router(layout, backend).run()`` (router built, device synchronised), the engine auto
picks, and whether both backends gave the same wires and levels. This is the
measurement behind ``auto.TREE_SPAN``, ``auto.TREE_CELLS`` and ``auto.GROUP_SPAN``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.bench import _warm_routing  # noqa: E402
from mazeroute.generate import random_layout, random_nets, tile_mask  # noqa: E402
from mazeroute.layout import Layout  # noqa: E402
from mazeroute.readers import read_movingai  # noqa: E402
from mazeroute.router import Router  # noqa: E402

MAPS = Path(__file__).resolve().parent / "maps"


def timed(lay: Layout, backend: str, repeats: int):
    import cupy
    times, res, router = [], None, None
    for _ in range(repeats):
        cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        router = Router(lay, backend)
        res = router.run()
        cupy.cuda.Device().synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times), res, router


def rect_cases(held_out: bool) -> list:
    out = []
    if held_out:
        grid = ((768, 1536), 0.2, 7, ((3, (48, 192, None)), (5, (48, 192, None)),
                                      (12, (48, 192, None)), (33, (48, 96, 192)), (50, (64,))))
    else:
        grid = ((512, 1024, 2048), 0.15, 5, tuple((k, (32, 128, None)) for k in (3, 4, 8, 40)))
    sizes, density, seed, mixes = grid
    for size in sizes:
        n = size * size // 3500
        for k, spans in mixes:
            for span in spans:
                for d in (density, 0.3) if span == 128 and not held_out else (density,):
                    nets = n if k <= 32 else n // (5 if held_out else 4)
                    out.append((f"{'held' if held_out else 'rects'}{size}_k{k}_sp{span}_d{d}",
                                lambda s=size, m=nets, k=k, sp=span, d=d: random_layout(
                                    s, s, density=d, nets=m, pins=k, seed=seed, span=sp)))
    return out


def map_cases() -> list:
    out = []
    for path in sorted(MAPS.glob("*.map")):
        for tiles in (1, 4):
            for k, span in ((4, 64), (3, 200), (8, 32), (2, 64), (2, None)):
                def make(path=path, tiles=tiles, k=k, span=span):
                    blocked = read_movingai(path).blocked
                    if tiles > 1:
                        blocked = tile_mask(blocked, tiles)
                    h, w = blocked.shape
                    lay = Layout(f"{path.stem}x{tiles}", w, h, [], [], blocked)
                    count = max(20, int((~blocked).sum()) // 3500)
                    lay.nets = random_nets(blocked, count, k, np.random.default_rng(6), span=span)
                    return lay
                out.append((f"{path.stem}x{tiles}_k{k}_sp{span}", make))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--held-out", action="store_true")
    ap.add_argument("--maps", action="store_true")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    cases = map_cases() if args.maps else rect_cases(args.held_out)
    if args.only:
        keep = args.only.split(",")
        cases = [c for c in cases if any(c[0].startswith(k) for k in keep)]
    _warm_routing(["cpu", "gpu"])
    rows = []
    for name, make in cases:
        lay = make()
        Router(lay, "gpu").run()
        tg, rg, rgpu = timed(lay, "gpu", 3)
        tc, rc, _ = timed(lay, "cpu", 1 if tg > 1 else 3)
        auto = Router(lay, "auto").engine
        same = all(a.cells == b.cells and a.levels == b.levels for a, b in zip(rg.nets, rc.nets))
        pins = np.array([len(n.pins) for n in lay.nets])
        spans = np.array([n.hpwl for n in lay.nets])
        rows.append(dict(name=name, cpu=tc, gpu=tg, auto=auto, same=same, routed=rc.routed,
                         nets=len(lay.nets), batches=rgpu.batches, grouped=rgpu.grouped,
                         free=int((~lay.blocked).sum()), median_pins=float(np.median(pins)),
                         median_span=float(np.median(spans))))
        best = min(tc, tg)
        mine = tc if auto.startswith("cpu") else tg
        print(f"{name:26s} cpu {tc * 1e3:9.1f} ms  gpu {tg * 1e3:9.1f} ms  cpu/gpu "
              f"{tc / tg:6.2f}  auto {auto:9s} auto/best {mine / best:5.2f}  same {same}  "
              f"routed {rc.routed}/{len(lay.nets)}  median span {np.median(spans):.0f}",
              flush=True)
    Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
