"""Issue 4 target (c) probe: ``Router(layout, b)`` + ``run()`` for cpu and gpu, every net compared.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/route_probe.py [SEED ...]`` (default seed 0): ``route_layout(1024, 1000, seed)``,
3 rounds each, medians, device synchronised around each route, then a profile of one GPU
route.
"""
import cProfile
import io
import pstats
import statistics
import sys
import time

import cupy

from mazeroute.bench import route_layout
from mazeroute.router import Router

FIELDS = ("routed", "order", "cells", "length", "bends", "levels")


def once(lay, b):
    cupy.cuda.Device().synchronize()
    t = time.perf_counter()
    r = Router(lay, b)
    t1 = time.perf_counter()
    res = r.run()
    cupy.cuda.Device().synchronize()
    t2 = time.perf_counter()
    return t2 - t, t1 - t, res, r


def same(a, b):
    bad = [(x.name, f) for x, y in zip(a.nets, b.nets) for f in FIELDS
           if getattr(x, f) != getattr(y, f)]
    return bad


print(cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
for b in ("cpu", "gpu"):
    Router(route_layout(48, 4, seed=1, span=20), b).run()
seeds = [int(s) for s in sys.argv[1:]] or [0]
for seed in seeds:
    lay = route_layout(1024, 1000, seed)
    times = {"cpu": [], "gpu": []}
    build = {"cpu": [], "gpu": []}
    res = {}
    for _ in range(3):
        for b in ("cpu", "gpu"):
            t, tb, res[b], r = once(lay, b)
            times[b].append(t)
            build[b].append(tb)
            if b == "gpu":
                batches, launches = r.batches, r.batch.launches
    bad = same(res["cpu"], res["gpu"])
    c, g = statistics.median(times["cpu"]), statistics.median(times["gpu"])
    print(f"seed {seed}: cpu {c*1e3:.1f} ms (build {statistics.median(build['cpu'])*1e3:.2f}) "
          f"gpu {g*1e3:.2f} ms (build {statistics.median(build['gpu'])*1e3:.2f}) "
          f"ratio {c/g:.1f}x; batches {batches}, launches {launches}, "
          f"nets/batch {1000/batches:.1f}; routed {res['gpu'].routed}/{res['cpu'].routed}; "
          f"mismatches {len(bad)} {bad[:5]}")
    print("  cpu rounds", [f"{t*1e3:.1f}" for t in times["cpu"]],
          "gpu rounds", [f"{t*1e3:.2f}" for t in times["gpu"]])
lay = route_layout(1024, 1000, seeds[0])
pr = cProfile.Profile()
pr.enable()
once(lay, "gpu")
pr.disable()
s = io.StringIO()
pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
print(s.getvalue()[:6000])
