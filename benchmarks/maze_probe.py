"""Probe of gpu/grid's two paths (tiles, tree) against cpu/grid and SciPy.

Run on a GPU machine from the repository root: ``python benchmarks/maze_probe.py
[--quick | --braids]`` (``--braids``: perfect mazes with fewer and fewer loops).
Medians of host wall time around one ``Problem.wavefront()`` bracketed by device
synchronisations (as ``mazeroute bench`` measures); every GPU result is compared with
cpu/grid's levels.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute import bench  # noqa: E402
from mazeroute.engines import make_problem  # noqa: E402
from mazeroute.engines.gpu_grid import GridRelaxProblem  # noqa: E402
from mazeroute.graph import GridGraph  # noqa: E402
from mazeroute.plan import Measure  # noqa: E402
from mazeroute.plan.decide import wavefront_prefers_cpu  # noqa: E402
from mazeroute.plan.features import cycle_rank, grid_features  # noqa: E402


def sync():
    import cupy
    cupy.cuda.Device().synchronize()


def timed(run, repeats, gpu=True):
    run()
    times, out = [], None
    for _ in range(repeats):
        if gpu:
            sync()
        t = time.perf_counter()
        out = run()
        if gpu:
            sync()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def main(argv=None):
    repeats = 7
    cases = [("maze", 1023), ("braid1", 1023), ("braid2", 1023), ("braid4", 1023),
             ("braid16", 1023), ("maze", 511), ("maze", 255), ("maze", 2047),
             ("open", 1024), ("dense", 1024), ("open", 4096),
             ("den520d", 0), ("brc202d", 0), ("ost003d", 0)]
    if argv and argv[0] == "--quick":
        cases = cases[:2]
    if argv and argv[0] == "--braids":     # where the rule min_gpu_loops should sit
        cases = [(f"braid{k}", n) for n in (511, 1023, 2047) for k in (4, 16, 32, 64, 128, 512)]
    print(f"{'case':14} {'corr':>5} {'loops':>7} {'levels':>7} {'cpu ms':>8} {'scipy ms':>8} "
          f"{'tiles ms':>9} {'tree ms':>8} {'sweep ms':>9} {'auto':>5}  check")
    for cls, size in cases:
        braid = int(cls[5:]) if cls.startswith("braid") else 0
        case = bench.make_case("maze" if braid else cls, size or bench.DEFAULT_SIZE)
        if braid:     # a perfect maze with some walls knocked out: loops
            case.free[1:-1:2 * braid, 2:-1:8 * braid] = True
        g = GridGraph(case.free)
        src = [case.source]
        cpu = make_problem(g, "cpu", "grid")
        t_cpu, wave = timed(lambda c=cpu, s=src: c.wavefront(s), repeats, gpu=False)
        ref = wave.levels()
        m = bench.scipy_matrix(g)
        t_sp, _ = timed(lambda m=m, s=case.source: bench.scipy_levels(m, s), 3,
                          gpu=False)
        row = {}
        checks = []
        for mode in ("tiles", "tree", "sweep"):
            try:
                p = GridRelaxProblem(g, mode=mode)
            except ValueError:
                row[mode] = float("nan")
                checks.append(f"{mode} n/a")
                continue
            t, w = timed(lambda p=p, s=src: p.wavefront(s), repeats)
            row[mode] = t
            ok = np.array_equal(w.levels(), ref) and w.num_levels == wave.num_levels
            checks.append(f"{mode} {'ok' if ok else 'WRONG'}")
        auto = "cpu" if wavefront_prefers_cpu(Measure(case.free))[0] \
            else GridRelaxProblem(g).mode
        f = grid_features(case.free)
        loops = cycle_rank(case.free) / max(1, f["cells"])
        print(f"{cls + str(size or ''):14} {f['corridor']:5.2f} {loops:7.3%} {wave.num_levels:7d} "
              f"{t_cpu * 1e3:8.3f} {t_sp * 1e3:8.3f} {row['tiles'] * 1e3:9.3f} "
              f"{row['tree'] * 1e3:8.3f} {row['sweep'] * 1e3:9.3f} {auto:>5}  "
              f"{', '.join(checks)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
