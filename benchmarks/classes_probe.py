"""Whole wavefronts on layout classes no target generates: CPU engine, GPU engine and
``auto`` (issue 14), each timed as a user waits for it.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/classes_probe.py [--repeats 5] [--sizes 1024 2048]``. Classes: serpentine
corridors (one wall-cell apart, widths 1, 2, 4, 8), spirals (widths 1, 2, 4), perfect
mazes with 0, 0.2 %, 2 % and 20 % of their walls removed, open layouts of random
rectangles (4096 x 4096 at 25 %, 2048 x 2048 at 40 %), and the Moving AI maps of
``benchmarks/maps`` at their own size and tiled 4 x 4. Columns: auto's features,
then medians of ``--repeats`` runs of ``make_problem(...)`` + ``wavefront(root)`` +
``levels()`` (the problem built, decided and read back: what ``bfs`` costs) for the
CPU engine, the GPU engine and ``auto`` (its decision included); the GPU's wavefront
alone and with the levels read back, on a built problem; auto's pick; the best engine;
auto / best; and whether CPU and GPU levels agree. The root is the free cell nearest the
top-left corner (a corridor's end).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute.engines import gpu_available, make_problem  # noqa: E402
from mazeroute.engines.auto import cycle_rank, grid_features  # noqa: E402
from mazeroute.generate import (  # noqa: E402
    loopy_maze_mask,
    random_layout,
    serpentine_mask,
    spiral_mask,
)
from mazeroute.graph import GridGraph  # noqa: E402
from mazeroute.layout import read_movingai  # noqa: E402

MAPS = Path(__file__).resolve().parent / "maps"
GPU = gpu_available()


def sync() -> None:
    if GPU:
        import cupy
        cupy.cuda.Device().synchronize()


def whole(free: np.ndarray, backend: str, root) -> tuple[float, np.ndarray, str]:
    """Seconds of build + wavefront + read-back, the levels, the engine's backend."""
    backend = backend if GPU else "cpu"
    graph = GridGraph(free)
    start = time.perf_counter()
    problem = make_problem(graph, backend)
    levels = problem.wavefront(graph.vertices(np.array([root]))).levels()
    return time.perf_counter() - start, levels, problem.name[0]


def wave_only(free: np.ndarray, root, repeats: int) -> tuple[float, float]:
    """GPU wavefront alone, and with the levels read back, on a built problem."""
    graph = GridGraph(free)
    problem = make_problem(graph, "gpu" if GPU else "cpu")
    src = graph.vertices(np.array([root]))
    alone, read = [], []
    for _ in range(repeats):
        sync()
        start = time.perf_counter()
        wave = problem.wavefront(src)
        sync()
        alone.append(time.perf_counter() - start)
        wave.levels()
        read.append(time.perf_counter() - start)
    return statistics.median(alone), statistics.median(read)


def cases(sizes) -> list[tuple[str, np.ndarray]]:
    out = []
    for n in sizes:
        out += [(f"serpentine{n}w{w}", ~serpentine_mask(n, w)) for w in (1, 2, 4, 8)]
        out += [(f"spiral{n}w{w}", ~spiral_mask(n, w)) for w in (1, 2, 4)]
        out += [(f"maze{n - 1}loops{f}", ~loopy_maze_mask(n - 1, n - 1, f, 1))
                for f in (0.0, 0.002, 0.02, 0.2)]
    out.append(("open4096d25", ~random_layout(4096, 4096, density=0.25, nets=1, seed=3).blocked))
    out.append(("open2048d40", ~random_layout(2048, 2048, density=0.40, nets=1, seed=3).blocked))
    for path in sorted(MAPS.glob("*.map")):
        free = ~read_movingai(path).blocked
        out += [(path.stem, free), (path.stem + "x4", np.tile(free, (4, 4)))]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048])
    args = ap.parse_args()
    print("| class | free cells | corridor | wall | euler | loops/cell | cpu ms | gpu ms | "
          "gpu wave ms | gpu wave+read ms | auto ms | auto picks | best | auto/best | same |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|")
    for name, free in cases(args.sizes):
        ys, xs = np.nonzero(free)
        k = int(np.argmin(ys + xs))
        root = (int(xs[k]), int(ys[k]))
        f = grid_features(free)
        loops = cycle_rank(free) / max(1, f["cells"])
        whole(free, "gpu", root)                              # compile, warm up
        tc = statistics.median(whole(free, "cpu", root)[0] for _ in range(args.repeats))
        tg = statistics.median(whole(free, "gpu", root)[0] for _ in range(args.repeats))
        wg, rg = wave_only(free, root, args.repeats)
        ta = statistics.median(whole(free, "auto", root)[0] for _ in range(args.repeats))
        pick = whole(free, "auto", root)[2]
        same = np.array_equal(whole(free, "cpu", root)[1], whole(free, "gpu", root)[1])
        best = min(tc, tg)
        print(f"| {name} | {f['cells']} | {f['corridor']:.3f} | {f['wall']:.3f} | "
              f"{f['euler']:.5f} | {loops:.5f} | {tc * 1e3:.2f} | {tg * 1e3:.2f} | "
              f"{wg * 1e3:.2f} | {rg * 1e3:.2f} | {ta * 1e3:.2f} | {pick} | "
              f"{'cpu' if tc <= tg else 'gpu'} | {ta / best:.2f} | {same} |", flush=True)


if __name__ == "__main__":
    main()
