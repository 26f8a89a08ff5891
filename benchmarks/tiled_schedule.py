"""The tiled search's two schedules (``rounds``: grid barriers; ``queue``: a work queue)
on the negotiation targets' layouts: the device milliseconds of every tiled launch (CUDA
events around each), the negotiation's seconds and a digest of its wires, per schedule.

Usage (from the repository root, on a machine with a GPU)::

    python benchmarks/tiled_schedule.py [--cases LIST] [--schedules LIST] [--repeats N]
        [--tiled pf,g256]

Cases as ``negotiate_schedule.py``'s; ``--schedules`` are negotiation's (``pf``, ``gN``),
``--tiled`` the tiled search's. The wires must be the same under both tiled schedules.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import numpy as np  # noqa: E402
from negotiate_schedule import layout, schedule  # noqa: E402

from mazeroute.engines import gpu_weighted as gw  # noqa: E402
from mazeroute.generate import random_layout  # noqa: E402
from mazeroute.router import PathFinderOptions, route  # noqa: E402
from mazeroute.router.negotiate import Negotiator  # noqa: E402


def main() -> None:
    import cupy

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="r1024-2000,r4096-32000")
    ap.add_argument("--schedules", default="g256,pf")
    ap.add_argument("--tiled", default=",".join(gw.TILED_SCHEDULES))
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    spent: list[float] = []
    plain_launch, plain_init = gw.GPUNetSearch._tiled_launch, gw.GPUNetSearch.__init__

    def timed(self, *a, **k):
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
        e0.record()
        plain_launch(self, *a, **k)
        e1.record()
        e1.synchronize()
        spent.append(cupy.cuda.get_elapsed_time(e0, e1))
    gw.GPUNetSearch._tiled_launch = timed
    warm = [random_layout(64, 64, density=0.25, nets=40, pins=2, seed=0, span=16),
            random_layout(256, 256, density=0.25, nets=300, pins=2, seed=0, span=48)]
    for tiled in args.tiled.split(","):
        gw.GPUNetSearch.__init__ = functools.partialmethod(plain_init, tiled_schedule=tiled)
        for s in args.schedules.split(","):
            for lay in warm:
                route(lay, backend="gpu", options=PathFinderOptions(**schedule(s)))
        for case in args.cases.split(","):
            for s in args.schedules.split(","):
                runs = []
                for _ in range(args.repeats):
                    spent.clear()
                    start = time.perf_counter()
                    res = Negotiator(layout(case), "gpu",
                                     PathFinderOptions(wait_factor=0, **schedule(s))).run()
                    wires = hashlib.sha256()
                    for n in res.nets:
                        wires.update(np.asarray(n.cells if n.routed else [], np.int64)
                                     .tobytes() + b"|")
                    runs.append(dict(seconds=time.perf_counter() - start,
                                     tiled_ms=sum(spent), launches=len(spent),
                                     routed=res.routed, digest=wires.hexdigest()[:16]))
                print(json.dumps(dict(
                    tiled=tiled, case=case, schedule=s, routed=runs[0]["routed"],
                    seconds=round(statistics.median(r["seconds"] for r in runs), 3),
                    tiled_ms=round(statistics.median(r["tiled_ms"] for r in runs), 1),
                    launches=runs[0]["launches"],
                    digests=sorted({r["digest"] for r in runs}))), flush=True)


if __name__ == "__main__":
    main()
