"""The first wavefront under ``auto`` against the faster engine on layouts no suite
generates (issue 14): what ``mazeroute wavefront`` waits for, the problem built (auto:
decided first) and one wavefront from the corner source, read-back excluded.

Two mask sets:

* ``routing``: the masks of ``auto_routing_heldout.py``'s four sets (maps tiled and
  cropped, twelve generated classes at 300-800 a side), timed as a classes-suite row
  (``mazeroute.bench.measure_class``: also the whole wavefront and auto's decision);
* ``small``: grids of 20,000-400,000 free cells: seventeen classes (open, dense, wired,
  maze at several parameters) at 270-560 a side and four random crops of each Moving AI
  map tiled 4x4, seed ``--seed``; CPU, GPU and auto taking turns
  (``mazeroute.bench._first_wavefronts``, 7 rounds), with the sampled features auto
  reads (``wall``, ``corridor``, ``euler``).

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/auto_first_heldout.py routing`` or ``... small --seed 61``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import auto_routing_heldout as held  # noqa: E402
import numpy as np  # noqa: E402

from mazeroute.bench import _first_wavefronts, corner_source, measure_class  # noqa: E402
from mazeroute.engines import auto  # noqa: E402
from mazeroute.generate import class_mask, tile_mask  # noqa: E402
from mazeroute.graph import GridGraph  # noqa: E402
from mazeroute.layout import read_movingai  # noqa: E402

SMALL_CLASSES = ("open:0.05", "open:0.15", "open:0.25", "open:0.35", "open:0.45",
                 "dense:0.1", "dense:0.2", "dense:0.3", "dense:0.4", "dense:0.5",
                 "wired:0.5", "wired:1", "wired:2", "wired:3",
                 "maze:0.05", "maze:0.2", "maze:0.4")
SMALL_SIDES = (270, 330, 400, 470, 560)


def routing_masks() -> dict[str, np.ndarray]:
    """Every mask of the routing sets, once by name."""
    return {name: b for s in sorted(held.SETS) for name, _, b in held.set_masks(s)}


def small_masks(seed: int) -> dict[str, np.ndarray]:
    masks = {f"{cls}@{side}": class_mask(cls, side, seed)
             for cls in SMALL_CLASSES for side in SMALL_SIDES}
    rng = np.random.default_rng(seed)
    for m in held.MAPS:
        b = tile_mask(read_movingai(m).blocked, 4)
        for _ in range(4):
            hh = int(rng.integers(300, min(700, b.shape[0] - 10)))
            ww = int(rng.integers(300, min(700, b.shape[1] - 10)))
            y, x = int(rng.integers(0, b.shape[0] - hh)), int(rng.integers(0, b.shape[1] - ww))
            masks[f"{m.stem}:x4[{y}:{y + hh},{x}:{x + ww}]"] = b[y:y + hh, x:x + ww]
    return masks


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("masks", choices=("routing", "small"))
    ap.add_argument("--seed", type=int, default=61)
    args = ap.parse_args()
    over = n = 0
    if args.masks == "routing":
        print("name WxH free | cpu_ms gpu_ms | first: cpu gpu auto(ms) pick auto/best | "
              "whole: auto/best decide_ms", flush=True)
        for name, b in routing_masks().items():
            r = measure_class(name, ~b, repeats=5, max_seconds=2)
            n += 1
            over += r.first_auto_vs_best > 1.2
            print(f"{name} {r.size} {r.cells} | {r.cpu_s * 1e3:.2f} {r.gpu_s * 1e3:.2f} | "
                  f"{r.cpu_first_s * 1e3:.2f} {r.gpu_first_s * 1e3:.2f} "
                  f"{r.auto_first_s * 1e3:.2f} {r.auto_pick} {r.first_auto_vs_best:.2f} | "
                  f"{r.auto_vs_best:.2f} {r.decide_s * 1e3:.2f}", flush=True)
    else:
        print("name WxH free wall corridor euler | cpu_first gpu_first auto_first (ms) "
              "pick auto/best", flush=True)
        for name, b in small_masks(args.seed).items():
            free = np.ascontiguousarray(~b)
            cells = int(free.sum())
            if cells < 20000:
                continue
            src = np.array([corner_source(free)], np.int64)
            t = _first_wavefronts(GridGraph(free), src, ["cpu", "gpu", "auto"], 7, 1.0)
            f = auto.sampled_features(free)
            auto.forget()
            pick = "cpu" if auto.prefers_cpu(free) else "gpu"
            auto.forget()
            ratio = t["auto"] / min(t["cpu"], t["gpu"])
            n += 1
            over += ratio > 1.2
            print(f"{name} {b.shape[1]}x{b.shape[0]} {cells} {f['wall']:.3f} "
                  f"{f['corridor']:.3f} {f['euler']:.4f} | {t['cpu'] * 1e3:.3f} "
                  f"{t['gpu'] * 1e3:.3f} {t['auto'] * 1e3:.3f} {pick} {ratio:.2f}", flush=True)
    print(f"# first wavefront under auto over 1.2x best on {over} of {n}", flush=True)


if __name__ == "__main__":
    main()
