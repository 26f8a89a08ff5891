"""Whole wavefronts on ``gpu/grid``'s sweep and line modes against ``cpu/grid``.

For the suite's corridor classes and for layouts no suite generates (perfect and braided
mazes scaled up to wide corridors, combs of long corridors with random doors, rooms with
doors, the Moving AI maps at their size and tiled 4 x 4), it prints the medians of five
wavefronts from the first free cell of each engine and mode, the mode ``gpu/grid`` picks
by itself, whether ``auto`` sends the layout to the CPU, the line kernel's phases, and
whether every mode's levels equal the CPU engine's. It explains the line mode and
:func:`mazeroute.plan.decide.winding` with the rules ``min_lines_run`` and
``lines_balance`` (``docs/auto.md``, "Whole wavefronts").

    PYTHONPATH=. python3 benchmarks/lines_probe.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import cupy
import numpy as np

from mazeroute.bench import corner_source
from mazeroute.engines import make_problem
from mazeroute.engines.gpu_grid import GridRelaxProblem
from mazeroute.generate import class_mask, loopy_maze_mask, maze_mask, tile_mask
from mazeroute.graph import GridGraph
from mazeroute.plan import Measure
from mazeroute.plan.decide import wavefront_prefers_cpu
from mazeroute.readers import read_movingai

MAPS = Path(__file__).resolve().parent / "maps"
CLASSES = ["serpentine:2@1024", "serpentine:4@1024", "serpentine:8@1024", "spiral:2@1024",
           "spiral:4@1024", "serpentine:2@2048", "serpentine:3@2048", "serpentine:4@2048",
           "serpentine:6@2048", "serpentine:8@2048", "serpentine:16@2048", "spiral:2@2048",
           "spiral:3@2048", "spiral:4@2048", "spiral:8@2048", "maze:0.002@1024",
           "maze:0.2@1024", "open:0.25@2048", "dense:0.5@2048", "wired:1@2048",
           "open:0.25@4096"]


def scaled_maze(cells: int, k: int, loops: float = 0.0, seed: int = 0) -> np.ndarray:
    """Blocked mask: a maze of ``cells`` x ``cells`` scaled k times (corridors k wide)."""
    m = loopy_maze_mask(cells, cells, loops, seed) if loops else maze_mask(cells, cells, seed)
    return np.kron(m, np.ones((k, k), bool)).astype(bool)


def comb(n: int, width: int, seed: int = 3) -> np.ndarray:
    """Blocked mask: rows of corridors ``width`` wide, one-cell walls, a door in each."""
    rng = np.random.default_rng(seed)
    b = np.ones((n, n), bool)
    for y in range(0, n - width + 1, width + 1):
        b[y:y + width, :] = False
    for y in range(width, n, width + 1):
        b[y, rng.integers(0, n)] = False
    return b


def rooms(n: int, room: int = 64, door: int = 4, seed: int = 0) -> np.ndarray:
    """Blocked mask: rooms with walls two cells thick and a door in each wall."""
    rng = np.random.default_rng(seed)
    b = np.zeros((n, n), bool)
    for y in range(0, n, room):
        b[y:y + 2, :] = True
        b[:, y:y + 2] = True
    for y in range(0, n, room):
        for x in range(0, n, room):
            d = rng.integers(4, room - door - 2)
            b[y:y + 2, x + d:x + d + door] = False
            d = rng.integers(4, room - door - 2)
            b[y + d:y + d + door, x:x + 2] = False
    return b


def held_out() -> dict[str, np.ndarray]:
    out = {}
    for k in (2, 4, 8, 16):
        c = 2048 // k
        out[f"scaled maze x{k}"] = scaled_maze(c - 1 + c % 2, k)[:2048, :2048]
    out["scaled braided maze x8"] = scaled_maze(257, 8, 0.02)[:2048, :2048]
    out["comb 3 wide 2048"] = comb(2048, 3)
    out["comb 6 wide 1024"] = comb(1024, 6)
    out["rooms 64 2048"] = rooms(2048)
    for m in ("brc202d", "den520d", "ost003d"):
        b = read_movingai(MAPS / f"{m}.map").blocked
        out[m] = b
        out[m + " x4"] = tile_mask(b, 4)
    return out


def median_time(problem, src: list[int], repeats: int) -> float:
    problem.wavefront(src)                       # built and warmed up, as the bench does
    times = []
    for _ in range(repeats):
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        problem.wavefront(src)
        cupy.cuda.Device().synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    layouts = {n: class_mask(n.split("@")[0], int(n.split("@")[1])) for n in CLASSES}
    layouts.update(held_out())
    print(f"{'layout':24} {'cpu ms':>8} {'sweep':>8} {'lines':>8} {'gpu/grid':>8}  mode   "
          "auto->cpu  phases  levels equal")
    for name, blocked in layouts.items():
        free = ~blocked
        src = [corner_source(free)]
        cpu = make_problem(GridGraph(free), "cpu", "grid")
        ref = cpu.wavefront(src).levels()
        row, equal = [median_time(cpu, src, args.repeats)], True
        for mode in ("sweep", "lines", "auto"):
            p = GridRelaxProblem(GridGraph(free), mode=mode)
            row.append(median_time(p, src, args.repeats))
            equal &= bool(np.array_equal(p.wavefront(src).levels(), ref))
            if mode == "lines":
                phases = p._lines.phases()
            else:
                picked = p.mode
        to_cpu = wavefront_prefers_cpu(Measure(free))[0]
        print(f"{name:24} " + " ".join(f"{t * 1e3:8.2f}" for t in row)
              + f"  {picked:6} {to_cpu!s:9} {phases:7d}  {equal}", flush=True)


if __name__ == "__main__":
    main()
