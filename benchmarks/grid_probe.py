"""Probe of the gpu/grid engine: correctness + timings against SciPy and cpu/grid.

Run on a GPU machine from the repository root: ``python benchmarks/grid_probe.py``
(``--quick`` skips the 1024 class table and the routing). Medians of host wall time
around one ``Problem.wavefront()`` bracketed by device synchronisations, as
``mazeroute bench`` measures; every GPU result is compared with cpu/grid's levels.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mazeroute import bench  # noqa: E402
from mazeroute.engines import make_problem  # noqa: E402
from mazeroute.graph import GridGraph  # noqa: E402
from mazeroute.router import Router  # noqa: E402


def sync():
    import cupy
    cupy.cuda.Device().synchronize()


def timed(problem, src, repeats, gpu=True):
    problem.wavefront(src)
    times, wave = [], None
    for _ in range(repeats):
        if gpu:
            sync()
        t = time.perf_counter()
        wave = problem.wavefront(src)
        if gpu:
            sync()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), wave


def corridor_stats(free):
    from mazeroute.engines.auto import grid_features
    return grid_features(free)


def probe_case(name, case, variants, repeats, scipy_too=True):
    from mazeroute.engines.gpu_grid import GridRelaxProblem
    g = GridGraph(case.free)
    src = np.array([case.source])
    rows = []
    if scipy_too:
        m = bench.scipy_matrix(g)
        bfo, der, _ = bench.time_scipy(m, case.source, repeats)
        t_scipy = float(np.median(np.add(bfo, der)))
        rows.append(("scipy bfo+levels", t_scipy, "", ""))
    else:
        t_scipy = None
    t_cpu, wcpu = timed(make_problem(g, "cpu", "grid"), src, repeats, gpu=False)
    ref = wcpu.levels()
    rows.append(("cpu/grid", t_cpu, wcpu.num_levels, "ref"))
    for kw in variants:
        p = GridRelaxProblem(g, **kw)
        t, w = timed(p, src, repeats)
        ok = "ok" if (np.array_equal(w.levels(), ref) and w.num_levels == wcpu.num_levels) \
            else "WRONG"
        rows.append((f"gpu/grid {kw}", t, w.num_levels, ok))
        del p, w
    print(f"\n== {name} {case.free.shape[1]}x{case.free.shape[0]}  features "
          f"{corridor_stats(case.free)}")
    for kw in variants[:2]:
        show_stats(g, src, kw)
    for eng, t, lv, ck in rows:
        extra = ""
        if t_scipy:
            extra += f"  {t_scipy / t:8.2f}x scipy"
        extra += f"  {t_cpu / t:8.2f}x cpu"
        print(f"  {eng:44s} {t * 1e3:10.3f} ms{extra}  levels {lv} {ck}", flush=True)
    return rows


def show_stats(g, src, kw):
    from mazeroute.engines.gpu_grid import GridRelaxProblem
    p = GridRelaxProblem(g, stats=True, **kw)
    p.wavefront(src)
    p.stats()
    sync()
    t = time.perf_counter()
    p.wavefront(src)
    sync()
    t = time.perf_counter() - t
    st = p.stats()
    v = max(1, st["visits"] - st["echo visits"])
    per = {k: round(st[k] / v, 1) for k in ("level steps", "setup cycles", "loop cycles")}
    print(f"  stats {kw} ({t * 1e3:.2f} ms with counters): {st}; per real visit {per}; "
          f"cycles per flush {st['flush cycles'] / max(1, st['flushes']):.0f}, "
          f"per level step {st['loop cycles'] / max(1, st['level steps']):.0f}", flush=True)


def probe_route(size=1024, nets=1000, profile=True):
    lay = bench.route_layout(size, nets, 0)
    t_cpu, r_cpu = bench._route_time(lay, "cpu")
    t_gpu, r_gpu = bench._route_time(lay, "gpu")
    same = [n.cells for n in r_cpu.nets] == [n.cells for n in r_gpu.nets]
    print(f"\n== route {size}^2 {nets} nets: cpu {t_cpu:.3f} s ({r_cpu.routed} routed), "
          f"gpu {r_gpu.engine} {t_gpu:.3f} s ({r_gpu.routed} routed): "
          f"{t_cpu / t_gpu:.2f}x faster; identical routes: {same}", flush=True)
    if profile:
        router = Router(lay, "gpu")
        pr = cProfile.Profile()
        pr.enable()
        router.run()
        sync()
        pr.disable()
        print(f"  windows launched: {router.problem.runs} for {nets} nets")
        from mazeroute.engines.gpu_grid import GridRelaxProblem
        p = GridRelaxProblem(router.grid, stats=True)
        net = lay.nets[0]
        v = router.grid.vertices(net.pins)
        p.wavefront(v[:1], v[1:])
        p.stats()
        sync()
        t = time.perf_counter()
        w = p.wavefront(v[:1], v[1:])
        sync()
        print(f"  one net ({net.pins}, level {w.target_level}): "
              f"{(time.perf_counter() - t) * 1e6:.0f} us with counters, {p.stats()}")
        pstats.Stats(pr).sort_stats("tottime").print_stats(14)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--variants", default="tile_rows=64;tile_rows=32;tile_rows=128;"
                    "tile_rows=64,flush_every=4;tile_rows=64,flush_every=64")
    a = ap.parse_args()
    import cupy
    print(cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
    variants = []
    for v in a.variants.split(";"):
        kw = {}
        for item in filter(None, v.split(",")):
            k, val = item.split("=")
            kw[k] = int(val)
        variants.append(kw)
    steps = [lambda: probe_case("open", bench.make_case("open", 4096, 0), variants, a.repeats),
             lambda: probe_case("maze", bench.make_case("maze", 1023, 0), variants, a.repeats)]
    if not a.quick:
        steps += [lambda c=cls: probe_case(c, bench.make_case(c, 1024, 0), [{}], 5,
                                           scipy_too=False) for cls in bench.CLASSES]
        steps += [probe_route, memory]
    for step in steps:
        try:
            step()
        except Exception:
            traceback.print_exc()


def memory():
    lay = bench.route_layout(4096, 100, 1, span=128)
    print("\n== memory:", bench._memory_target("d", "4096 route", "<1GiB", lay), flush=True)


if __name__ == "__main__":
    main()
