"""Where a negotiation's time goes on the device: the loop (its passes' wall and device
seconds), each phase after it, the rest; and the device's time of each call of the loop
by the largest box it searches.

Usage (from the repository root, on a machine with a GPU)::

    python benchmarks/negotiate_split.py [--cases r1024-2000,r4096-32000]
        [--schedules pf,g256] [--repeats 2] [--calls]

The cases are :mod:`negotiate_schedule`'s (the negotiation targets' layouts), negotiated
to their end (``wait_factor=0``) on the GPU after a warm-up on small layouts. Each line
gives the run's seconds: ``loop`` (the iterations' own time), ``phases`` (each phase),
``rest`` (the run less both: the device state's close, the result, the iterations' ends),
and the engine's ``device passes``: calls, nets, wall seconds and device seconds (CUDA
events from a pass's first launch to its last). With ``--calls`` a CUDA event pair
brackets every call of a pass (no synchronisation added), and the device's milliseconds
are summed by the call's largest box and by whether the call searched boxes in tiles
(too big for a block's shared memory). ``--tile T --blocks-per-sm K`` set the GPU
engine's tile side and the most blocks a multiprocessor of its tiled launches (fewer
where the device's occupancy for ``T + 2`` threads a block allows fewer).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from negotiate_schedule import layout, schedule  # noqa: E402

from mazeroute.engines import gpu_state  # noqa: E402
from mazeroute.engines import gpu_weighted as gw  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402
from mazeroute.router.negotiate import Negotiator  # noqa: E402

#: Bounds of the largest-box classes (cells) of ``--calls``.
AREAS = (0, 4096, 16384, 65536, 262144, 1 << 62)


class CallTimes:
    """CUDA events around every call of the device loop's passes, while installed."""

    def __init__(self):
        self.calls: list[tuple] = []
        self._plan = gpu_state.DeviceState._pass_plan
        self._call = gpu_state.DeviceState._pass_call

    def __enter__(self):
        import cupy
        times = self

        def plan(state, packed, bounds):
            bw, bh = packed.boxes[:, 2] - packed.boxes[:, 0] + 1, \
                packed.boxes[:, 3] - packed.boxes[:, 1] + 1
            state._areas = bw * bh
            return times._plan(state, packed, bounds)

        def call(state, views, c):
            lo, hi, _, _, tiled, _ = c
            first, last = cupy.cuda.Event(), cupy.cuda.Event()
            first.record()
            times._call(state, views, c)
            last.record()
            times.calls.append((first, last, hi - lo, int(state._areas[lo:hi].max()),
                                any(t is not None for t in tiled)))
        gpu_state.DeviceState._pass_plan, gpu_state.DeviceState._pass_call = plan, call
        return self

    def __exit__(self, *exc):
        gpu_state.DeviceState._pass_plan = self._plan
        gpu_state.DeviceState._pass_call = self._call

    def table(self) -> dict:
        import cupy
        ms = np.array([cupy.cuda.get_elapsed_time(a, b) for a, b, *_ in self.calls])
        nets = np.array([c[2] for c in self.calls])
        big = np.array([c[3] for c in self.calls])
        tiled = np.array([c[4] for c in self.calls], bool)
        out = {"calls": len(ms), "ms": round(float(ms.sum()), 1),
               "tiled calls": int(tiled.sum()), "tiled ms": round(float(ms[tiled].sum()), 1)}
        for lo, hi in zip(AREAS[:-1], AREAS[1:]):
            k = (big >= lo) & (big < hi)
            out[f"largest box [{lo}, {hi if hi < AREAS[-1] else 'inf'})"] = [
                int(k.sum()), int(nets[k].sum()), round(float(ms[k].sum()), 1)]
        return out


def measure(case: str, sched: str, calls: bool) -> dict:
    lay = layout(case)
    opts = PathFinderOptions(wait_factor=0, **schedule(sched))
    timer = CallTimes() if calls else None
    start = time.perf_counter()
    if timer:
        with timer:
            ng = Negotiator(lay, "gpu", opts)
            res = ng.run()
    else:
        ng = Negotiator(lay, "gpu", opts)
        res = ng.run()
    total = time.perf_counter() - start
    loop = sum(s.seconds for s in res.iterations)
    phases = {p.phase: round(p.seconds, 3) for p in res.phases}
    row = dict(case=case, schedule=sched, routed=res.routed, seconds=round(total, 3),
               loop=round(loop, 3), phases=phases,
               rest=round(res.seconds - loop - sum(phases.values()), 3),
               passes=[round(x, 3) for x in ng.search.spent["device passes"]])
    if timer:
        row["calls"] = timer.table()
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="r1024-2000,r4096-32000")
    ap.add_argument("--schedules", default="pf,g256")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--calls", action="store_true", help="time every call of the loop")
    ap.add_argument("--tile", type=int, help="the tiled search's tile side")
    ap.add_argument("--blocks-per-sm", type=int, help="most blocks a multiprocessor of its rounds")
    args = ap.parse_args()
    if args.tile is not None:
        import functools
        gw.GPUNetSearch.__init__ = functools.partialmethod(gw.GPUNetSearch.__init__,
                                                           tile=args.tile)
    if args.blocks_per_sm is not None:
        gw.ROUND_BLOCKS_PER_SM = args.blocks_per_sm
    warm = [random_layout(64, 64, density=0.25, nets=40, pins=2, seed=0, span=16),
            random_layout(256, 256, density=0.25, nets=300, pins=2, seed=0, span=48)]
    for s in args.schedules.split(","):
        for lay in warm:
            route(lay, backend="gpu", options=PathFinderOptions(**schedule(s)))
    for case in args.cases.split(","):
        for s in args.schedules.split(","):
            for _ in range(args.repeats):
                print(json.dumps(measure(case, s, False)), flush=True)
            if args.calls:
                print(json.dumps(measure(case, s, True)), flush=True)


if __name__ == "__main__":
    main()
