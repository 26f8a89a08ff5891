"""Issue 4 target (c) probe: where one batched GPU route's wall time goes.

Run on a GPU machine from the repository root: ``PYTHONPATH=. python
benchmarks/route_breakdown.py [SEED ...]``. Wraps the router's steps with host timers
(and CUDA events around each batched search kernel) and prints, per seed, the median of
5 routes of ``route_layout(1024, 1000, seed)``: Router set-up, the batch loop split into
scheduling (next_batch, records, take), search calls (of which kernel time), level
counts, alone-routed nets, results, and what is left.
"""
import statistics
import sys
import time
from collections import defaultdict

import cupy
import numpy as np

from mazeroute.bench import route_layout
from mazeroute.engines import cuda
from mazeroute.engines import gpu_batch as gb
from mazeroute.router import sequential as rt

PHASES = "--phases" in sys.argv      # kernel built with -DPHASES: cycles per phase
if PHASES:
    sys.argv.remove("--phases")
    gb.HDR = 9
    _get = cuda.get_kernel
    cuda.get_kernel = lambda m, k, o=(): _get(m, k, (*o, "-DPHASES"))
phase = np.zeros(5)       # summed over blocks: load, BFS, backtrace cycles, steps, cells

acc: dict[str, float] = defaultdict(float)
events: list = []


def timed(name, fn):
    def wrapper(*a, **k):
        t = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            acc[name] += time.perf_counter() - t
    return wrapper


for name in ("next_batch", "records", "take", "wire_cells"):
    setattr(gb, name, timed(name, getattr(gb, name)))
for name in ("count_levels", "counted", "uncommit", "commit", "quiesce"):
    setattr(gb.GridBatch, name, timed(name, getattr(gb.GridBatch, name)))
rt._BatchRun._results = timed("results", rt._BatchRun._results)
rt._BatchRun.run = timed("batch_loop", rt._BatchRun.run)
_kernel = gb.GridBatch._kernel


def kernel(self, name, smem=0):
    k = _kernel(self, name, smem)
    if name != "route_batch":
        return k

    def launch(*a, **kw):
        s, e = cupy.cuda.Event(), cupy.cuda.Event()
        s.record()
        k(*a, **kw)
        e.record()
        events.append((s, e))
    return launch


gb.GridBatch._kernel = kernel
detail: list = []          # per batch: nets, max cycles, steps and window of that block
alone: list = []
_search, _alone = gb.GridBatch.search, rt._BatchRun._alone


def search(self, rec, size):
    hdr, paths = _search(self, rec, size)
    k = int(hdr[:, 4].argmax())
    if PHASES:
        phase[:3] += hdr[:, 6:9].sum(axis=0)
        phase[3] += hdr[:, 5].sum()
        phase[4] += hdr[:, 3].sum()
    detail.append((rec.shape[0], int(hdr[k, 4]), int(hdr[k, 5]), int(rec[k, gb.F_W]),
                   int(rec[k, gb.F_H]), int(hdr[k, 0]), int(hdr[:, 5].max()))
                  + (tuple(int(v) for v in hdr[k, 6:9]) if PHASES else ()))
    return hdr, paths


def alone_(self, p):
    t = time.perf_counter()
    _alone(self, p)
    r = self.alone[p]
    alone.append((p, int(self.margin[p]), r.routed, r.levels, r.length,
                  round((time.perf_counter() - t) * 1e3, 2)))


gb.GridBatch.search = timed("search", search)
rt._BatchRun._alone = timed("alone", alone_)

print(cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
rt.Router(route_layout(48, 4, seed=1, span=20), "gpu").run()
for seed in [int(s) for s in sys.argv[1:]] or [0]:
    lay = route_layout(1024, 1000, seed)
    rows = defaultdict(list)
    for _ in range(5):
        acc.clear()
        events.clear()
        detail.clear()
        alone.clear()
        phase[:] = 0
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        r = rt.Router(lay, "gpu")
        t1 = time.perf_counter()
        r.run()
        cupy.cuda.Device().synchronize()
        t2 = time.perf_counter()
        rows["total"].append(t2 - t0)
        rows["setup"].append(t1 - t0)
        rows["kernel"].append(sum(cupy.cuda.get_elapsed_time(s, e) for s, e in events) / 1e3)
        rows["batches"].append(r.batches)
        for k, v in acc.items():
            rows[k].append(v)
        sched = acc["next_batch"] + acc["records"] + acc["take"]
        rows["loop other"].append(acc["batch_loop"] - sched - acc["search"] - acc["results"]
                                  - acc["count_levels"] - acc["counted"] - acc["alone"]
                                  - acc["uncommit"] - acc["wire_cells"])
        rows["run other"].append(t2 - t1 - acc["batch_loop"])
    print(f"seed {seed}: " + ", ".join(
        f"{k} {statistics.median(v) * (1 if k == 'batches' else 1e3):.2f}"
        for k, v in rows.items()))
    ms = [cupy.cuda.get_elapsed_time(s, e) for s, e in events]
    print("  last route, per batch: kernel ms, nets, max block cycles (its steps, window w x h,"
          " status), max steps")
    for m, d in zip(ms, detail):
        print(f"    {m:.3f} {d}")
    if PHASES:
        print(f"  phases (last route, all blocks): load {phase[0]:.3g} cycles, BFS "
              f"{phase[1]:.3g} ({phase[1] / phase[3]:.0f} per level), backtrace and rest "
              f"{phase[2]:.3g} ({phase[2] / phase[4]:.0f} per wire cell)")
    print("  alone (pos, margin, routed, levels, length, ms):", alone)
